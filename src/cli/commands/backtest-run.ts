// The body of `msnap backtest`: load and check the strategy (and every sweep combination) before
// any data, choose the markets as `msnap snapshots` does, run, and write the result.
import type { Coin, Market, MarketType } from '../../domain/market.js';
import type { MarketSource } from '../../domain/market-series.js';
import type { MsnapApi } from '../../client/types.js';
import { runBacktest } from '../../backtest/engine.js';
import { loadStrategy } from '../../backtest/load-strategy.js';
import { resolveParams, type BacktestParams } from '../../backtest/params.js';
import type { BacktestSummary } from '../../backtest/result.js';
import { apiMarketSource, readPackedMarkets, type SnapshotRange } from '../../backtest/snapshot-series.js';
import type { OpenedSource } from '../../backtest/local-source.js';
import { combinations, type SweepAxis } from '../../backtest/sweep-plan.js';
import type { CliDeps } from '../deps.js';
import { isMakerResult, MAKER_RESULT_SCHEMA, MAKER_TRADE_SCHEMA, RESULT_SCHEMA, sweepSchema, TRADE_SCHEMA, type SweepRow } from '../output/backtest-schemas.js';
import { renderBacktestText } from '../output/backtest-text.js';
import type { Progress } from '../output/progress.js';
import { writeListFile, writeTextFile } from '../output/file-output.js';
import { chooseMarkets } from '../../client/market-selection.js';
import { isPostgresUrl } from '../../store/db-path.js';
import type { SnapshotsOptions } from './snapshots.js';
import type { QueueFlags } from './backtest-queued.js';

/** The checked arguments and flags of `msnap backtest`. */
export interface BacktestOptions extends Pick<SnapshotsOptions, 'target' | 'last' | 'from' | 'to'> {
  /** Several coins and types (BTC,ETH 5m,15m): each pair selected as `target` alone would be, all on one clock. */
  targets?: { coin: Coin; marketType: MarketType }[];
  /** The strategy file (.json rule, .js/.mjs module). */
  strategy: string;
  params: Partial<BacktestParams>;
  sets: string[];
  sweeps: SweepAxis[];
  /** --trades FILE (format from its extension). */
  trades?: string;
  /** --html FILE. */
  html?: string;
  /** --db FILE: sweeps hand it to their workers. */
  db?: string;
  /** --queue: the sweep runs on `msnap worker` processes through this Redis job queue. */
  queue?: QueueFlags;
}

/** Where a table for the terminal goes (the summary, the equity chart, the first trades). */
export interface BacktestView {
  tableOnTerminal: boolean;
  write(text: string): void;
  color: boolean;
  width: number;
}

// Progress shows only for runs that last; the loop yields to the event loop this often so a
// spinner can draw while a synchronous local store is read.
const QUIET_FIRST_MS = 1000;
const YIELD_EVERY_MS = 100;

async function chosenMarkets(client: MsnapApi, opts: BacktestOptions, deps: CliDeps): Promise<Market[]> {
  if ('marketId' in opts.target) return [await client.market(opts.target.marketId)];
  if (!opts.targets) return chooseMarkets(client, opts.target, opts, deps.note);
  const all: Market[] = [];
  for (const t of opts.targets) all.push(...(await chooseMarkets(client, t, opts, deps.note)));
  // One clock: the source gives markets oldest first (ties by id).
  return all.sort((a, b) => a.start_time - b.start_time || (a.market_id < b.market_id ? -1 : a.market_id > b.market_id ? 1 : 0));
}

/** An SQLite file given with --db: read as columns straight from its blocks (a PostgreSQL store is read through its pages). */
const sqliteFile = (db: string | undefined): string | undefined => (db !== undefined && !isPostgresUrl(db) ? db : undefined);

/**
 * Use for the data a backtest reads (here, and in `msnap worker`): an SQLite file's columns with
 * --db, else every market read through the client (the service's, or a PostgreSQL store's).
 */
export async function sourceFor(db: string | undefined, client: MsnapApi, markets: readonly Market[], range: SnapshotRange, now: () => number): Promise<OpenedSource> {
  const file = sqliteFile(db);
  if (file !== undefined) {
    const { openLocalSource } = await import('../../backtest/local-source.js');
    return openLocalSource(file, markets, range, now);
  }
  return { source: apiMarketSource(client, markets, range), close: async () => {} };
}

/** The source, giving the event loop a turn now and then, and telling progress after each market. */
async function* paced(source: MarketSource, progress: Progress, total: number | undefined, now: () => number): MarketSource {
  const started = now();
  let lastYield = started;
  let markets = 0;
  let rows = 0;
  for await (const s of source) {
    yield s;
    markets += 1;
    rows += s.length;
    const t = now();
    if (t - started >= QUIET_FIRST_MS) progress.update({ pages: markets, rows, ...(total !== undefined ? { total } : {}) });
    if (t - lastYield >= YIELD_EVERY_MS) {
      lastYield = t;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/** Run `msnap backtest` with checked options. */
export async function runBacktestCommand(opts: BacktestOptions, deps: CliDeps, view: BacktestView): Promise<void> {
  const params = resolveParams(opts.params);
  const strategy = await loadStrategy(opts.strategy, opts.sets);
  const combos = combinations(opts.sweeps);
  // Every combination is checked before any data is read.
  if (opts.sweeps.length > 0) for (const c of combos) await loadStrategy(opts.strategy, [...opts.sets, ...c.sets]);
  const client = await deps.client();
  const markets = await chosenMarkets(client, opts, deps);
  const range: SnapshotRange = { ...(opts.from !== undefined ? { from: opts.from } : {}), ...(opts.to !== undefined ? { to: opts.to } : {}) };
  const total = opts.from === undefined && opts.to === undefined ? markets.reduce((n, m) => n + m.snapshot_count, 0) : undefined;
  const progress = await deps.progress('backtest', { resultAtEnd: true });
  const exporter = await deps.exporter();
  if (opts.sweeps.length > 0) {
    let summaries: BacktestSummary[];
    try {
      const sets = combos.map((c) => c.sets);
      if (opts.queue !== undefined) {
        const { runQueuedSweep } = await import('./backtest-queued.js');
        const input = { strategy: opts.strategy, sets: opts.sets, params: opts.params, selection: selectionText(opts) };
        summaries = await runQueuedSweep(input, opts.queue, sets, markets, range, progress, deps);
      } else {
        summaries = await runSweep(opts, sets, client, markets, range, progress, total, deps);
      }
    } finally {
      progress.stop();
    }
    const paths = opts.sweeps.map((a) => a.path);
    const numeric = new Set(opts.sweeps.filter((a) => a.values.every((v) => typeof v === 'number')).map((a) => a.path));
    const rows: SweepRow[] = combos.map((c, k) => ({ values: c.values, summary: summaries[k]! }));
    await exporter.list(sweepSchema(paths, numeric, summaries.some((x) => x.rebates !== undefined)), rows);
    deps.finished(`${rows.length} sweep rows over ${markets.length} market${markets.length === 1 ? '' : 's'}`);
    return;
  }
  let result;
  const opened = await sourceFor(opts.db, client, markets, range, deps.now);
  try {
    result = await runBacktest(strategy, paced(opened.source, progress, total, deps.now), params);
  } finally {
    progress.stop();
    await opened.close();
  }
  // A terminal gets the summary, the equity chart and the first trades; any other output the result itself.
  if (view.tableOnTerminal) view.write(renderBacktestText(result, view.width, view.color));
  else await exporter.record(isMakerResult(result) ? MAKER_RESULT_SCHEMA : RESULT_SCHEMA, result);
  if (opts.trades !== undefined) await writeListFile(opts.trades, isMakerResult(result) ? MAKER_TRADE_SCHEMA : TRADE_SCHEMA, result.trades);
  if (opts.html !== undefined) {
    const { renderHtmlReport } = await import('../../backtest/html-report.js');
    await writeTextFile(opts.html, renderHtmlReport(result));
  }
  deps.finished(`backtest of ${result.data.markets} market${result.data.markets === 1 ? '' : 's'} (${result.summary.fills} fills)`);
}

/** The selection as the user wrote it (`BTC 5m --last 288`), for a queued sweep's workers to log. */
function selectionText(opts: BacktestOptions): string {
  const t = opts.target;
  const words = 'marketId' in t ? [t.marketId] : opts.targets ? [[...new Set(opts.targets.map((x) => x.coin))].join(','), [...new Set(opts.targets.map((x) => x.marketType))].join(',')] : [t.coin, t.marketType];
  if (opts.last !== undefined) words.push(`--last ${opts.last}`);
  if (opts.from !== undefined) words.push(`--from ${new Date(opts.from).toISOString()}`);
  if (opts.to !== undefined) words.push(`--to ${new Date(opts.to).toISOString()}`);
  return words.join(' ');
}

/**
 * Sweeps run on worker threads, one combination each: over a local store every worker opens the
 * store itself; over the service the markets are read once and a copy goes to every worker.
 */
async function runSweep(
  opts: BacktestOptions,
  sets: string[][],
  client: MsnapApi,
  markets: Market[],
  range: SnapshotRange,
  progress: Progress,
  snapshots: number | undefined,
  deps: CliDeps,
): Promise<BacktestSummary[]> {
  const started = deps.now();
  // Progress counts combinations as pages and the snapshots they have read as rows.
  const perRun = snapshots ?? 1;
  const onDone = (done: number): void => {
    if (deps.now() - started >= QUIET_FIRST_MS) progress.update({ pages: done, rows: done * perRun, total: sets.length * perRun });
  };
  const { runOnWorkers } = await import('../../backtest/sweep-pool.js');
  // Over the service the markets are read once (paced) and handed to every worker.
  const file = sqliteFile(opts.db);
  const data = file !== undefined ? { db: file, markets, range } : { packed: await readPackedMarkets(client, markets, range) };
  return runOnWorkers(sets.map((s) => ({ strategy: opts.strategy, sets: [...opts.sets, ...s], params: opts.params, data })), onDone);
}
