// The working side of a queued sweep: a BullMQ worker that takes one job at a time. The queue
// owns the reliability: a job's lock is renewed while it runs; a worker that dies midway stops
// renewing it, and another worker's stalled-job check puts the job back after `lockMs`. A store
// that differs from the sweep's puts the job back untouched and stops this worker; a stop
// (SIGTERM) puts the running job back at once, so nothing waits for a lock to expire.
import { UnrecoverableError, WaitingError, Worker } from 'bullmq';
import { MsnapError, StoreMismatchError } from '../../errors.js';
import type { QueueConnection } from './queue-connection.js';
import { JobStoppedError } from './run-job.js';
import type { SweepJobData, SweepJobResult } from './sweep-job.js';

/** What `msnap worker` hands the queue loop. */
export interface ServeJobsOptions {
  /** This worker's name in results and logs. */
  worker: string;
  /** How long a job stays claimed by a worker that stops answering (the stalled check runs as often). */
  lockMs: number;
  /** Run one job (checking its data first); `signal` aborts it when the worker stops. */
  run(data: SweepJobData, signal: AbortSignal): Promise<SweepJobResult>;
  /** One line about what the worker does. */
  say(line: string): void;
  /** Resolves (with the signal's name) when the worker should stop. */
  stop: Promise<string>;
  now(): number;
}

function describeJob(id: string, data: SweepJobData, attempt: number): string {
  const first = data.items[0]!;
  const last = data.items[data.items.length - 1]!;
  const which = data.items.length === 1 ? `#${first.index} ${first.sets.join(' ') || '(no --set)'}` : `#${first.index}..#${last.index}`;
  const again = attempt > 0 ? ` (again: attempt ${attempt + 1})` : '';
  return `job ${id}: ${data.sweep.strategy.file} ${which} on ${data.sweep.selection} (${data.sweep.marketIds.length} markets)${again}`;
}

/** Use to serve jobs until `stop` resolves or the store is refused (a StoreMismatchError); resolves to how many jobs it ran. */
export async function serveSweepJobs(conn: QueueConnection, opts: ServeJobsOptions): Promise<{ jobs: number; stoppedBy: string }> {
  let ran = 0;
  let current: AbortController | undefined;
  let refuse: (err: StoreMismatchError) => void = () => {};
  const refused = new Promise<StoreMismatchError>((resolve) => (refuse = resolve));
  const worker = new Worker<SweepJobData, SweepJobResult>(
    conn.name,
    async (job, token) => {
      const abort = new AbortController();
      current = abort;
      const started = opts.now();
      opts.say(describeJob(job.id!, job.data, job.attemptsMade + job.stalledCounter));
      try {
        const result = await opts.run(job.data, abort.signal);
        ran += 1;
        opts.say(`job ${job.id}: done in ${((opts.now() - started) / 1000).toFixed(1)} s`);
        return result;
      } catch (err) {
        if (err instanceof StoreMismatchError || err instanceof JobStoppedError) {
          // Back on the queue untouched, for another worker: not an attempt used up.
          await job.moveToWait(token);
          opts.say(`job ${job.id}: put back on the queue`);
          if (err instanceof StoreMismatchError) refuse(err);
          throw new WaitingError();
        }
        opts.say(`job ${job.id}: failed: ${(err as Error).message}`);
        // A strategy that throws will throw again: no retry for an msnap error.
        if (err instanceof MsnapError) throw new UnrecoverableError(err.message);
        throw err;
      } finally {
        current = undefined;
      }
    },
    {
      connection: conn.open(),
      prefix: conn.prefix,
      name: opts.worker,
      concurrency: 1,
      lockDuration: opts.lockMs,
      stalledInterval: opts.lockMs,
      // A job whose worker dies is run again; one that stalls this often is failed.
      maxStalledCount: 3,
    },
  );
  worker.on('error', (err) => opts.say(`queue: ${err.message}`));
  await worker.waitUntilReady();
  opts.say(`waiting for jobs on ${conn.display} queue ${conn.name}`);
  const ended = await Promise.race([opts.stop.then((signal) => ({ signal })), refused.then((err) => ({ err }))]);
  current?.abort();
  await worker.close();
  if ('err' in ended) throw ended.err;
  return { jobs: ran, stoppedBy: ended.signal };
}
