// The CLI entry point: builds the command tree, runs it, and is the only place that turns
// errors into one line on stderr and an exit code (see src/errors.ts for the table).
import { Command, CommanderError } from 'commander';
import { EXIT, MsnapError } from '../errors.js';
import type { CliContext } from './context.js';
import { serveCommand } from './commands/serve.js';
import { VERSION } from '../version.js';

/** The whole command tree; commands get the context, never globals. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('msnap')
    .description('Historical crypto up/down prediction-market snapshots: query, export, or serve locally.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
    });
  program.addCommand(serveCommand(ctx));
  return program;
}

/** Run argv (without node and script) and return the exit code. */
export async function runMain(argv: string[], ctx: CliContext): Promise<number> {
  const program = buildProgram(ctx);
  applyExitOverride(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    return reportError(err, ctx, argv.includes('--verbose'));
  }
}

function applyExitOverride(cmd: Command): void {
  cmd.exitOverride();
  for (const sub of cmd.commands) applyExitOverride(sub);
}

function reportError(err: unknown, ctx: CliContext, verbose: boolean): number {
  if (err instanceof CommanderError) {
    // Help and version exit 0; commander already printed its one-line message.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return EXIT.ok;
    return EXIT.usage;
  }
  if (err instanceof MsnapError) {
    ctx.stderr.write(`msnap: ${err.message}\n`);
    if (err.hint) ctx.stderr.write(`hint: ${err.hint}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  ctx.stderr.write(`msnap: unexpected error: ${message}\n`);
  if (verbose && err instanceof Error && err.stack) ctx.stderr.write(`${err.stack}\n`);
  return EXIT.unexpected;
}
