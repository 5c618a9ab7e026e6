// The CLI entry point: builds the command tree, runs it, and is the only place that turns
// errors into one line on stderr and an exit code (see src/errors.ts for the table).
import { Command, CommanderError } from 'commander';
import { describeError, EXIT, exitCodeSummary, MsnapError } from '../errors.js';
import type { CliContext } from './context.js';
import { COMMANDS, commandToLoad } from './command-table.js';
import { addGlobalOptions } from './global-options.js';
import { VERSION } from '../version.js';

/**
 * The command tree; commands get the context, never globals. `argv`: the run's arguments, so that
 * only the command they name is loaded when it can be told (command-table.ts); without, every command.
 */
export async function buildProgram(ctx: CliContext, argv?: readonly string[]): Promise<Command> {
  const program = new Command('msnap')
    .description('Historical crypto up/down prediction-market snapshots: query, export, or serve locally.')
    .version(VERSION, '-V, --version');
  addGlobalOptions(program);
  const only = argv && commandToLoad(argv, program);
  const makers = await Promise.all(COMMANDS.filter((c) => only === undefined || c.name === only).map((c) => c.load()));
  for (const make of makers) {
    const [command, ...helpers] = make(ctx);
    program.addCommand(command!);
    for (const helper of helpers) program.addCommand(helper, { hidden: true });
  }
  program.addHelpText(
    'after',
    `
Examples:
  $ msnap keys add prod                 # store a key (read without echo)
  $ msnap limits                        # plan, rate limits, data window
  $ msnap markets --coin BTC --type 5m --limit 5
  $ msnap snapshots BTC 5m --csv > btc.csv
  $ msnap at BTC 5m 2025-11-22T00:02:30Z

Exit codes: ${exitCodeSummary()}.`,
  );
  applyOutputSettings(program, ctx);
  return program;
}

// addCommand() does not pass settings down, so every command gets the context's streams, the
// one-line usage hint after an error, and the global options in its --help.
function applyOutputSettings(cmd: Command, ctx: CliContext, clientSide = true): void {
  cmd
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ showGlobalOptions: clientSide })
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
      // Commander puts "(Did you mean --x?)" on a line of its own; keep every error to one line.
      outputError: (s, write) => write(s.replace(/\n\(Did you mean (.+)\?\)/, ' (did you mean $1?)')),
    });
  // The global options are the client's; `serve` ignores them, so its help does not list them.
  for (const sub of cmd.commands) applyOutputSettings(sub, ctx, clientSide && sub.name() !== 'serve');
}

/** Run argv (without node and script) and return the exit code. */
export async function runMain(argv: string[], ctx: CliContext): Promise<number> {
  const program = await buildProgram(ctx, argv);
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
  const { lines, exitCode } = describeError(err);
  for (const line of lines) ctx.stderr.write(`${line}\n`);
  // --verbose: the stack of what went wrong unexpectedly, or of the user's code an MsnapError wraps (a strategy's throw).
  const traced = err instanceof MsnapError ? err.cause : err;
  if (verbose && traced instanceof Error && traced.stack) ctx.stderr.write(`${traced.stack}\n`);
  return exitCode;
}
