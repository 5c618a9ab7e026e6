// Sweep combinations run on worker threads, one per core: each worker loads the strategy and opens
// the data itself (a module strategy's runs each get a fresh worker, so its own state starts as in
// a single run); rows come back in the combinations' order whatever order they finish in.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { EXIT, MsnapError, UsageError } from '../../errors.js';
import type { Market } from '../../domain/market.js';
import type { BacktestParams } from '../engine/params.js';
import type { BacktestSummary } from '../model/result.js';
import type { PackedSeries } from '../series/series-builder.js';
import type { SnapshotRange } from '../series/snapshot-series.js';
import type { RuleStrategy } from '../strategy/strategy.js';

/** What a worker needs for one combination; everything is structured-cloneable. */
export interface SweepJob {
  /** A strategy file path, or a rule object. */
  strategy: string | RuleStrategy;
  sets: string[];
  params: Partial<BacktestParams>;
  /** The data: a local store to read (the markets, oldest first, and the range), or markets already read. */
  data: { db: string; markets: Market[]; range: SnapshotRange } | { packed: PackedSeries[] };
}

/** A worker's answer. */
export type SweepAnswer = { ok: true; summary: BacktestSummary } | { ok: false; message: string; exitCode: number; stack?: string };

/** Use for sweeps: the summaries of `jobs`, in order, on up to `threads` workers. */
export async function runOnWorkers(
  jobs: readonly SweepJob[],
  onDone: (done: number) => void = () => {},
  threads = os.availableParallelism(),
): Promise<BacktestSummary[]> {
  const results = new Array<BacktestSummary>(jobs.length);
  let next = 0;
  let done = 0;
  const url = new URL('./sweep-worker.js', import.meta.url);
  const one = async (): Promise<void> => {
    let worker: Worker | undefined;
    try {
      while (next < jobs.length) {
        const index = next++;
        const job = jobs[index]!;
        // A rule holds no state between runs: its worker takes the next combination. A module
        // may keep state in its own scope, so each of its runs starts in a fresh worker.
        if (worker && isModulePath(job.strategy)) {
          await stop(worker);
          worker = undefined;
        }
        worker ??= new Worker(url);
        const answer = await ask(worker, job);
        if (!answer.ok) throw workerError(answer);
        results[index] = answer.summary;
        onDone(++done);
      }
    } finally {
      if (worker) await stop(worker);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(threads, jobs.length)) }, one));
  return results;
}

// A worker asked to stop ends on its own; one still busy (a failed sweep's other runs) after this
// long is terminated.
const STOP_GRACE_MS = 2_000;

/** Ends `worker`: asked first (it closes its port and exits when idle), terminated only if it does not. */
async function stop(worker: Worker): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.postMessage(null);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_GRACE_MS)));
  if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
  clearTimeout(timer);
}

/** A worker's failure as the error it was, its stack (when it had one) kept as the cause. */
function workerError(answer: Extract<SweepAnswer, { ok: false }>): MsnapError {
  const err = answer.exitCode === EXIT.usage ? new UsageError(answer.message) : new MsnapError(answer.message);
  if (answer.stack !== undefined) {
    const cause = new Error(answer.message);
    cause.stack = answer.stack;
    (err as { cause?: unknown }).cause = cause;
  }
  return err;
}

function isModulePath(strategy: SweepJob['strategy']): boolean {
  return typeof strategy === 'string' && /\.m?js$/i.test(strategy);
}

function ask(worker: Worker, job: SweepJob): Promise<SweepAnswer> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
    };
    const onMessage = (a: SweepAnswer): void => {
      cleanup();
      resolve(a);
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.postMessage(job);
  });
}
