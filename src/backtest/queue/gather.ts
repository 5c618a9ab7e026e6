// The submitting side of a queued sweep: put its jobs on the queue (stable ids, so a second
// submission or a --resume adds nothing twice), then gather their results as they complete, keyed
// by combination index, into the local sweep's order. The queue's events wake the gathering; a
// slower look at the jobs' states catches anything an event did not say (a final failure, or jobs
// that finished while no submitter was listening).
import { Queue, QueueEvents, type Job } from 'bullmq';
import { MsnapError, UsageError } from '../../errors.js';
import type { BacktestSummary } from '../model/result.js';
import type { QueueConnection } from './queue-connection.js';
import { sweepJobs, type QueuedSweep, type SweepItem, type SweepJobData, type SweepJobResult } from './sweep-job.js';

/** How far a queued sweep has come, for the progress line. */
export interface GatherProgress {
  done: number;
  total: number;
  jobsDone: number;
  jobs: number;
  /** Distinct workers that have returned a result so far. */
  workers: number;
}

/** What the submitter decides. */
export interface GatherOptions {
  /** Combinations per job. */
  chunk: number;
  /** Gather what an earlier submission of the same sweep left on the queue (else such jobs are an error). */
  resume: boolean;
  /** Attempts per job before it fails for good (a worker that dies midway does not count: the job stalls and is run again). */
  attempts?: number;
  /** How often to look at the jobs' states besides the events (ms). */
  reconcileMs?: number;
  onProgress?: (p: GatherProgress) => void;
  /** Once the jobs are on the queue: how many this run added (the others were there already). */
  onQueued?: (added: number, jobs: number) => void;
}

const ALL_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;

/** Use to run a sweep on the queue's workers: every combination's summary, in `items`' order. */
export async function gatherQueuedSweep(conn: QueueConnection, sweep: QueuedSweep, items: readonly SweepItem[], opts: GatherOptions): Promise<BacktestSummary[]> {
  const jobs = sweepJobs(sweep, items, opts.chunk);
  const queue = new Queue<SweepJobData, SweepJobResult>(conn.name, { connection: conn.open(), prefix: conn.prefix });
  const events = new QueueEvents(conn.name, { connection: conn.open(), prefix: conn.prefix });
  try {
    await events.waitUntilReady();
    const ours = (job: Job | undefined): job is Job<SweepJobData, SweepJobResult> => job !== undefined && typeof job.id === 'string' && job.id.startsWith(`${sweep.id}.`);
    const pending = new Set(jobs.map((j) => j.id));
    const results = new Array<BacktestSummary | undefined>(items.length);
    const workers = new Set<string>();
    let failure: Error | undefined;
    let wake: (why: 'event' | 'look') => void = () => {};
    let rowsDone = 0;
    const report = (): void => opts.onProgress?.({ done: rowsDone, total: items.length, jobsDone: jobs.length - pending.size, jobs: jobs.length, workers: workers.size });
    const take = (id: string, value: SweepJobResult | string | undefined): void => {
      if (!pending.has(id) || value === undefined) return;
      const result = typeof value === 'string' ? (JSON.parse(value) as SweepJobResult) : value;
      for (const row of result.rows) results[row.index] = row.summary;
      rowsDone += result.rows.length;
      workers.add(result.worker);
      pending.delete(id);
      report();
      wake('event');
    };
    events.on('completed', ({ jobId, returnvalue }) => take(jobId, returnvalue as unknown as SweepJobResult | string));
    events.on('failed', () => wake('look'));

    const look = async (resume: boolean): Promise<void> => {
      for (const job of await queue.getJobs(['completed'])) if (ours(job)) take(job.id!, job.returnvalue);
      for (const job of await queue.getJobs(['failed'])) {
        if (!ours(job) || !pending.has(job.id!)) continue;
        if (resume) await job.retry('failed');
        else failure ??= new MsnapError(`job ${job.id} of the sweep failed: ${job.failedReason}`, 'fix the cause, then run the same command with --resume');
      }
    };

    const present = (await queue.getJobs([...ALL_STATES])).filter(ours);
    if (present.length > 0 && !opts.resume) {
      throw new UsageError(`${sweep.id} is already on queue ${conn.name} (${present.length} of its ${jobs.length} jobs)`, 'run the same command with --resume to gather it');
    }
    await look(opts.resume);
    const known = new Set(present.map((j) => j.id));
    const toAdd = jobs.filter((j) => !known.has(j.id));
    const attempts = opts.attempts ?? 3;
    if (toAdd.length > 0) {
      await queue.addBulk(toAdd.map((j) => ({ name: 'sweep', data: j.data, opts: { jobId: j.id, attempts, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: false, removeOnFail: false } })));
    }
    opts.onQueued?.(toAdd.length, jobs.length);
    report();
    const reconcileMs = opts.reconcileMs ?? 2000;
    while (pending.size > 0) {
      if (failure) throw failure;
      // A completed event wakes the loop only to go on waiting; the timer and a failure look at the states.
      const reason = await new Promise<'event' | 'look'>((resolve) => {
        const timer = setTimeout(() => done('look'), reconcileMs);
        function done(why: 'event' | 'look'): void {
          clearTimeout(timer);
          wake = () => {};
          resolve(why);
        }
        wake = done;
      });
      if (reason === 'look' && pending.size > 0) await look(false);
    }
    // Every row is here: the sweep's jobs leave the queue (a later run of it starts afresh).
    await Promise.all(jobs.map((j) => queue.remove(j.id).catch(() => 0)));
    return results as BacktestSummary[];
  } finally {
    await events.close().catch(() => {});
    await queue.close().catch(() => {});
  }
}
