// What `msnap mcp`'s tools answer, over the library's reader (the service or a local store): each
// a function of its checked arguments, its result bounded in size whatever the market holds.
import { contractMarket, type Snapshot } from '../domain/market.js';
import { coinArg, marketTypeArg, statusArg } from '../domain/arguments.js';
import { scanMarket } from '../client/markets/market-quality.js';
import type { QualityReport } from '../analysis/quality.js';
import type { AtResult } from '../client/types.js';
import { MsnapError, UsageError } from '../errors.js';
import type { MsnapReader, Time } from '../lib/reader.js';
import type { RuleStrategy } from '../backtest/strategy/strategy.js';
import type { OpenedSource } from '../backtest/series/local-source.js';
import type { MarketSource } from '../domain/market-series.js';

/** The most any one answer holds: markets listed, snapshots sampled. */
export const TOOL_LIMITS = { markets: 100, sample: 200 } as const;

/** Snapshots arrive every 125 ms (8 a second) over a market's life. */
const SNAPSHOT_EVERY_MS = 125;

/** list_markets: the newest markets, filtered as `msnap markets`. */
export async function listMarkets(
  reader: MsnapReader,
  args: { coin?: string; type?: string; status?: string; limit?: number; offset?: number },
): Promise<{ markets: unknown[] }> {
  const limit = args.limit ?? 20;
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= TOOL_LIMITS.markets)) throw new UsageError(`limit must be 1 to ${TOOL_LIMITS.markets}, got ${limit}`);
  const markets: unknown[] = [];
  for await (const m of reader.markets({
    ...(args.coin !== undefined ? { coin: coinArg(args.coin) } : {}),
    ...(args.type !== undefined ? { marketType: marketTypeArg(args.type) } : {}),
    ...(args.status !== undefined ? { status: statusArg(args.status) } : {}),
    ...(args.offset !== undefined ? { offset: args.offset } : {}),
    limit,
  })) {
    markets.push(contractMarket(m));
  }
  return { markets };
}

/** describe_market: the market record with its span and how much of its 8/s grid it holds. */
export async function describeMarket(reader: MsnapReader, args: { market_id: string }) {
  const market = await reader.market(args.market_id);
  const durationMs = market.end_time - market.start_time;
  const expected = Math.floor(durationMs / SNAPSHOT_EVERY_MS);
  return {
    market: contractMarket(market),
    start: new Date(market.start_time).toISOString(),
    end: new Date(market.end_time).toISOString(),
    duration_ms: durationMs,
    expected_snapshots: expected,
    coverage: expected > 0 ? Math.round((market.snapshot_count / expected) * 10_000) / 10_000 : 0,
  };
}

/** First, last, lowest and highest of one field over the rows read. */
interface Span {
  first: number;
  last: number;
  min: number;
  max: number;
}

/** snapshots_summary: one pass over the range (constant memory) and an evenly spaced sample. */
export async function snapshotsSummary(
  reader: MsnapReader,
  args: { market_id: string; from?: Time; to?: Time; sample?: number },
): Promise<{ market_id: string; rows: number; first_time: number | null; last_time: number | null; price: Span | null; price_up: Span | null; price_down: Span | null; sample_every: number; sample: Snapshot[] }> {
  const wanted = args.sample ?? 20;
  if (!(Number.isInteger(wanted) && wanted >= 0 && wanted <= TOOL_LIMITS.sample)) throw new UsageError(`sample must be 0 to ${TOOL_LIMITS.sample}, got ${wanted}`);
  const market = await reader.market(args.market_id);
  // The market's count bounds the rows of any range, so the sample never exceeds `wanted`.
  const every = wanted === 0 ? Infinity : Math.max(1, Math.ceil(market.snapshot_count / wanted));
  const spans = { price: newSpan(), price_up: newSpan(), price_down: newSpan() };
  const sample: Snapshot[] = [];
  let rows = 0;
  let first: number | null = null;
  let last: number | null = null;
  for await (const page of reader.snapshotPages(market.market_id, { ...(args.from !== undefined ? { from: args.from } : {}), ...(args.to !== undefined ? { to: args.to } : {}) })) {
    for (const s of page) {
      if (rows % every === 0 && sample.length < wanted) sample.push(s);
      first ??= s.time;
      last = s.time;
      for (const key of ['price', 'price_up', 'price_down'] as const) add(spans[key], s[key], rows === 0);
      rows++;
    }
  }
  const done = (span: Span) => (rows === 0 ? null : span);
  return {
    market_id: market.market_id,
    rows,
    first_time: first,
    last_time: last,
    price: done(spans.price),
    price_up: done(spans.price_up),
    price_down: done(spans.price_down),
    sample_every: rows === 0 || every === Infinity ? 0 : every,
    sample,
  };
}

function newSpan(): Span {
  return { first: NaN, last: NaN, min: Infinity, max: -Infinity };
}

function add(span: Span, value: number, isFirst: boolean): void {
  if (isFirst) span.first = value;
  span.last = value;
  if (value < span.min) span.min = value;
  if (value > span.max) span.max = value;
}

/** at: the snapshot nearest a time (within 2 s), as `msnap at`. */
export function at(reader: MsnapReader, args: { market_id: string; time: Time }): Promise<AtResult> {
  return reader.at(args.market_id, args.time);
}

/** quality: `msnap quality MARKET_ID`'s report (its gap and jump lists are capped by the scan). */
export async function quality(
  reader: MsnapReader,
  args: { market_id: string; sum_tolerance?: number },
  now: number,
): Promise<QualityReport> {
  const tolerance = args.sum_tolerance ?? 0.05;
  if (!(tolerance >= 0 && tolerance < 1)) throw new UsageError(`sum_tolerance must be in [0, 1), got ${tolerance}`);
  const market = await reader.market(args.market_id);
  return scanMarket(reader.core, market, { sumTolerance: tolerance }, now);
}

/** The most markets one backtest call reads (each is read whole, with its orderbooks). */
export const BACKTEST_MAX_MARKETS = 50;
/** The most snapshots one backtest call reads: a 24hr market's grid with room to spare, so an assistant's call stays bounded in time and memory. */
export const BACKTEST_MAX_SNAPSHOTS = 1_000_000;
/** Trades and market lines an answer lists; the summary counts them all. */
const BACKTEST_LISTED = 50;

/** Where a backtest reads its markets: a local SQLite file straight from its blocks (as the CLI's --db), else through the reader. */
export interface BacktestData {
  /** The SQLite file `msnap mcp --db` was given (a PostgreSQL store is read through the reader). */
  storeFile?: string;
  now: () => number;
  /** The call's cancellation (the client's notifications/cancelled): the run stops at the next market. */
  signal?: AbortSignal;
  /** The snapshot cap (default BACKTEST_MAX_SNAPSHOTS; tests lower it). */
  maxSnapshots?: number;
}

const tooMany = (n: string, cap: number) =>
  new UsageError(`the call reads ${n} snapshots; at most ${cap.toLocaleString('en-US')} per call (narrow from/to, or fewer markets)`);

/** The source counted against the cap, and stopped when the call is cancelled (a turn of the event loop between markets lets the cancel arrive). */
async function* bounded(source: MarketSource, cap: number, signal: AbortSignal | undefined): MarketSource {
  let rows = 0;
  for await (const s of source) {
    rows += s.length;
    if (rows > cap) throw tooMany(`over ${cap.toLocaleString('en-US')}`, cap);
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted === true) throw new MsnapError('backtest cancelled by the client');
    yield s;
  }
}

/** backtest: a rule strategy (JSON, never code) on a market or a COIN TYPE selection, as `msnap backtest`. */
export async function backtest(
  reader: MsnapReader,
  args: {
    rule: Record<string, unknown>;
    market_id?: string;
    coin?: string;
    type?: string;
    last?: number;
    from?: Time;
    to?: Time;
    cash?: number;
    latency_ms?: number;
    fee_rate?: number;
  },
  data: BacktestData,
) {
  const [{ runBacktest }, { loadStrategy }, { apiMarketSource }, { resolveParams }] = await Promise.all([
    import('../backtest/engine/engine.js'),
    import('../backtest/strategy/load-strategy.js'),
    import('../backtest/series/snapshot-series.js'),
    import('../backtest/engine/params.js'),
  ]);
  // Checked before any data is read, as the command does.
  // JSON holds no functions, so this is always a rule (a module strategy is code: the CLI's alone).
  const strategy = await loadStrategy(args.rule as unknown as RuleStrategy);
  const params = resolveParams({
    ...(args.cash !== undefined ? { cash: args.cash } : {}),
    ...(args.latency_ms !== undefined ? { latency_ms: args.latency_ms } : {}),
    ...(args.fee_rate !== undefined ? { fee_rate: args.fee_rate } : {}),
  });
  if (args.last !== undefined && args.last > BACKTEST_MAX_MARKETS) throw new UsageError(`last must be at most ${BACKTEST_MAX_MARKETS}, got ${args.last}`);
  const range = { ...(args.from !== undefined ? { from: args.from } : {}), ...(args.to !== undefined ? { to: args.to } : {}) };
  let markets;
  if (args.market_id !== undefined) {
    if (args.coin !== undefined || args.type !== undefined) throw new UsageError('give market_id, or coin and type, not both');
    markets = [await reader.market(args.market_id)];
  } else {
    if (args.coin === undefined || args.type === undefined) throw new UsageError('give market_id, or coin and type (with last, from, to)');
    markets = await reader.select({ coin: coinArg(args.coin), type: marketTypeArg(args.type), ...(args.last !== undefined ? { last: args.last } : {}), ...range });
    if (markets.length > BACKTEST_MAX_MARKETS) {
      throw new UsageError(`the range holds ${markets.length} markets; at most ${BACKTEST_MAX_MARKETS} per call (narrow from/to or give last)`);
    }
  }
  // Whole markets are counted before any is read; a range is counted as it is read.
  const cap = data.maxSnapshots ?? BACKTEST_MAX_SNAPSHOTS;
  const held = markets.reduce((n, m) => n + m.snapshot_count, 0);
  if (args.from === undefined && args.to === undefined && held > cap) throw tooMany(held.toLocaleString('en-US'), cap);
  const epochs = reader.epochRange(range);
  let opened: OpenedSource;
  if (data.storeFile !== undefined) {
    const { openLocalSource } = await import('../backtest/series/local-source.js');
    opened = await openLocalSource(data.storeFile, markets, epochs, data.now);
  } else {
    opened = { source: apiMarketSource(reader.core, markets, epochs), close: async () => {} };
  }
  let result;
  try {
    result = await runBacktest(strategy, bounded(opened.source, cap, data.signal), params);
  } finally {
    await opened.close();
  }
  return {
    strategy: result.strategy,
    params: result.params,
    data: result.data,
    summary: result.summary,
    markets_listed: Math.min(result.markets.length, BACKTEST_LISTED),
    markets: result.markets.slice(0, BACKTEST_LISTED),
    trades_listed: Math.min(result.trades.length, BACKTEST_LISTED),
    trades: result.trades.slice(0, BACKTEST_LISTED),
  };
}
