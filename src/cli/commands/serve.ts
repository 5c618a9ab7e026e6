// `msnap serve`: placeholder until the server lands (issue 2).
import { Command } from 'commander';
import type { CliContext } from '../context.js';

/** The `serve` command and its subcommands (seed, import, keys). */
export function serveCommand(_ctx: CliContext): Command {
  return new Command('serve').description('Run the Market Snapshot Data Service locally over SQLite');
}
