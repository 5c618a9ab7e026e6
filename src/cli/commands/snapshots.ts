// `msnap snapshots`: stream the snapshots of one market, of the latest N markets of a coin and
// type, or of those overlapping a time range, oldest first, in constant memory.
import { addLocalDbOption } from '../global-options.js';
import { Command } from 'commander';
import { MARKET_DURATION_MS, type Coin, type Market, type MarketType, type Snapshot } from '../../domain/market.js';
import { NotFoundError, UsageError } from '../../errors.js';
import { coinArg, countArg, marketIdArg, checkMarketOrCoinType, marketTypeArg, timeRangeFlags } from '../arguments.js';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import type { Progress } from '../output/progress.js';
import type { MsnapApi, WindowEnd } from '../../client/types.js';
import { snapshotSchema } from '../output/record-schemas.js';
import { windowEndNote } from '../output/window-note.js';
import { TIME_HELP } from '../time.js';

/** Which markets to read: one by id, or a coin and type (latest N and/or a range). */
export type SnapshotsTarget = { marketId: string } | { coin: Coin; marketType: MarketType };

/** The checked arguments and flags of `msnap snapshots`. */
export interface SnapshotsOptions {
  target: SnapshotsTarget;
  /** With COIN TYPE: the latest N markets that have snapshots (default 1 without a range, all in a range). */
  last?: number;
  from?: number;
  to?: number;
  orderbook: boolean;
}

interface RawFlags {
  last?: string;
  from?: string;
  to?: string;
  orderbook?: boolean;
}

/** Check arguments and flags; every problem is a UsageError. */
export function parseSnapshotsArgs(first: string, second: string | undefined, flags: RawFlags, now: number): SnapshotsOptions {
  const range = timeRangeFlags(flags, now);
  let target: SnapshotsTarget;
  checkMarketOrCoinType(first, second, 'msnap snapshots <market-id> | <coin> <type>');
  if (second === undefined) {
    target = { marketId: marketIdArg(first) };
    if (flags.last !== undefined) throw new UsageError('--last needs COIN TYPE (e.g. msnap snapshots BTC 5m --last 3), not a market id');
  } else {
    target = { coin: coinArg(first), marketType: marketTypeArg(second) };
  }
  return {
    target,
    ...(flags.last !== undefined ? { last: countArg(flags.last, '--last', 1) } : {}),
    ...range,
    orderbook: flags.orderbook === true,
  };
}

/**
 * The markets to export, oldest first. Listing is newest first, so the latest N are the first N
 * that have snapshots; markets with none (just opened, or never captured) are skipped.
 */
export async function selectMarkets(
  client: MsnapApi,
  coin: Coin,
  marketType: MarketType,
  opts: Pick<SnapshotsOptions, 'last' | 'from' | 'to'>,
  onWindowEnd?: (end: WindowEnd) => void,
): Promise<Market[]> {
  const ranged = opts.from !== undefined || opts.to !== undefined;
  const want = opts.last ?? (ranged ? Infinity : 1);
  const duration = MARKET_DURATION_MS[marketType];
  // A market overlaps [from, to) when it starts before `to` and ends after `from`.
  const startMin = opts.from === undefined ? undefined : opts.from - duration + 1;
  const picked: Market[] = [];
  for await (const m of client.markets({
    coin,
    marketType,
    all: true,
    ...(onWindowEnd ? { onWindowEnd } : {}),
    ...(startMin !== undefined ? { startTime: startMin } : {}),
    ...(opts.to !== undefined ? { endTime: opts.to } : {}),
  })) {
    if (m.snapshot_count <= 0) continue;
    if (startMin !== undefined && m.start_time < startMin) continue;
    if (opts.to !== undefined && m.start_time >= opts.to) continue;
    picked.push(m);
    if (picked.length >= want) break;
  }
  return picked.reverse();
}

function rangeText(opts: Pick<SnapshotsOptions, 'from' | 'to'>): string {
  if (opts.from === undefined && opts.to === undefined) return '';
  const from = opts.from === undefined ? 'the start' : new Date(opts.from).toISOString();
  const to = opts.to === undefined ? 'now' : new Date(opts.to).toISOString();
  return ` between ${from} and ${to}`;
}

/** Export the chosen snapshots to the exporter. */
export async function runSnapshots(opts: SnapshotsOptions, deps: CliDeps): Promise<void> {
  const client = await deps.client();
  let ids: string[];
  let knownTotal: number | undefined;
  if ('marketId' in opts.target) {
    ids = [opts.target.marketId];
  } else {
    const markets = await selectMarkets(client, opts.target.coin, opts.target.marketType, opts, (end) =>
      deps.note(windowEndNote(end)),
    );
    if (markets.length === 0) {
      throw new NotFoundError(`no ${opts.target.coin} ${opts.target.marketType} market with snapshots${rangeText(opts)}`);
    }
    ids = markets.map((m) => m.market_id);
    knownTotal = opts.from === undefined && opts.to === undefined
      ? markets.reduce((sum, m) => sum + m.snapshot_count, 0)
      : undefined;
  }
  const exporter = await deps.exporter();
  const progress = await deps.progress('snapshots');
  try {
    await exporter.listPages(snapshotSchema(opts.orderbook), streamAll(client, ids, opts, progress, knownTotal));
  } finally {
    progress.stop();
  }
}

async function* streamAll(
  client: MsnapApi,
  ids: string[],
  opts: SnapshotsOptions,
  progress: Progress,
  knownTotal: number | undefined,
): AsyncGenerator<readonly Snapshot[]> {
  let pages = 0;
  let rows = 0;
  for (const id of ids) {
    const onPage = (info: { total: number }): void => {
      pages += 1;
      const total = knownTotal ?? (ids.length === 1 ? info.total : undefined);
      progress.update({ pages, rows, ...(total !== undefined ? { total } : {}) });
    };
    for await (const page of client.snapshotPages(id, {
      ...(opts.from !== undefined ? { from: opts.from } : {}),
      ...(opts.to !== undefined ? { to: opts.to } : {}),
      includeOrderbook: opts.orderbook,
      onPage,
    })) {
      rows += page.length;
      yield page;
    }
  }
}

/** The `snapshots` command. */
export function snapshotsCommand(ctx: CliContext): Command {
  return addLocalDbOption(new Command('snapshots'))
    .description('Export snapshots (oldest first) of a market, or of the latest markets of a coin and type')
    .argument('<market-id|coin>', 'a market id (btc-updown-5m-1763769600), or a coin (BTC, ETH, SOL)')
    .argument('[type]', 'with a coin: the market type (5m, 15m, 1hr, 4hr, 24hr)')
    .option('--last <n>', 'with COIN TYPE: the latest N markets that have snapshots (default 1; all in a --from/--to range)')
    .option('--from <time>', 'snapshots at or after TIME (with COIN TYPE: markets overlapping the range)')
    .option('--to <time>', 'snapshots before TIME')
    .option('--orderbook', 'include orderbook depth (orderbook_up, orderbook_down; JSON text in CSV)')
    .addHelpText(
      'after',
      `
${TIME_HELP}
On a terminal the table shows at most 500 rows; use --csv, --ndjson, --json or -o FILE for everything.

Examples:
  $ msnap snapshots BTC 5m --csv > btc.csv
  $ msnap snapshots BTC 5m --last 12 -o btc-last-hour.csv
  $ msnap snapshots ETH 15m --from 2025-11-22T00:00:00Z --to 2025-11-22T06:00:00Z --ndjson
  $ msnap snapshots btc-updown-5m-1763769600 --orderbook --json > market.json
  $ msnap snapshots SOL 1hr --ndjson | head -1
  $ msnap snapshots BTC 5m --last 12 --csv --db msnap.db    # a pulled store, offline`,
    )
    .action(async (first: string, second: string | undefined, flags: RawFlags, cmd: Command) => {
      const opts = parseSnapshotsArgs(first, second, flags, ctx.now());
      await runWithDeps(ctx, cmd, (deps) => runSnapshots(opts, deps));
    });
}
