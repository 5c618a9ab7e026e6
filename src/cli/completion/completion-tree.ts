// The completion tree for @bomb.sh/tab, built from msnap's own commander program so it never
// drifts from the real commands and flags: every command and subcommand, their options (the
// client commands also get the global ones), flag values from commander's choices, and domain
// values (coins, market types, bar intervals, stored key names) for the arguments that take them.
import type { Command as CommanderCommand, Option as CommanderOption } from 'commander';
import { RootCommand, type Command as TabCommand } from '@bomb.sh/tab';
import { RESAMPLE_INTERVALS } from '../../analysis/bars.js';
import { COINS, MARKET_STATUSES, MARKET_TYPES } from '../../domain/market.js';

/** Values only known at completion time. */
export interface CompletionValues {
  /** Names of the stored API keys (for `keys use|remove NAME`). */
  keyNames: string[];
}

/** The shells a completion script can be generated for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;

const list = (values: readonly string[], description = '') => (complete: (value: string, description: string) => void): void => {
  for (const v of values) complete(v, description);
};

// Values of options that commander does not know as choices.
const OPTION_VALUES: Record<string, readonly string[]> = {
  coin: COINS,
  type: MARKET_TYPES,
  status: MARKET_STATUSES,
  resample: Object.keys(RESAMPLE_INTERVALS),
};

function addOption(target: TabCommand, opt: CommanderOption): void {
  const long = opt.long?.replace(/^--/, '');
  if (!long) return;
  const short = opt.short?.replace(/^-/, '');
  const takesValue = opt.required || opt.optional;
  const values = opt.argChoices ?? OPTION_VALUES[long];
  if (takesValue) target.option(long, opt.description, values ? list(values) : () => {}, short);
  else if (short) target.option(long, opt.description, short);
  else target.option(long, opt.description);
}

function argumentValues(path: string, name: string, values: CompletionValues): readonly string[] | undefined {
  if (name === 'name' && path.startsWith('keys ')) return values.keyNames;
  if (name.endsWith('coin')) return COINS;
  if (name === 'type' || name === 'time|type') return MARKET_TYPES;
  if (name === 'shell') return COMPLETION_SHELLS;
  return undefined;
}

/** Use to build the tree for one completion request or script. */
export function completionTree(program: CommanderCommand, values: CompletionValues): RootCommand {
  const root = new RootCommand();
  const globals = program.options.filter((o) => !o.hidden);
  for (const o of globals) addOption(root, o);
  const walk = (cmd: CommanderCommand, prefix: string, clientSide: boolean): void => {
    for (const sub of cmd.commands) {
      if ((sub as unknown as { _hidden?: boolean })._hidden) continue;
      const path = prefix ? `${prefix} ${sub.name()}` : sub.name();
      const client = clientSide && sub.name() !== 'serve';
      const node = root.command(path, sub.description());
      for (const o of sub.options) if (!o.hidden) addOption(node, o);
      // The global flags work on every client command (`msnap snapshots BTC 5m --csv`).
      if (client) for (const o of globals) if (!node.options.has(o.long?.replace(/^--/, '') ?? '')) addOption(node, o);
      for (const arg of sub.registeredArguments) {
        const known = arg.argChoices ?? argumentValues(path, arg.name(), values);
        node.argument(arg.name(), known ? list(known) : undefined, arg.variadic);
      }
      walk(sub, path, client);
    }
  };
  walk(program, '', true);
  return root;
}
