// What travels on the queue for a sweep spread over machines (docs/sweep-queue.md): the whole
// sweep (the strategy as text, the markets, the parameters, the data's fingerprint) and the
// combinations of one job, each with its index in the local sweep's order; and what comes back.
import { createHash } from 'node:crypto';
import type { BacktestParams } from '../engine/params.js';
import type { BacktestSummary } from '../model/result.js';
import type { SnapshotRange } from '../series/snapshot-series.js';
import type { MarketsFingerprint } from './fingerprint.js';

/** A strategy file carried as text, so a worker on another machine needs no shared files. */
export interface StrategyText {
  /** The file's base name (`cheap-up.json`): its extension says rule or module, its stem the default name. */
  file: string;
  text: string;
}

/** One sweep: the same for every job of it. */
export interface QueuedSweep {
  /** A hash of everything else here: the same sweep submitted again has the same id (`--resume`). */
  id: string;
  strategy: StrategyText;
  /** The selection as the user wrote it (`BTC 5m --last 288`), for the worker's log. */
  selection: string;
  /** The markets the submitter selected, oldest first: workers read these, not their own selection. */
  marketIds: string[];
  range: SnapshotRange;
  params: Partial<BacktestParams>;
  fingerprint: MarketsFingerprint;
}

/** One combination: its index in the sweep's order and every `--set` that makes it. */
export interface SweepItem {
  index: number;
  sets: string[];
}

/** A job's data. */
export interface SweepJobData {
  sweep: QueuedSweep;
  items: SweepItem[];
}

/** A job's result: keyed by combination index, so a job run twice cannot add a row twice. */
export interface SweepJobResult {
  /** The worker that ran it (`host:pid`, or its --name). */
  worker: string;
  rows: { index: number; summary: BacktestSummary }[];
}

/** Use to name a sweep: the id of everything that decides its result, and every combination's sets. */
export function sweepId(sweep: Omit<QueuedSweep, 'id'>, items: readonly SweepItem[], chunk: number): string {
  const h = createHash('sha256');
  h.update(JSON.stringify({ sweep, sets: items.map((i) => i.sets), chunk }));
  return `sweep-${h.digest('hex').slice(0, 16)}`;
}

/** Use to cut a sweep into jobs of `chunk` combinations, in order, each with its stable job id. */
export function sweepJobs(sweep: QueuedSweep, items: readonly SweepItem[], chunk: number): { id: string; data: SweepJobData }[] {
  const jobs: { id: string; data: SweepJobData }[] = [];
  for (let k = 0; k < items.length; k += chunk) {
    jobs.push({ id: `${sweep.id}.${k}`, data: { sweep, items: items.slice(k, k + chunk) } });
  }
  return jobs;
}
