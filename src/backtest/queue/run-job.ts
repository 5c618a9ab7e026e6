// One queued job on a worker: check that the store holds the sweep's markets (the fingerprint),
// then run each combination with the engine exactly as a local sweep's worker thread does, giving
// the event loop a turn between markets so the queue's lock on the job is renewed on time.
import type { Market } from '../../domain/market.js';
import type { MarketSeries, MarketSource } from '../../domain/market-series.js';
import { StoreMismatchError } from '../../errors.js';
import { runBacktest } from '../engine/engine.js';
import { loadStrategy } from '../strategy/load-strategy.js';
import type { OpenedSource } from '../series/local-source.js';
import type { SnapshotRange } from '../series/snapshot-series.js';
import { fingerprintDifference, marketsFingerprint } from './fingerprint.js';
import { isModuleFile, strategyFile } from './strategy-text.js';
import type { SweepJobData, SweepJobResult } from './sweep-job.js';

/** What a worker's store offers a job. */
export interface JobStore {
  /** The market records of these ids (undefined for an id the store does not hold). */
  markets(ids: readonly string[]): Promise<(Market | undefined)[]>;
  /** The markets' snapshots within `range`, orderbooks included. */
  open(markets: readonly Market[], range: SnapshotRange): Promise<OpenedSource>;
}

/** Thrown when a job is stopped midway (the worker is stopping); the job goes back to the queue. */
export class JobStoppedError extends Error {}

/** Give the event loop a turn this often while a job runs (the queue renews its lock on a timer). */
const YIELD_EVERY_MS = 50;

async function* yielding(source: MarketSource, signal: AbortSignal | undefined): AsyncGenerator<MarketSeries> {
  let last = performance.now();
  for await (const s of source) {
    if (signal?.aborted) throw new JobStoppedError('stopped');
    yield s;
    if (performance.now() - last >= YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      last = performance.now();
    }
  }
}

/** Use to check a job's data: the store's markets for the sweep, or a StoreMismatchError saying how they differ. */
export async function checkedMarkets(data: SweepJobData, store: JobStore): Promise<Market[]> {
  const { sweep } = data;
  const found = await store.markets(sweep.marketIds);
  const missing = sweep.marketIds.filter((_, k) => found[k] === undefined);
  if (missing.length > 0) {
    throw new StoreMismatchError(`refused ${sweep.id}: this store lacks ${missing.length} of its ${sweep.marketIds.length} markets (first: ${missing[0]})`);
  }
  const markets = found as Market[];
  const local = marketsFingerprint(markets, sweep.range);
  if (local.hash !== sweep.fingerprint.hash) {
    throw new StoreMismatchError(`refused ${sweep.id}: this store's markets differ from the submitter's (${fingerprintDifference(sweep.fingerprint, local)})`);
  }
  return markets;
}

/** Use on a worker for each job: every combination's summary, by index, run over `markets` (checked first). */
export async function runSweepJob(
  data: SweepJobData,
  markets: readonly Market[],
  store: JobStore,
  opts: { dir: string; worker: string; signal?: AbortSignal },
): Promise<SweepJobResult> {
  const { sweep } = data;
  const rows: SweepJobResult['rows'] = [];
  for (const item of data.items) {
    const file = strategyFile(opts.dir, sweep.strategy, isModuleFile(sweep.strategy.file) ? item.index : undefined);
    const strategy = await loadStrategy(file, item.sets);
    const opened = await store.open(markets, sweep.range);
    try {
      const result = await runBacktest(strategy, yielding(opened.source, opts.signal), sweep.params);
      rows.push({ index: item.index, summary: result.summary });
    } finally {
      await opened.close();
    }
  }
  return { worker: opts.worker, rows };
}
