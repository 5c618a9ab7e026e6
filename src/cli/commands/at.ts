// `msnap at`: the snapshot nearest a time, in a market given by id or found from coin and type.
import { addLocalDbOption } from '../global-options.js';
import { Command } from 'commander';
import { isComingSoonCoin, marketId, marketStartCovering, parseCoin } from '../../domain/market.js';
import { UsageError } from '../../errors.js';
import { coinArg, marketIdArg, marketTypeArg } from '../arguments.js';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import { AT_SCHEMA } from '../output/record-schemas.js';
import { parseTime, TIME_HELP } from '../time.js';

/** The checked arguments of `msnap at`. */
export interface AtOptions {
  marketId: string;
  ts: number;
}

/** `at <market-id> <time>` or `at <coin> <type> <time>`; the market covering the time is derived. */
export function parseAtArgs(first: string, second: string, third: string | undefined, now: number): AtOptions {
  if (third === undefined) {
    // `at BTC 5m`: a coin and a type with the time left out, not a bad market id.
    if (parseCoin(first) || isComingSoonCoin(first)) throw new UsageError(`missing TIME: msnap at ${first} ${second} TIME`, 'TIME is like 2025-11-22T00:02:30Z, 1763769600000, 10m or now');
    return { marketId: marketIdArg(first), ts: parseTime(second, now, 'TIME') };
  }
  const coin = coinArg(first);
  const type = marketTypeArg(second);
  const ts = parseTime(third, now, 'TIME');
  return { marketId: marketId(coin, type, marketStartCovering(type, ts)), ts };
}

/** Look the snapshot up and write it. */
export async function runAt(opts: AtOptions, deps: CliDeps): Promise<void> {
  const result = await (await deps.client()).at(opts.marketId, opts.ts);
  await (await deps.exporter()).record(AT_SCHEMA, result);
}

/** The `at` command. */
export function atCommand(ctx: CliContext): Command {
  return addLocalDbOption(new Command('at'))
    .description('The snapshot nearest a time (within 2 s), in a market or in the COIN TYPE market covering it')
    .usage('<market-id> <time> | <coin> <type> <time>')
    .argument('<market-id|coin>', 'a market id, or a coin (BTC, ETH, SOL)')
    .argument('<time|type>', 'the TIME, or with a coin the market type')
    .argument('[time]', 'with a coin and type: the TIME')
    .addHelpText(
      'after',
      `
${TIME_HELP}
delta_ms is the snapshot's time minus the asked time (the earlier snapshot wins a tie).

Examples:
  $ msnap at BTC 5m 2025-11-22T00:02:30Z
  $ msnap at BTC 15m 10m --json
  $ msnap at btc-updown-5m-1763769600 1763769612345
  $ msnap at BTC 5m 1763769612345 --db msnap.db          # a pulled store, offline`,
    )
    .action(async (first: string, second: string, third: string | undefined, _flags: unknown, cmd: Command) => {
      const opts = parseAtArgs(first, second, third, ctx.now());
      await runWithDeps(ctx, cmd, (deps) => runAt(opts, deps));
    });
}
