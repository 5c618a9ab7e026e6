// The body of `msnap worker`: connect to the queue, then run each job over the local store, the
// markets of a sweep looked up (and checked) once, and over a PostgreSQL store read once per sweep.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Market } from '../../domain/market.js';
import { NotFoundError } from '../../errors.js';
import { connectQueue } from '../../backtest/queue/queue-connection.js';
import { checkedMarkets, runSweepJob, type JobStore } from '../../backtest/queue/run-job.js';
import { serveSweepJobs } from '../../backtest/queue/serve-jobs.js';
import type { SweepJobData } from '../../backtest/queue/sweep-job.js';
import { packedSource, readPackedMarkets, type SnapshotRange } from '../../backtest/series/snapshot-series.js';
import type { PackedSeries } from '../../backtest/series/series-builder.js';
import { isPostgresUrl } from '../../store/db-path.js';
import type { CliDeps } from '../deps.js';
import { sourceFor } from './backtest-run.js';
import type { RedisTarget } from '../../ratelimit/redis-url.js';

/** The checked flags of `msnap worker`. */
export interface WorkerOptions {
  queue: RedisTarget;
  queueName: string;
  /** The store the jobs read: an SQLite file or a postgres:// URL. */
  db: string;
  /** How long a job stays claimed by a worker that stops answering. */
  lockMs: number;
  /** This worker's name in results and logs. */
  name: string;
}

/** Use to run `msnap worker` until `stop` resolves (exit 0), or its store is refused (a StoreMismatchError, exit 11). */
export async function runWorker(opts: WorkerOptions, deps: CliDeps, stop: Promise<string>): Promise<void> {
  const client = await deps.client();
  const say = (line: string): void => deps.writeErr(`msnap worker: ${line}\n`);
  // The markets of the last sweep seen: its jobs come one after another.
  let known: { id: string; markets: Market[] } | undefined;
  let packed: { id: string; series: PackedSeries[] } | undefined;
  const store = (sweep: string): JobStore => ({
    markets: (ids) =>
      Promise.all(ids.map((id) => client.market(id).catch((err: unknown) => (err instanceof NotFoundError ? undefined : Promise.reject(err))))),
    async open(markets: readonly Market[], range: SnapshotRange) {
      if (!isPostgresUrl(opts.db)) return sourceFor(opts.db, client, markets, range, deps.now);
      // A PostgreSQL store is read through its pages: once per sweep, as a local sweep over the service does.
      if (packed?.id !== sweep) packed = { id: sweep, series: await readPackedMarkets(client, markets, range) };
      return { source: packedSource(packed.series), close: async () => {} };
    },
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'msnap-worker-'));
  const conn = await connectQueue(opts.queue, opts.queueName);
  say(`${opts.name} on store ${opts.db.startsWith('postgres') ? 'postgres://…' : opts.db}`);
  try {
    const run = async (data: SweepJobData, signal: AbortSignal) => {
      const s = store(data.sweep.id);
      if (known?.id !== data.sweep.id) known = { id: data.sweep.id, markets: await checkedMarkets(data, s) };
      return runSweepJob(data, known.markets, s, { dir, worker: opts.name, signal });
    };
    const { jobs, stoppedBy } = await serveSweepJobs(conn, { worker: opts.name, lockMs: opts.lockMs, run, say, stop, now: deps.now });
    say(`stopped (${stoppedBy}) after ${jobs} job${jobs === 1 ? '' : 's'}`);
  } finally {
    await conn.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
