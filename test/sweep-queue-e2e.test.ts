// A sweep spread over `msnap worker` processes through a real Redis job queue (BullMQ): the
// gathered table equals the local sweep's byte for byte, with two workers, with a worker
// SIGKILLed mid-job (its job runs again on the other and its rows appear once), and after the
// submitter is stopped (--resume gathers), for a module strategy, and from a worker on PostgreSQL;
// a worker on a store whose markets differ refuses.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, msnap, seed, spawnMsnap } from './support/msnap-process.js';
import { until } from './support/until.js';
import { throwawayDatabase } from './support/throwaway-database.js';
import { CHEAP_UP_RULE } from './support/cheap-up-rule.js';

const REDIS = 'redis://127.0.0.1:6379/0';
// A module whose state outlives a market (never reset): each run must start with a fresh module,
// as it does in a local sweep, or a later run would trade less.
const MODULE = `let entered = 0;
export default {
  name: 'first-three',
  params: { ask: 0.45 },
  onSnapshot(s, ctx) {
    const ask = s.orderbook_up?.asks[0]?.price;
    if (ctx.position('up') === 0 && entered < 3 && ask !== undefined && ask < ctx.params.ask) { entered += 1; ctx.buy('up', 5); }
  },
};
`;

// 16 combinations.
const SWEEP = ['--sweep', 'size=5,10,20,40', '--sweep', 'entry.0.value=0.35,0.4,0.45,0.5'];

let dir: string;
let db: string;
let otherDb: string;
let rule: string;
let local: string;
let redis: Redis;
const queues: string[] = [];

/** A queue name no other test (or run) uses. */
function queueName(): string {
  const name = `e2e-${process.pid}-${randomBytes(3).toString('hex')}`;
  queues.push(name);
  return name;
}

const backtest = (extra: string[]) => ['backtest', rule, 'BTC', '5m', '--last', '10', '--db', db, ...SWEEP, '--csv', ...extra];

/** A running `msnap worker` and its stderr so far. */
function startWorker(queue: string, store = db, extra: string[] = []) {
  const proc = spawnMsnap(['worker', '--queue', REDIS, '--queue-name', queue, '--db', store, '--lock-ms', '1000', ...extra], { cwd: dir });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return { proc, err: () => err };
}

/** Run `body` while a worker serves `queue` (on `store`); the worker is stopped with SIGTERM afterwards. */
async function withWorker(queue: string, body: (w: ReturnType<typeof startWorker>) => Promise<void>, store = db): Promise<void> {
  const w = startWorker(queue, store);
  try {
    await body(w);
  } finally {
    w.proc.kill('SIGTERM');
    await w.proc;
  }
}

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-sweep-queue-'));
  db = path.join(dir, 'a.db');
  otherDb = path.join(dir, 'b.db');
  const data = ['--days', '1', '--full', '5m=10,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-minutes', '30'];
  await Promise.all([seed(db, ['--seed', '4', ...data]), seed(otherDb, ['--seed', '5', ...data])]);
  rule = path.join(dir, 'cheap-up.json');
  writeFileSync(rule, JSON.stringify(CHEAP_UP_RULE));
  const r = await msnap(backtest([]), { cwd: dir, keepFinalNewline: true });
  expect(r.exitCode, r.stderr).toBe(0);
  local = r.stdout;
  expect(local.trim().split('\n')).toHaveLength(17);
  redis = new Redis(REDIS);
}, 180_000);

afterAll(async () => {
  for (const q of queues) {
    const keys = await redis.keys(`msnap:${q}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis?.disconnect();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('backtest --sweep --queue with msnap worker', () => {
  it('gathers a 16-combination sweep from two workers into the local sweep, byte for byte', async () => {
    const queue = queueName();
    const workers = [startWorker(queue), startWorker(queue)];
    try {
      const r = await msnap(backtest(['--queue', REDIS, '--queue-name', queue]), { cwd: dir, keepFinalNewline: true, timeout: 120_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(local);
      expect(r.stderr).toMatch(/16 combinations in 16 jobs on redis:\/\/127\.0\.0\.1:6379\/0/);
    } finally {
      for (const w of workers) w.proc.kill('SIGTERM');
    }
    // Both ran jobs, said what they ran, and stopped cleanly on SIGTERM.
    for (const w of workers) {
      const ended = await w.proc;
      expect(ended.exitCode, w.err()).toBe(0);
      expect(w.err()).toMatch(/msnap worker: job sweep-[0-9a-f]{16}\.\d+: cheap-up\.json #\d+ size=\d+ entry\.0\.value=[\d.]+ on BTC 5m --last 10 \(10 markets\)/);
      expect(w.err()).toMatch(/msnap worker: stopped \(SIGTERM\) after \d+ jobs?\n$/);
    }
  }, 120_000);

  it('runs a SIGKILLed worker\'s job again on the other; its rows appear once', async () => {
    const queue = queueName();
    // Four combinations a job, so the kill lands inside one.
    const submit = msnap(backtest(['--queue', REDIS, '--queue-name', queue, '--chunk', '4']), { cwd: dir, keepFinalNewline: true, timeout: 120_000 });
    const doomed = startWorker(queue);
    await until(() => /job sweep-\S+: cheap-up/.test(doomed.err()), 'the first worker to take a job', 30_000);
    doomed.proc.kill('SIGKILL');
    await doomed.proc;
    expect(doomed.err()).not.toMatch(/done in/);
    await withWorker(queue, async (survivor) => {
      const r = await submit;
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(local);
      // The killed worker's job was recovered by the stalled-job check and run again.
      expect(survivor.err()).toMatch(/\(again: attempt 2\)/);
      expect(survivor.err().match(/done in/g)).toHaveLength(4);
    });
  }, 120_000);

  it('gathers with --resume what finished after the submitter was stopped (SIGTERM)', async () => {
    const queue = queueName();
    const args = backtest(['--queue', REDIS, '--queue-name', queue]);
    const first = spawnMsnap(args, { cwd: dir });
    let said = '';
    first.stderr!.on('data', (d: Buffer) => (said += d.toString()));
    await until(() => /16 combinations in 16 jobs/.test(said), 'the jobs to be queued', 30_000);
    // SIGTERM: it stops at once, and says how to gather the sweep later.
    first.kill('SIGTERM');
    expect((await first).exitCode).toBe(143);
    expect(said).toMatch(/\nmsnap: sweep-[0-9a-f]{16} stays on queue \S+: run the same command with --resume to gather it\n$/);
    await withWorker(queue, async (worker) => {
      await until(() => (worker.err().match(/done in/g) ?? []).length === 16, 'the worker to run every job', 60_000);
      // Without --resume the sweep on the queue is not taken for a new one.
      const again = await msnap(args, { cwd: dir });
      expect(again.exitCode).toBe(2);
      expect(again.stderr).toMatch(/^msnap: sweep-[0-9a-f]{16} is already on queue \S+ \(16 of its 16 jobs\)\nhint: run the same command with --resume to gather it$/);
      const resumed = await msnap([...args, '--resume'], { cwd: dir, keepFinalNewline: true });
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(resumed.stdout).toBe(local);
    });
  }, 120_000);

  it('carries a module as text and runs each of its combinations with a fresh module, as a local sweep does', async () => {
    const queue = queueName();
    const mod = path.join(dir, 'first-three.mjs');
    writeFileSync(mod, MODULE);
    const args = ['backtest', mod, 'BTC', '5m', '--last', '10', '--db', db, '--sweep', 'ask=0.4,0.45,0.5,0.55', '--csv'];
    const localModule = await msnap(args, { cwd: dir, keepFinalNewline: true });
    expect(localModule.exitCode, localModule.stderr).toBe(0);
    await withWorker(queue, async () => {
      // Two combinations a job: the second runs in the same worker process after the first.
      const r = await msnap([...args, '--queue', REDIS, '--queue-name', queue, '--chunk', '2'], { cwd: dir, keepFinalNewline: true, timeout: 120_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(localModule.stdout);
    });
  }, 120_000);

  it('runs the jobs on a worker over PostgreSQL (the same store imported) to the same bytes', async () => {
    const pg = await throwawayDatabase();
    try {
      const imported = await msnap(['serve', 'import', db, '--db', pg.url], { cwd: dir, timeout: 120_000 });
      expect(imported.exitCode, imported.stderr).toBe(0);
      const queue = queueName();
      await withWorker(
        queue,
        async () => {
          const r = await msnap(backtest(['--queue', REDIS, '--queue-name', queue, '--chunk', '4']), { cwd: dir, keepFinalNewline: true, timeout: 120_000 });
          expect(r.exitCode, r.stderr).toBe(0);
          expect(r.stdout).toBe(local);
        },
        pg.url,
      );
    } finally {
      await pg.destroy();
    }
  }, 180_000);

  it('refuses a job on a store whose markets differ, puts it back, and stops with exit 11', async () => {
    const queue = queueName();
    const submit = msnap(backtest(['--queue', REDIS, '--queue-name', queue]), { cwd: dir, keepFinalNewline: true, timeout: 120_000 });
    const wrong = startWorker(queue, otherDb);
    const ended = await wrong.proc;
    expect(ended.exitCode, wrong.err()).toBe(11);
    expect(wrong.err()).toMatch(/\nmsnap: refused sweep-[0-9a-f]{16}: this store('s markets differ from the submitter's \(fingerprint [0-9a-f]{16} here, [0-9a-f]{16} wanted: .+\)| lacks \d+ of its 10 markets .+)\n$/);
    await withWorker(queue, async () => {
      const r = await submit;
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(local);
    });
  }, 120_000);
});
