// `msnap serve import`: loads a file written by `msnap markets|snapshots --ndjson|--csv|--json`.
import { existsSync, statSync } from 'node:fs';
import { Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import type { ImportFormat, ImportSummary } from '../../store/import/import-file.js';
import { DEFAULT_DB_PATH_HELP, resolveDbPath } from '../../store/sqlite/db-path.js';
import { withStore } from './serve-store.js';
import type { CliContext } from '../context.js';

/** Checked arguments of `serve import`. */
export interface ImportCommandOptions {
  file: string;
  db: string;
  format?: ImportFormat;
}

/** Imports one file (or '-' for stdin) in one transaction and reports what was added. */
export async function runImport(opts: ImportCommandOptions, ctx: CliContext): Promise<ImportSummary> {
  // A directory opens like a file and fails only on the first read, deep in the import.
  if (opts.file !== '-' && existsSync(opts.file) && statSync(opts.file).isDirectory()) {
    throw new UsageError(`${opts.file} is a directory; give a .ndjson, .csv or .json file`);
  }
  const { importFile } = await import('../../store/import/import-file.js');
  return withStore(opts.db, { cacheMiB: 256 }, async (store) => {
    const s = await importFile(store.bulk, opts.file, { format: opts.format, stdin: ctx.stdin });
    const fmt = (n: number) => n.toLocaleString('en-US');
    ctx.stdout.write(
      `imported ${opts.file === '-' ? 'stdin' : opts.file} (${s.format}): ${fmt(s.snapshotsAdded)} snapshots added, ` +
        `${fmt(s.snapshotsSkipped)} already present; ${fmt(s.marketsAdded)} markets added, ${fmt(s.marketsUpdated)} updated; ` +
        `${(s.ms / 1000).toFixed(1)} s (${fmt(s.rowsPerSec)} rows/s)\n`,
    );
    return s;
  });
}

/** Use to check the argument and flags of `serve import`; `globalFormat` is the root program's --format. */
export function parseImportFlags(
  file: string,
  raw: { db?: string; format?: string },
  globalFormat: string | undefined,
  env: NodeJS.ProcessEnv,
): ImportCommandOptions {
  const format = raw.format ?? globalFormat;
  if (format !== undefined && format !== 'ndjson' && format !== 'csv' && format !== 'json') {
    throw new UsageError(`--format for serve import must be ndjson, csv or json; got "${format}"`);
  }
  return { file, db: resolveDbPath(raw.db, env), format };
}

/** The `serve import` subcommand. */
export function serveImportCommand(ctx: CliContext): Command {
  return new Command('import')
    .description('Load markets or snapshots exported by msnap (NDJSON or CSV) into the database')
    .argument('<file>', 'file to load, or - for standard input')
    .option('--db <file>', `SQLite database file (default: ${DEFAULT_DB_PATH_HELP})`)
    .addOption(new Option('--format <format>', 'input format (default: from the extension, else sniffed)').choices(['ndjson', 'csv', 'json']))
    .addHelpText(
      'after',
      `
The whole file is one transaction: a bad line stops the import with "line N: ..." and leaves
the database exactly as it was. Rows already stored are skipped, so re-importing adds nothing.
Snapshots of a market the database lacks create it from its market_id.

Examples:
  $ msnap snapshots btc-updown-5m-1763769600 --ndjson > snaps.ndjson
  $ msnap serve import snaps.ndjson --db data.db
  $ msnap snapshots BTC 5m --json > snaps.json && msnap serve import snaps.json --db data.db
  $ msnap markets --coin btc --csv | msnap serve import - --format csv --db data.db`,
    )
    .action(async (file: string, raw: { db?: string; format?: string }, cmd: Command) => {
      // The client's global --format is parsed by the root program even after `serve import`.
      const globalFormat = cmd.optsWithGlobals<{ format?: string }>().format;
      await runImport(parseImportFlags(file, raw, globalFormat, ctx.env), ctx);
    });
}
