// The sweep worker thread: for each job, load the strategy with its --set values, read the local
// store (or take the markets the job carries), run, and answer with the summary (or the error's
// message and exit code).
import { parentPort } from 'node:worker_threads';
import { MsnapError } from '../../errors.js';
import { runBacktest } from '../engine/engine.js';
import { loadStrategy } from '../strategy/load-strategy.js';
import { openLocalSource } from '../series/local-source.js';
import { packedSource } from '../series/snapshot-series.js';
import { consoleToStderr } from '../strategy/strategy-console.js';
import type { SweepAnswer, SweepJob } from './sweep-pool.js';

// The parent's stdout carries the sweep's rows: a module's console output goes to stderr.
consoleToStderr();

// null: no more jobs. The port closes and the thread ends on its own, once idle: a terminate()
// that lands while V8 compiles in the background can abort the whole process (a Node bug).
parentPort?.on('message', (job: SweepJob | null) => {
  if (job === null) parentPort!.close();
  else void run(job).then((answer) => parentPort!.postMessage(answer));
});

async function run(job: SweepJob): Promise<SweepAnswer> {
  try {
    const strategy = await loadStrategy(job.strategy, job.sets);
    const data = job.data;
    const opened = 'packed' in data ? { source: packedSource(data.packed), close: async () => {} } : await openLocalSource(data.db, data.markets, data.range, Date.now);
    try {
      const result = await runBacktest(strategy, opened.source, job.params);
      return { ok: true, summary: result.summary };
    } finally {
      await opened.close();
    }
  } catch (err) {
    const e = err as Error;
    // The stack of what threw (a strategy's own error is the cause of msnap's line) for --verbose.
    const traced = err instanceof MsnapError ? err.cause : err;
    const stack = traced instanceof Error ? traced.stack : undefined;
    return { ok: false, message: e.message, exitCode: err instanceof MsnapError ? err.exitCode : 1, ...(stack !== undefined ? { stack } : {}) };
  }
}
