// Figure (sweep queue): a sweep spread over `msnap worker` processes through a Redis job queue
// (BullMQ). (a) A CPU-bound sweep over a store with books on every snapshot, gathered from 1 and
// then 2 workers already waiting on the queue (processes timed from the submitter's spawn to its
// exit; the table checked equal to the local sweep's); (b) the queue's own cost per job: jobs whose
// run does nothing, submitted and gathered through the same code the CLI uses, one worker, in one
// process, so what is timed is the queue alone (add, fetch, lock, complete, the completed event).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { rmSync, writeFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { MSNAP_BIN, ROOT, runMsnap } from '../child-process.js';
import { seedDatabase } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';
import { BOOK_RULE } from './backtest.js';

// A third of the full work per job at quick size, so the submitter's start and the first
// market check weigh more: a full run's 1.6x shows as about 1.3x there.
const SCALE_TARGETS = { full: { min: 1.6 }, quick: { min: 1.25 } };
const OVERHEAD_TARGET = { max: 5 };

// Sizes unless bench/options.js gives `sweepQueue`: 32 combinations over ~230k snapshots with
// books (quick) or ~690k (full), so that the fixed costs of a run (the submitter's start, the
// first job's market check) weigh little beside the work. A rule on the best bid and ask got
// much cheaper once it read only the packed books' first prices (issue 35): at a third of this
// full size the submitter's start was half of a 1-worker run and 2 workers gave 1.39x.
const DEFAULT_SIZES = {
  quick: { db: { days: 1, full: { '5m': 97, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 }, orderbookDays: 1 }, last: 96, sizes: [5, 10, 20, 40], entries: [0.3, 0.325, 0.35, 0.375, 0.4, 0.425, 0.45, 0.475], noopJobs: 300, rounds: 2 },
  full: { db: { days: 1, full: { '5m': 289, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 }, orderbookDays: 1 }, last: 288, sizes: [5, 10, 20, 40], entries: [0.3, 0.325, 0.35, 0.375, 0.4, 0.425, 0.45, 0.475], noopJobs: 1000, rounds: 3 },
};


/** A `msnap worker` process; resolves once it waits for jobs. */
function startWorker(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MSNAP_BIN, 'worker', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const exited = new Promise((res) => child.on('exit', (code, signal) => res({ code, signal })));
    child.stderr.setEncoding('utf8').on('data', (s) => {
      err = (err + s).slice(-100_000);
      if (/waiting for jobs/.test(err)) resolve({ err: () => err, stop: async () => (child.kill('SIGTERM'), exited) });
    });
    child.on('error', reject);
    exited.then(({ code, signal }) => reject(new Error(`msnap worker exited (${code ?? signal}) before it was ready: ${err.slice(-2000)}`)));
  });
}

/** Wall time of `n` processes spinning the same CPU loop at once (ms, the slowest). */
async function spin(n) {
  const loop = 'let x = 0; for (let i = 0; i < 2e8; i++) x += i % 7; if (x < 0) console.log(x);';
  const one = () => new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['-e', loop], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve(performance.now() - started));
  });
  return Math.max(...(await Promise.all(Array.from({ length: n }, one))));
}

/** Jobs that do nothing, through the queue code the CLI uses: ms per job. */
async function queueOverhead(redisUrl, queueName, jobs) {
  const dist = path.join(ROOT, 'dist/backtest/queue');
  const [{ parseRedisUrl }, { connectQueue }, { gatherQueuedSweep }, { serveSweepJobs }, { sweepId }, { marketsFingerprint }] = await Promise.all([
    import(path.join(ROOT, 'dist/ratelimit/redis-url.js')),
    import(path.join(dist, 'queue-connection.js')),
    import(path.join(dist, 'gather.js')),
    import(path.join(dist, 'serve-jobs.js')),
    import(path.join(dist, 'sweep-job.js')),
    import(path.join(dist, 'fingerprint.js')),
  ]);
  const conn = await connectQueue(parseRedisUrl(redisUrl), queueName);
  const base = { strategy: { file: 'noop.json', text: '{}' }, selection: 'none', marketIds: [], range: {}, params: {}, fingerprint: marketsFingerprint([], {}) };
  const items = Array.from({ length: jobs }, (_, index) => ({ index, sets: [`size=${index}`] }));
  const sweep = { id: sweepId(base, items, 1), ...base };
  let stop;
  const served = serveSweepJobs(conn, {
    worker: 'bench',
    lockMs: 30_000,
    run: async (data) => ({ worker: 'bench', rows: data.items.map((i) => ({ index: i.index, summary: { pnl: i.index } })) }),
    say: () => {},
    stop: new Promise((r) => (stop = r)),
    now: Date.now,
  });
  try {
    const started = performance.now();
    const rows = await gatherQueuedSweep(conn, sweep, items, { chunk: 1, resume: false });
    const wallMs = performance.now() - started;
    if (rows.length !== jobs || rows.some((r, k) => r.pnl !== k)) throw new Error('the no-op sweep came back wrong');
    return wallMs / jobs;
  } finally {
    stop('done');
    await served;
    await conn.close();
  }
}

/** Run the sweep-queue figure on its own store and queues. */
export async function sweepQueueFigure(ctx) {
  const spec = ctx.sizes.sweepQueue ?? (ctx.quick ? DEFAULT_SIZES.quick : DEFAULT_SIZES.full);
  const scaleTarget = ctx.quick ? SCALE_TARGETS.quick : SCALE_TARGETS.full;
  const redisUrl = process.env.MSNAP_BENCH_REDIS_URL || 'redis://127.0.0.1:6379/0';
  const queue = `bench-sweep-${process.pid}`;
  const db = path.join(ctx.tmpDir, 'sweep-queue-books.db');
  const rule = path.join(ctx.tmpDir, 'bench-queue-rule.json');
  writeFileSync(rule, JSON.stringify(BOOK_RULE));
  const env = ctx.cliEnv('http://127.0.0.1:1', '');
  const workers = [];
  try {
    await seedDatabase(db, spec.db, { tmpDir: ctx.tmpDir });
    const combos = spec.sizes.length * spec.entries.length;
    const sweepArgs = ['backtest', rule, 'BTC', '5m', '--last', String(spec.last), '--db', db, '--sweep', `size=${spec.sizes.join(',')}`, '--sweep', `entry.0.value=${spec.entries.join(',')}`, '--csv', '--quiet'];
    const local = await runMsnap(sweepArgs, { tmpDir: ctx.tmpDir, env });
    // One worker waits on one queue, two on another: the rounds alternate between them (best of
    // each), so a change in what else runs on the machine weighs on both alike.
    const queues = [`${queue}-1`, `${queue}-2`];
    const submit = (q) => [...sweepArgs, '--queue', redisUrl, '--queue-name', q];
    const workerArgs = (q) => ['--queue', redisUrl, '--queue-name', q, '--db', db];
    workers.push(await startWorker(workerArgs(queues[0]), env));
    for (let k = 0; k < 2; k++) workers.push(await startWorker(workerArgs(queues[1]), env));
    let one;
    let two;
    const outputs = [];
    for (let round = 0; round < (spec.rounds ?? 1); round++) {
      const a = await runMsnap(submit(queues[0]), { tmpDir: ctx.tmpDir, env });
      const b = await runMsnap(submit(queues[1]), { tmpDir: ctx.tmpDir, env });
      outputs.push(a.stdout, b.stdout);
      if (!one || a.wallMs < one.wallMs) one = a;
      if (!two || b.wallMs < two.wallMs) two = b;
    }
    const queued = submit('Q');
    const same = outputs.every((o) => o === local.stdout);
    const scale = one.wallMs / two.wallMs;
    // What this machine gives a second process right now (others share its cores): the ceiling of the ratio above.
    const ceiling = (2 * (await spin(1))) / (await spin(2));
    let perJobMs = Infinity;
    for (let round = 0; round < (spec.rounds ?? 1); round++) perJobMs = Math.min(perJobMs, await queueOverhead(redisUrl, `${queue}-noop`, spec.noopJobs));
    return {
      title: 'Sweep on a job queue',
      method:
        `A sweep of ${combos} combinations (\`--sweep size=… --sweep entry.0.value=…\`, a rule on the best ask and bid) over BTC 5m --last ${spec.last} of a store with books on every snapshot, ` +
        `submitted with \`--queue\` to Redis (BullMQ) and gathered from \`msnap worker\` processes already waiting: 1 worker on one queue, 2 on another, ${spec.rounds ?? 1} round(s) alternating, best of each; each submitter timed from spawn to exit; ` +
        'beside it, what the machine gives a second process at the time (2 processes spinning a CPU loop against 1: on cores other people share, the ceiling of that ratio); ' +
        `the queue's overhead per job from ${spec.noopJobs} jobs whose run does nothing, through the same submit, worker and gather code in one process (one worker), best of the rounds.`,
      rows: [
        { name: 'Sweep queue: 2 workers / 1 worker (wall time)', value: scale, unit: 'x', target: describeTarget(scaleTarget, 'x'), verdict: judge({ value: scale, ...scaleTarget }) },
        { name: 'Sweep queue: the machine\'s own 2 processes / 1 on a CPU loop, at the time (the ceiling)', value: ceiling, unit: 'x' },
        { name: 'Sweep queue: overhead per job', value: perJobMs, unit: ' ms', target: describeTarget(OVERHEAD_TARGET, ' ms'), verdict: judge({ value: perJobMs, ...OVERHEAD_TARGET }) },
      ],
      commands: [
        'msnap worker --queue REDIS --queue-name Q --db DB   # 1 on one queue, 2 on another',
        `msnap ${queued.join(' ').replace(rule, 'rule.json').replaceAll(db, 'DB').replace(redisUrl, 'REDIS')}`,
      ],
      notes: [
        `Runs: local sweep (worker threads, all cores) ${(local.wallMs / 1000).toFixed(2)} s, 1 worker ${(one.wallMs / 1000).toFixed(2)} s, 2 workers ${(two.wallMs / 1000).toFixed(2)} s; ` +
          `the gathered tables ${same ? 'equal' : 'DIFFER from'} the local sweep's byte for byte.`,
        'The workers, the submitter and Redis share the same 2 cores; each submitter start (~0.5 s) is in both times.',
      ],
    };
  } finally {
    for (const w of workers) await w.stop().catch(() => {});
    rmSync(db, { force: true });
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`msnap:${queue}*`).catch(() => []);
    if (keys.length > 0) await redis.del(...keys).catch(() => 0);
    redis.disconnect();
  }
}
