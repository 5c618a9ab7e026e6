// Figure 8: serve --live must not stall requests. Two msnap serve processes over two copies of
// one seeded database, one with --live (a transaction of new snapshots every 125 ms) and one with
// --no-live; sequential requests over one keep-alive connection each, taking turns request by
// request so machine noise lands on both alike; p50 and p99 of each.
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { createKey, fullMarkets, seedDatabase, startMsnapServe } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const TARGET_P50 = { max: 1.25 };
const WARMUP = 200;

/** Seed a database, serve two copies side by side (live and not), and time the same requests on both. */
export async function liveLatencyFigure(ctx) {
  const base = path.join(ctx.tmpDir, 'live-base.db');
  const seeded = await seedDatabase(base, ctx.sizes.live.db, { tmpDir: ctx.tmpDir });
  const key = await createKey(base, { account: `bench-live-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
  const market = fullMarkets(base, { type: '5m', coin: 'BTC', limit: 1 })[0];
  if (!market) throw new Error(`${base} holds no complete BTC 5m market`);
  const sides = [];
  try {
    for (const [name, flag] of [['static', '--no-live'], ['live', '--live']]) {
      const file = path.join(ctx.tmpDir, `live-${name}.db`);
      copyFileSync(base, file);
      sides.push({ name, server: await startMsnapServe(file, [flag]), times: [] });
    }
    await timeRequests(sides, key, market, ctx.sizes.live.count);
  } finally {
    await Promise.all(sides.map((s) => s.server.stop()));
  }
  const stats = Object.fromEntries(sides.map((s) => [s.name, percentiles(s.times)]));
  const p50Ratio = stats.live.p50 / stats.static.p50;
  const p99Ratio = stats.live.p99 / stats.static.p99;
  return {
    title: 'Live ticks do not stall requests',
    method:
      `${ctx.sizes.live.count} sequential requests per server (after ${WARMUP} warm-up), cycling through a markets page ` +
      '(`/api/v1/markets?coin=BTC&market_type=5m&limit=100`), a 1000-snapshot page of a complete 5m market and an at-timestamp ' +
      `lookup in it, against two msnap serve processes over copies of one database (${seeded.snapshots.toLocaleString('en-US')} ` +
      'snapshots): one `--live` (writing 15 active markets 8 times a second), one `--no-live`, taking turns request by request. ' +
      'Latency is measured in the bench process (request sent to body read).',
    rows: [
      { name: 'Live: p50 without --live', value: stats.static.p50, unit: ' ms' },
      { name: 'Live: p50 with --live', value: stats.live.p50, unit: ' ms' },
      { name: 'Live: p99 without --live', value: stats.static.p99, unit: ' ms' },
      { name: 'Live: p99 with --live', value: stats.live.p99, unit: ' ms' },
      { name: 'Live: max with --live (a request that met a tick)', value: stats.live.max, unit: ' ms' },
      { name: 'Live: p50 live / p50 static', value: p50Ratio, unit: 'x', target: describeTarget(TARGET_P50, 'x'), verdict: judge({ value: p50Ratio, ...TARGET_P50 }) },
      { name: 'Live: p99 live / p99 static', value: p99Ratio, unit: 'x' },
    ],
    commands: [
      seeded.command.replace(base, 'live.db'),
      'msnap serve --db copy1.db --no-live --port 0   and   msnap serve --db copy2.db --live --port 0',
    ],
    notes: [
      `Means: ${stats.static.mean.toFixed(3)} ms without, ${stats.live.mean.toFixed(3)} ms with --live. A request that arrives ` +
        'during a tick waits for its transaction (the server is one thread); the p99 and max show how long that is.',
    ],
  };
}

async function timeRequests(sides, key, market, count) {
  const paths = [
    '/api/v1/markets?coin=BTC&market_type=5m&limit=100',
    `/api/v1/markets/${market.market_id}/snapshots?limit=1000`,
    `/v1/snapshots/at-timestamp?market=${market.market_id}&ts=${market.start_time + 123_456}`,
  ];
  for (const s of sides) s.client = new Client(s.server.url, { pipelining: 1 });
  try {
    for (let i = 0; i < WARMUP + count; i++) {
      const p = paths[i % paths.length];
      for (const s of sides) {
        const started = performance.now();
        const res = await s.client.request({ method: 'GET', path: p, headers: { 'x-api-key': key } });
        await res.body.text();
        const elapsed = performance.now() - started;
        if (res.statusCode !== 200) throw new Error(`${s.name}: GET ${p}: ${res.statusCode}`);
        if (i >= WARMUP) s.times.push(elapsed);
      }
    }
  } finally {
    await Promise.all(sides.map((s) => s.client.close()));
  }
}

function percentiles(list) {
  const times = [...list].sort((a, b) => a - b);
  const pct = (p) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))];
  return { p50: pct(50), p99: pct(99), max: times.at(-1), mean: times.reduce((a, b) => a + b, 0) / times.length };
}
