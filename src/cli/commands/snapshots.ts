// `msnap snapshots`: stream the snapshots of one market, of the latest N markets of a coin and
// type, or of those overlapping a time range, oldest first, in constant memory.
import { Command } from 'commander';
import { addLocalDbOption } from '../global-options.js';
import type { Coin, MarketType } from '../../domain/market.js';
import { UsageError } from '../../errors.js';
import { chooseMarkets } from '../../client/markets/market-selection.js';
import { coinArg, countArg, marketIdArg, checkMarketOrCoinType, marketTypeArg, timeRangeFlags } from '../../domain/arguments.js';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import type { Progress } from '../output/terminal/progress.js';
import { pagesOf, rowsOfPages, type RowsForm, type SnapshotPage } from '../../client/pages/row-page.js';
import type { ApiCapabilities, MsnapApi, SnapshotsStreamQuery, TextPage } from '../../client/types.js';
import type { RowLayout } from '../../domain/row-layout.js';
import { BAR_SCHEMA, snapshotSchema } from '../output/schemas/record-schemas.js';
import { RESAMPLE_INTERVALS, resampleInterval, resamplePages } from '../../analysis/bars.js';
import { TIME_HELP } from '../../domain/time.js';
import { dryRunText, planPull, snapshotPageSize } from './pull-plan.js';

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
  /** Say what the export would fetch (markets, rows, requests, time at the key's limits) and fetch no snapshot. */
  dryRun?: boolean;
  /** Orderbook levels as flat columns (up_bid_px_0 …) in every format. */
  orderbookColumns?: boolean;
  /** Bars of this many ms instead of snapshots. */
  resample?: number;
  /** With resample: carry empty buckets forward (count 0). */
  fill?: boolean;
}

interface RawFlags {
  last?: string;
  from?: string;
  to?: string;
  orderbook?: boolean;
  dryRun?: boolean;
  orderbookColumns?: boolean;
  resample?: string;
  fill?: boolean;
}

function barFlags(flags: RawFlags): Pick<SnapshotsOptions, 'resample' | 'fill'> {
  if (flags.resample === undefined) {
    if (flags.fill) throw new UsageError('--fill needs --resample (e.g. --resample 1m --fill)');
    return {};
  }
  const ms = resampleInterval(flags.resample);
  if (ms === undefined) {
    throw new UsageError(`unknown --resample '${flags.resample}'; use one of: ${Object.keys(RESAMPLE_INTERVALS).join(', ')}`);
  }
  if (flags.orderbook || flags.orderbookColumns) throw new UsageError('bars carry no orderbook: drop --orderbook/--orderbook-columns or --resample');
  return { resample: ms, ...(flags.fill ? { fill: true } : {}) };
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
    orderbook: flags.orderbook === true || flags.orderbookColumns === true,
    ...(flags.orderbookColumns ? { orderbookColumns: true } : {}),
    ...barFlags(flags),
    ...(flags.dryRun === true ? { dryRun: true } : {}),
  };
}

/** Export the chosen snapshots to the exporter. */
export async function runSnapshots(opts: SnapshotsOptions, deps: CliDeps): Promise<void> {
  const client = await deps.client();
  if (opts.dryRun) {
    const markets = 'marketId' in opts.target ? [await client.market(opts.target.marketId)] : await chooseMarkets(client, opts.target, opts, deps.note);
    deps.info(dryRunText(planPull(markets, () => 0, await snapshotPageSize(client)), await client.limits().catch(() => undefined), undefined));
    return;
  }
  let ids: string[];
  let knownTotal: number | undefined;
  let pace: Parameters<typeof pageCounter>[3];
  if ('marketId' in opts.target) {
    ids = [opts.target.marketId];
  } else {
    const markets = await chooseMarkets(client, opts.target, opts, deps.note);
    ids = markets.map((m) => m.market_id);
    knownTotal = opts.from === undefined && opts.to === undefined
      ? markets.reduce((sum, m) => sum + m.snapshot_count, 0)
      : undefined;
    const estimate = client.capabilities().service?.paceEstimateMs;
    if (knownTotal !== undefined && estimate) pace = { requests: planPull(markets, () => 0, await snapshotPageSize(client)).requests, estimate };
  }
  const exporter = await deps.exporter();
  const progress = await deps.progress('snapshots');
  let result;
  try {
    const onPage = pageCounter(ids.length, progress, knownTotal, pace);
    const pages = streamAll(client, ids, opts, onPage);
    // A local store writes machine text itself, straight from its stored values.
    const textOf = client.capabilities().snapshotText;
    const text = textOf ? (layout: RowLayout) => streamText(textOf, ids, opts, onPage, layout) : undefined;
    result = opts.resample !== undefined
      ? await exporter.listPages(BAR_SCHEMA, pagesOf(resamplePages(rowsOfPages(pages), opts.resample, opts.fill)))
      : await exporter.listPages(snapshotSchema(opts.orderbookColumns ? 'flat' : opts.orderbook), pages, { text, columns: () => streamAll(client, ids, opts, onPage, 'columns') });
  } finally {
    progress.stop();
  }
  if (!result.readerGone) {
    const what = opts.resample !== undefined ? 'bars' : 'snapshots';
    deps.finished(`${result.rows.toLocaleString('en-US')} ${what} of ${ids.length} market${ids.length === 1 ? '' : 's'}`);
  }
}

/** Counts pages and rows across markets for the progress line; told each page's rows and total. */
type PageCounter = (info: { rows: number; total: number }) => void;

/** Requests an ETA simulates at most (a few ms); beyond them the rate-based estimate is as good. */
const PACE_ESTIMATE_MAX = 5000;

// `pace`: with the requests the export needs known, the least time the rest takes at the key's
// limits, so the ETA does not promise seconds while the minute cap holds the run.
function pageCounter(
  markets: number,
  progress: Progress,
  knownTotal: number | undefined,
  pace?: { requests: number; estimate: (requests: number) => number | undefined },
): PageCounter {
  let pages = 0;
  let rows = 0;
  let paceMs: number | undefined;
  let pacedAt = -Infinity;
  return (info) => {
    pages += 1;
    const total = knownTotal ?? (markets === 1 ? info.total : undefined);
    // The estimate simulates every remaining send: once a second is enough for a progress line.
    if (pace && performance.now() - pacedAt >= 1000) {
      pacedAt = performance.now();
      paceMs = pace.estimate(Math.min(PACE_ESTIMATE_MAX, Math.max(0, pace.requests - pages)));
    }
    progress.update({ pages, rows, ...(total !== undefined ? { total } : {}), ...(paceMs !== undefined ? { paceMs } : {}) });
    rows += info.rows;
  };
}

function streamQuery(opts: SnapshotsOptions, onPage: PageCounter, rowsAs?: RowsForm): SnapshotsStreamQuery {
  return {
    ...(rowsAs !== undefined ? { rowsAs } : {}),
    ...(opts.from !== undefined ? { from: opts.from } : {}),
    ...(opts.to !== undefined ? { to: opts.to } : {}),
    includeOrderbook: opts.orderbook,
    onPage,
  };
}

async function* streamAll(client: MsnapApi, ids: string[], opts: SnapshotsOptions, onPage: PageCounter, rowsAs?: RowsForm): AsyncGenerator<SnapshotPage> {
  for (const id of ids) yield* client.snapshotPages(id, streamQuery(opts, onPage, rowsAs));
}

async function* streamText(textOf: NonNullable<ApiCapabilities['snapshotText']>, ids: string[], opts: SnapshotsOptions, onPage: PageCounter, layout: RowLayout): AsyncGenerator<TextPage> {
  for (const id of ids) yield* textOf(id, streamQuery(opts, onPage), layout);
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
    .option('--orderbook', 'include orderbook depth (orderbook_up, orderbook_down; JSON text in CSV, flat columns in Parquet)')
    .option('--orderbook-columns', 'orderbook levels as flat columns up_bid_px_0 … down_ask_sz_7 (any format)')
    .option('--resample <interval>', `bars per market instead of snapshots: ${Object.keys(RESAMPLE_INTERVALS).join(', ')}`)
    .option('--fill', 'with --resample: carry empty buckets forward (count 0) instead of leaving them out')
    .option('--dry-run', 'say which markets, rows and requests the export takes and how long at the key\'s limits; fetch no snapshot')
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
  $ msnap snapshots BTC 5m --last 12 -o btc.parquet               # typed columns, Snappy
  $ msnap snapshots BTC 5m --orderbook -o book.parquet --compression gzip
  $ msnap snapshots BTC 5m --orderbook-columns --csv > book.csv
  $ msnap snapshots BTC 5m --last 12 --resample 1m --csv        # 1-minute bars
  $ msnap snapshots ETH 1hr --resample 5s --fill -o eth-5s.parquet
  $ msnap snapshots BTC 5m --last 12 --csv --db msnap.db    # a pulled store, offline`,
    )
    .action(async (first: string, second: string | undefined, flags: RawFlags, cmd: Command) => {
      const opts = parseSnapshotsArgs(first, second, flags, ctx.now());
      await runWithDeps(ctx, cmd, (deps) => runSnapshots(opts, deps));
    });
}
