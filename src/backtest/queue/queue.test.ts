// The queue loop on both sides, in process, on the Redis at 127.0.0.1:6379 (a fresh queue name
// per test): results land in the combinations' order whatever order they finish in; a stopping
// worker puts its running job back at once for another; a failing strategy fails the sweep with
// its message; the submitter's progress counts jobs, rows and workers.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MsnapError } from '../../errors.js';
import { parseRedisUrl } from '../../ratelimit/redis-url.js';
import type { BacktestSummary } from '../model/result.js';
import { marketsFingerprint } from './fingerprint.js';
import { gatherQueuedSweep, type GatherProgress } from './gather.js';
import { connectQueue, type QueueConnection } from './queue-connection.js';
import { JobStoppedError } from './run-job.js';
import { serveSweepJobs, type ServeJobsOptions } from './serve-jobs.js';
import { sweepId, type QueuedSweep, type SweepJobData, type SweepJobResult } from './sweep-job.js';

const TARGET = parseRedisUrl('redis://127.0.0.1:6379/0');
const names: string[] = [];
const inspect = new Redis(6379, '127.0.0.1');

afterAll(async () => {
  for (const name of names) {
    const keys = await inspect.keys(`msnap:${name}:*`);
    if (keys.length > 0) await inspect.del(...keys);
  }
  inspect.disconnect();
});

async function queue(): Promise<QueueConnection> {
  const name = `unit-${process.pid}-${randomBytes(3).toString('hex')}`;
  names.push(name);
  return connectQueue(TARGET, name);
}

function sweep(n: number, tag: string): { sweep: QueuedSweep; items: { index: number; sets: string[] }[] } {
  const base: Omit<QueuedSweep, 'id'> = {
    strategy: { file: 'r.json', text: tag },
    selection: 'BTC 5m',
    marketIds: [],
    range: {},
    params: {},
    fingerprint: marketsFingerprint([], {}),
  };
  const items = Array.from({ length: n }, (_, index) => ({ index, sets: [`size=${index}`] }));
  return { sweep: { id: sweepId(base, items, 1), ...base }, items };
}

/** A summary that says which combination it is (only `pnl` matters here). */
const summaryOf = (index: number): BacktestSummary => ({ pnl: index }) as unknown as BacktestSummary;

function worker(conn: QueueConnection, name: string, run: ServeJobsOptions['run']) {
  let stop: (s: string) => void = () => {};
  const lines: string[] = [];
  const done = serveSweepJobs(conn, {
    worker: name,
    lockMs: 1000,
    run,
    say: (l) => lines.push(l),
    stop: new Promise((r) => (stop = r)),
    now: Date.now,
  });
  return { done, lines, stop: () => stop('SIGTERM') };
}

const answer = (data: SweepJobData, name: string): SweepJobResult => ({ worker: name, rows: data.items.map((i) => ({ index: i.index, summary: summaryOf(i.index) })) });

describe('a sweep through the queue, in process', () => {
  it('gathers every row in the combinations\' order, from two workers finishing out of order', async () => {
    const conn = await queue();
    const { sweep: s, items } = sweep(8, 'order');
    const slow = (name: string): ServeJobsOptions['run'] => async (data) => {
      // Later combinations finish sooner.
      await new Promise((r) => setTimeout(r, (8 - data.items[0]!.index) * 5));
      return answer(data, name);
    };
    const a = worker(conn, 'a', slow('a'));
    const b = worker(conn, 'b', slow('b'));
    const seen: GatherProgress[] = [];
    try {
      const rows = await gatherQueuedSweep(conn, s, items, { chunk: 1, resume: false, onProgress: (p) => seen.push(p), reconcileMs: 200 });
      expect(rows.map((r) => r.pnl)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(seen.at(-1)).toMatchObject({ done: 8, total: 8, jobsDone: 8, jobs: 8 });
      expect(seen.at(-1)!.workers).toBeGreaterThanOrEqual(1);
      // The gathered sweep leaves the queue.
      expect(await inspect.exists(`msnap:${conn.name}:${s.id}.0`)).toBe(0);
    } finally {
      a.stop();
      b.stop();
      await Promise.all([a.done, b.done]);
      await conn.close();
    }
  });

  it('puts a stopping worker\'s running job back at once; another runs it', async () => {
    const conn = await queue();
    const { sweep: s, items } = sweep(1, 'stop');
    let started = (): void => {};
    const running = new Promise<void>((r) => (started = r));
    const first = worker(conn, 'first', (data, signal) => {
      started();
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new JobStoppedError('stopped'))));
    });
    const gathered = gatherQueuedSweep(conn, s, items, { chunk: 1, resume: false, reconcileMs: 200 });
    await running;
    first.stop();
    expect(await first.done).toEqual({ jobs: 0, stoppedBy: 'SIGTERM' });
    expect(first.lines).toContain(`job ${s.id}.0: put back on the queue`);
    const second = worker(conn, 'second', async (data) => answer(data, 'second'));
    try {
      expect((await gathered).map((r) => r.pnl)).toEqual([0]);
      // Put back, not stalled: the second worker's run is its first attempt.
      expect(second.lines.find((l) => l.startsWith(`job ${s.id}.0:`))).not.toMatch(/again/);
    } finally {
      second.stop();
      await second.done;
      await conn.close();
    }
  });

  it('fails the sweep with the message of a strategy error, without retrying it', async () => {
    const conn = await queue();
    const { sweep: s, items } = sweep(2, 'fail');
    let calls = 0;
    const w = worker(conn, 'w', async (data) => {
      calls += 1;
      if (data.items[0]!.index === 1) throw new MsnapError('strategy threw: boom');
      return answer(data, 'w');
    });
    try {
      const gathered = gatherQueuedSweep(conn, s, items, { chunk: 1, resume: false, reconcileMs: 100 });
      await expect(gathered).rejects.toThrow(new RegExp(`^job ${s.id}\\.1 of the sweep failed: strategy threw: boom$`));
      expect(calls).toBe(2);
    } finally {
      w.stop();
      await w.done;
      await conn.close();
    }
  });
});
