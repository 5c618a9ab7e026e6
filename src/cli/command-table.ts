// The commands msnap has, each loaded only when asked for: a run of one command imports that
// command's modules and not the others' (a third of a short export's start-up was
// compiling modules it never used). The order is the order of `msnap --help`.
import type { Command } from 'commander';
import type { CliContext } from './context.js';

/** Makes a command's Command objects (one, or `completion` with its hidden helper). */
type CommandMaker = (ctx: CliContext) => Command[];

const one = (make: (ctx: CliContext) => Command) => (ctx: CliContext): Command[] => [make(ctx)];

/** Every command by name, in help order, with how to load it. */
export const COMMANDS: readonly { name: string; load: () => Promise<CommandMaker> }[] = [
  { name: 'markets', load: async () => one((await import('./commands/markets.js')).marketsCommand) },
  { name: 'snapshots', load: async () => one((await import('./commands/snapshots.js')).snapshotsCommand) },
  { name: 'at', load: async () => one((await import('./commands/at.js')).atCommand) },
  { name: 'watch', load: async () => one((await import('./commands/watch.js')).watchCommand) },
  { name: 'pull', load: async () => one((await import('./commands/pull.js')).pullCommand) },
  { name: 'quality', load: async () => one((await import('./commands/quality.js')).qualityCommand) },
  { name: 'chart', load: async () => one((await import('./commands/chart.js')).chartCommand) },
  { name: 'backtest', load: async () => one((await import('./commands/backtest.js')).backtestCommand) },
  { name: 'worker', load: async () => one((await import('./commands/worker.js')).workerCommand) },
  { name: 'limits', load: async () => one((await import('./commands/limits.js')).limitsCommand) },
  { name: 'health', load: async () => one((await import('./commands/health.js')).healthCommand) },
  { name: 'keys', load: async () => one((await import('./commands/keys.js')).keysCommand) },
  { name: 'paper', load: async () => one((await import('./commands/paper.js')).paperCommand) },
  { name: 'mcp', load: async () => one((await import('./commands/mcp.js')).mcpCommand) },
  { name: 'import', load: async () => one((await import('./commands/import.js')).importCommand) },
  { name: 'record', load: async () => one((await import('./commands/record.js')).recordCommand) },
  { name: 'serve', load: async () => one((await import('./commands/serve.js')).serveCommand) },
  // Completion walks the whole tree: asking for it loads every command (see commandToLoad).
  { name: 'completion', load: async () => (await import('./commands/completion.js')).completionCommands },
];

/**
 * The one command `argv` runs, when it can be told without the tree: the first word that is not a
 * global option or its value, if it names a command other than completion. Undefined (load them
 * all) for anything else: root help, `help`, a typo, an option the root does not know.
 */
export function commandToLoad(argv: readonly string[], root: Command): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return undefined;
    if (arg.startsWith('-') && arg.length > 1) {
      const flag = arg.startsWith('--') ? arg.split('=')[0]! : arg.slice(0, 2);
      const option = root.options.find((o) => o.long === flag || o.short === flag);
      if (!option) return undefined;
      // A value in the same word (--x=v, -xv) or none taken; else the next word is the value
      // (an optional one only if it does not look like an option, as commander reads it).
      const inline = arg.startsWith('--') ? arg.includes('=') : arg.length > 2;
      const next = argv[i + 1];
      if (!inline && (option.required || (option.optional && next !== undefined && !next.startsWith('-')))) i++;
      continue;
    }
    return COMMANDS.some((c) => c.name === arg) && arg !== 'completion' ? arg : undefined;
  }
  return undefined;
}
