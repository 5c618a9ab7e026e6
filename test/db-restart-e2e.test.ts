// Database restarts, end to end: a built `msnap serve` on a throwaway PostgreSQL (and a throwaway
// Redis as its limiter) answers 503 while a backend is down and, once it is back, the very next
// request answers within a couple of seconds: dead pooled connections are dropped and replaced,
// and no call waits on a backend longer than its timeouts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, msnap, startServe, type Served } from './support/msnap-process.js';
import { until } from './support/until.js';
import { skipWithoutPostgres, startThrowawayPostgres, type ThrowawayPostgres } from './support/throwaway-postgres.js';
import { announceRedisSkip, redisAvailable, ThrowawayRedis } from './support/throwaway-redis.js';

const SUITE = 'database restarts (serve on PostgreSQL + Redis)';
const noPostgres = skipWithoutPostgres(SUITE);
const noRedis = !redisAvailable();
if (noRedis) announceRedisSkip(SUITE);
/** The first request after a backend is back must answer within this many ms. */
const RECOVERY_MS = 2000;

describe.skipIf(noPostgres || noRedis)(SUITE, { timeout: 120_000 }, () => {
  let dir: string;
  let pg: ThrowawayPostgres;
  let redis: ThrowawayRedis;
  let served: Served;
  let key: string;

  beforeAll(async () => {
    await buildIfStale();
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-restart-'));
    [pg, redis] = await Promise.all([startThrowawayPostgres(), ThrowawayRedis.start()]);
    const r = await msnap(['serve', 'keys', 'create', '--db', pg.url, '--account', 'a', '--plan', 'enterprise', '--rpm', '100000', '--burst', '1000'], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    key = String(r.stdout).trim();
    served = await startServe(pg.url, { args: ['--limiter', redis.url] });
  }, 120_000);

  afterAll(async () => {
    await served?.stop();
    await Promise.all([pg?.destroy(), redis?.destroy()]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** One request: status and how long it took. */
  async function timed(p = '/api/v1/markets?limit=1'): Promise<{ status: number; ms: number }> {
    const t0 = performance.now();
    const res = await fetch(`${served.url}${p}`, { headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(15_000) });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t0 };
  }

  it(`PostgreSQL stopped (fast) and started again: 503 meanwhile, then the next request answers within ${RECOVERY_MS} ms`, async () => {
    // Fill the pool with live connections first.
    await Promise.all(Array.from({ length: 12 }, () => timed()));
    await pg.stop();
    const during = await timed();
    expect(during.status).toBe(503);
    expect(during.ms).toBeLessThan(RECOVERY_MS);
    // Requests keep coming while it is down (a load balancer's, a client's retries).
    let hammering = true;
    const seen: number[] = [];
    const background = (async () => {
      while (hammering) seen.push((await timed()).status);
    })();
    // Restart once a few of them have been answered while it is down, not after a guessed time.
    await until(() => seen.length >= 5, 'requests answered while PostgreSQL is down');
    await pg.restart();
    const first = await timed();
    hammering = false;
    await background;
    expect(seen.filter((st) => st !== 200 && st !== 503)).toEqual([]);
    console.log(`first request after PostgreSQL restart: ${first.status} in ${first.ms.toFixed(0)} ms`);
    expect(first.status).toBe(200);
    expect(first.ms).toBeLessThan(RECOVERY_MS);
    expect(served.output()).not.toMatch(/\b500\b/);
  });

  it(`Redis stopped and started again: 503 meanwhile, then the next request answers within ${RECOVERY_MS} ms`, async () => {
    await Promise.all(Array.from({ length: 4 }, () => timed()));
    await redis.stop({ keepData: true });
    const during = await timed();
    expect(during.status).toBe(503);
    await redis.restart();
    const t0 = performance.now();
    // The limiter reconnects in the background (within its reconnect delay): poll briefly.
    let last = await timed();
    while (last.status !== 200 && performance.now() - t0 < RECOVERY_MS) last = await timed();
    console.log(`after Redis restart: ${last.status} in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(last.status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(RECOVERY_MS);
  });
});
