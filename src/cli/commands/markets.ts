// `msnap markets`: list markets (newest first), one page or --all, filtered by coin, type,
// status and start-time range.
import { addLocalDbOption } from '../global-options.js';
import { Command } from 'commander';
import type { Coin, MarketStatus, MarketType } from '../../domain/market.js';
import { UsageError } from '../../errors.js';
import { coinArg, countArg, marketTypeArg, statusArg, timeRangeFlags } from '../../domain/arguments.js';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import type { WindowEnd } from '../../client/types.js';
import { MARKET_SCHEMA } from '../output/schemas/record-schemas.js';
import { windowEndNote } from '../output/terminal/window-note.js';
import { TIME_HELP } from '../../domain/time.js';

/** The checked flags of `msnap markets`. */
export interface MarketsOptions {
  coin?: Coin;
  marketType?: MarketType;
  status?: MarketStatus;
  /** Rows to return (ignored with `all`). */
  limit: number;
  offset: number;
  all: boolean;
  from?: number;
  to?: number;
}

interface RawFlags {
  coin?: string;
  type?: string;
  status?: string;
  limit?: string;
  offset?: string;
  all?: boolean;
  from?: string;
  to?: string;
}

/** Default page of `msnap markets`, the contract's default `limit`. */
const DEFAULT_MARKETS_LIMIT = 100;

/** Check the raw flags; every problem is a UsageError. */
export function parseMarketsFlags(flags: RawFlags, now: number): MarketsOptions {
  if (flags.all && (flags.limit !== undefined || flags.offset !== undefined)) {
    throw new UsageError('--all reads every market: drop --limit/--offset, or drop --all');
  }
  const range = timeRangeFlags(flags, now);
  return {
    ...(flags.coin !== undefined ? { coin: coinArg(flags.coin) } : {}),
    ...(flags.type !== undefined ? { marketType: marketTypeArg(flags.type) } : {}),
    ...(flags.status !== undefined ? { status: statusArg(flags.status) } : {}),
    limit: flags.limit === undefined ? DEFAULT_MARKETS_LIMIT : countArg(flags.limit, '--limit', 1),
    offset: flags.offset === undefined ? 0 : countArg(flags.offset, '--offset', 0),
    all: flags.all === true,
    ...range,
  };
}

/** List markets to the exporter. */
export async function runMarkets(opts: MarketsOptions, deps: CliDeps): Promise<void> {
  const client = await deps.client();
  const exporter = await deps.exporter();
  const progress = await deps.progress('markets');
  const rows = client.markets({
    ...(opts.coin ? { coin: opts.coin } : {}),
    ...(opts.marketType ? { marketType: opts.marketType } : {}),
    ...(opts.status ? { status: opts.status } : {}),
    ...(opts.from !== undefined ? { startTime: opts.from } : {}),
    ...(opts.to !== undefined ? { endTime: opts.to } : {}),
    ...(opts.all
      ? { all: true, onWindowEnd: (end: WindowEnd) => deps.note(windowEndNote(end)) }
      : { offset: opts.offset, max: opts.limit }),
  });
  try {
    await exporter.list(MARKET_SCHEMA, counting(rows, (n) => progress.update({ pages: 0, rows: n })));
  } finally {
    progress.stop();
  }
}

async function* counting<T>(rows: AsyncIterable<T>, onCount: (n: number) => void): AsyncGenerator<T> {
  let n = 0;
  for await (const row of rows) {
    n += 1;
    if (n % 100 === 0) onCount(n);
    yield row;
  }
}

/** The `markets` command. */
export function marketsCommand(ctx: CliContext): Command {
  return addLocalDbOption(new Command('markets'))
    .description('List markets, newest first')
    .option('--coin <coin>', 'BTC, ETH or SOL')
    .option('--type <type>', 'market type: 5m, 15m, 1hr, 4hr, 24hr')
    .option('--status <status>', 'active or resolved')
    .option('--limit <n>', `how many markets (default ${DEFAULT_MARKETS_LIMIT})`)
    .option('--offset <n>', 'skip this many of the newest first (default 0)')
    .option('--all', 'every market the key may read (pages through all of them)')
    .option('--from <time>', 'markets starting at or after TIME')
    .option('--to <time>', 'markets starting before TIME')
    .addHelpText(
      'after',
      `
${TIME_HELP}

Examples:
  $ msnap markets --coin BTC --type 5m --limit 5
  $ msnap markets --coin ETH --status active --json
  $ msnap markets --coin SOL --type 1hr --from 2d --csv > sol-1hr.csv
  $ msnap markets --all --ndjson | wc -l
  $ msnap markets --coin BTC --type 5m --db msnap.db     # a pulled store, offline`,
    )
    .action(async (flags: RawFlags, cmd: Command) => {
      const opts = parseMarketsFlags(flags, ctx.now());
      await runWithDeps(ctx, cmd, (deps) => runMarkets(opts, deps));
    });
}
