// RedisLimiter against a real throwaway redis-server: the same decisions as the in-process
// KeyLimiter bit for bit, and exact limits across connections. Its fail-closed outages (Redis
// stopped, restarted, frozen) are in test/redis-outage.test.ts, the end-to-end tier.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANONYMOUS_LIMITS, PLANS } from '../domain/plans.js';
import { mulberry32 } from '../random/prng.js';
import { announceRedisSkip, redisAvailable, ThrowawayRedis } from '../../test/support/throwaway-redis.js';
import type { Decision, LimitConfig } from './key-limiter.js';
import { createRedisLimiter, type RedisLimiter } from './redis-limiter.js';
import { LocalLimiter } from './shared-limiter.js';

const BUILDER: LimitConfig = { perMinute: PLANS.builder.requestsPerMinute!, burst: PLANS.builder.burstPerSecond! };
const PRO: LimitConfig = { perMinute: PLANS.pro.requestsPerMinute!, burst: PLANS.pro.burstPerSecond! };
const ANONYMOUS: LimitConfig = { perMinute: ANONYMOUS_LIMITS.requestsPerMinute, burst: ANONYMOUS_LIMITS.burstPerSecond };
const TINY: LimitConfig = { perMinute: 3, burst: 50 };
const T0 = 1_700_000_000_000;

const available = redisAvailable();
if (!available) announceRedisSkip('RedisLimiter suites of src/ratelimit/redis-limiter.test.ts');

/**
 * The next clock step for `keys` keys sharing the clock: on average each key asks about three
 * times its sustained rate (so both limits refuse), with bursts at one instant, fractional
 * milliseconds and steps back; every 1500th step is an idle gap longer than the window.
 */
function clockStep(rnd: () => number, config: LimitConfig, keys: number, step: number): number {
  if (step % 1500 === 1499) return 60_000 + Math.floor(rnd() * 30_000);
  const mean = (0.5 * 60_000) / config.perMinute / keys;
  const r = rnd();
  if (r < 0.3) return 0;
  if (r < 0.7) return Math.floor(rnd() * 2 * mean);
  if (r < 0.8) return rnd() * 2 * mean;
  if (r < 0.9) return -Math.floor(rnd() * 3 * mean) - 1;
  return Math.floor(rnd() * 8 * mean);
}

/** Admitted request times, sorted: the most that any 60 s window (t - 60 s, t] holds. */
function busiestMinute(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[start]! <= sorted[end]! - 60_000) start++;
    // Equal times after `end` belong to the same window.
    let last = end;
    while (last + 1 < sorted.length && sorted[last + 1] === sorted[end]) last++;
    most = Math.max(most, last - start + 1);
  }
  return most;
}

/** The earliest `t + 60 s` at or after `now` over the recent instants `seen`. */
function oneWindowAfter(seen: number[], now: number): number {
  let best = Infinity;
  for (let i = seen.length - 1; i >= 0 && seen[i]! > now - 120_000; i--) {
    if (seen[i]! + 60_000 >= now) best = Math.min(best, seen[i]! + 60_000);
  }
  return best;
}

async function limiterOn(url: string, prefix: string, extra: Parameters<typeof createRedisLimiter>[1] = {}): Promise<RedisLimiter> {
  return createRedisLimiter(url, { keyPrefix: `test:${prefix}:`, ...extra });
}

describe.skipIf(!available)('RedisLimiter on a shared Redis', () => {
  let server: ThrowawayRedis;
  const open: RedisLimiter[] = [];
  const limiter = async (prefix: string): Promise<RedisLimiter> => {
    const l = await limiterOn(server.url, prefix);
    open.push(l);
    return l;
  };

  beforeAll(async () => {
    server = await ThrowawayRedis.start();
  });
  afterAll(async () => {
    await Promise.all(open.map((l) => l.close()));
    await server?.destroy();
  });

  const runs: { name: string; configs: LimitConfig[]; seed: number }[] = [
    { name: 'builder', configs: [BUILDER], seed: 11 },
    { name: 'anonymous', configs: [ANONYMOUS], seed: 12 },
    { name: '3/min burst 50', configs: [TINY], seed: 13 },
    { name: 'builder and pro, switching (plan changes)', configs: [BUILDER, PRO], seed: 14 },
  ];
  for (const run of runs) {
    it(`makes the same decisions as LocalLimiter, field by field: ${run.name}`, async () => {
      const redis = await limiter(`eq${run.seed}`);
      const local = new LocalLimiter();
      const rnd = mulberry32(run.seed);
      const keys = ['k:1', 'a:10.0.0.1', 'a:::1'];
      const configOf = new Map(keys.map((k) => [k, run.configs[0]!]));
      const refusedBy = new Set<string | null>();
      let now = T0 + run.seed;
      const seen: number[] = [];
      for (let step = 0; step < 4000; step++) {
        const key = keys[Math.floor(rnd() * keys.length)]!;
        if (run.configs.length > 1 && rnd() < 0.01) configOf.set(key, run.configs[Math.floor(rnd() * run.configs.length)]!);
        const config = configOf.get(key)!;
        now += clockStep(rnd, config, keys.length, step);
        // Now and then land exactly one window after an earlier instant (the log's boundary),
        // when that is near: a long jump would only idle the key.
        const boundary = oneWindowAfter(seen, now);
        if (rnd() < 0.1 && boundary - now < 200) now = boundary;
        seen.push(now);
        const op = rnd() < 0.8 ? 'take' : 'peek';
        const want: Decision = await local[op](key, config, now);
        const got = await redis[op](key, config, now);
        expect(got, `seed ${run.seed}, step ${step}: ${op} ${key} at ${now}`).toEqual(want);
        refusedBy.add(want.refusedBy);
      }
      // The sequence exercised admissions and refusals by each limit that can refuse.
      expect(refusedBy).toContain(null);
      expect(refusedBy).toContain('minute');
      if (run.configs.some((c) => c.burst < c.perMinute)) expect(refusedBy).toContain('burst');
    });
  }

  it('matches LocalLimiter where refills sum to a hair under one token (0.9999999999999999)', async () => {
    const redis = await limiter('epsilon');
    const local = new LocalLimiter();
    // Anonymous (burst 5): ten refills of 20 ms from an empty bucket sum to just under 1, which
    // the bucket's epsilon counts as a whole token.
    const script: [op: 'take' | 'peek', at: number][] = [
      ...Array.from({ length: 6 }, (): ['take', number] => ['take', T0]),
      ...Array.from({ length: 10 }, (_, i): ['peek', number] => ['peek', T0 + 20 * (i + 1)]),
      ['take', T0 + 200],
      ['take', T0 + 200],
    ];
    const got = [];
    for (const [op, at] of script) {
      const want = await local[op]('a:1', ANONYMOUS, at);
      got.push(await redis[op]('a:1', ANONYMOUS, at));
      expect(got.at(-1), `${op} at ${at}`).toEqual(want);
    }
    expect(got.map((d) => d.admitted)).toEqual([true, true, true, true, true, false, ...Array(9).fill(false), true, true, false]);
  });

  it('admits exactly the burst of 200 concurrent requests from four connections at one instant', async () => {
    const limiters = await Promise.all([1, 2, 3, 4].map(() => limiter('atomic')));
    const all = await Promise.all(Array.from({ length: 200 }, (_, i) => limiters[i % 4]!.take('k:7', BUILDER, T0)));
    const admitted = all.filter((d) => d.admitted);
    expect(admitted).toHaveLength(BUILDER.burst);
    // Each admitted request took its own minute slot: no two saw the same count.
    expect(new Set(admitted.map((d) => d.remaining)).size).toBe(BUILDER.burst);
    expect(Math.min(...admitted.map((d) => d.remaining))).toBe(BUILDER.perMinute - BUILDER.burst);
    expect(all.filter((d) => !d.admitted).every((d) => d.refusedBy === 'burst' && d.retryAfterSec === 1)).toBe(true);
  });

  it('never lets a 60 s window hold more than the minute limit over a sustained overload from three connections', async () => {
    const limiters = await Promise.all([1, 2, 3].map(() => limiter('sustained')));
    const rnd = mulberry32(21);
    const admittedAt: number[] = [];
    // Three simulated minutes at 30 requests a second, seven times the builder's 250 a minute.
    for (let now = T0; now < T0 + 180_000; now += 100) {
      const ds = await Promise.all([0, 1, 2].map(() => limiters[Math.floor(rnd() * 3)]!.take('k:8', BUILDER, now)));
      for (const d of ds) if (d.admitted) admittedAt.push(now);
    }
    expect(busiestMinute(admittedAt)).toBe(BUILDER.perMinute);
    expect(admittedAt.length).toBeGreaterThanOrEqual(2 * BUILDER.perMinute);
  });

  it('starts a key afresh when its config changes, as LimiterRegistry does', async () => {
    const redis = await limiter('config');
    const local = new LocalLimiter();
    for (const l of [redis, local]) {
      for (let i = 0; i < BUILDER.burst; i++) expect((await l.take('k:9', BUILDER, T0)).admitted).toBe(true);
      expect((await l.take('k:9', BUILDER, T0)).refusedBy).toBe('burst');
      // Upgraded to pro: a full bucket and an empty minute.
      const upgraded = await l.take('k:9', PRO, T0);
      expect(upgraded).toMatchObject({ admitted: true, limit: PRO.perMinute, remaining: PRO.perMinute - 1, burst: PRO.burst });
      // And back: the builder state was dropped, not kept aside.
      expect(await l.take('k:9', BUILDER, T0)).toMatchObject({ admitted: true, remaining: BUILDER.perMinute - 1 });
    }
  });

  it('creates no key for a peek, and keeps a day-long window for a day', async () => {
    const redis = await limiter('peek');
    const day = { perMinute: 2, burst: 2, windowMs: 86_400_000 };
    expect((await redis.peek('d:s:10.0.0.1', day, T0)).admitted).toBe(true);
    const inspect = new Redis(server.port, '127.0.0.1');
    try {
      expect(await inspect.exists('test:peek:{d:s:10.0.0.1}')).toBe(0);
      await redis.take('d:s:10.0.0.1', day, T0);
      await redis.take('d:s:10.0.0.1', day, T0 + 1000);
      expect((await redis.take('d:s:10.0.0.1', day, T0 + 3_600_000)).admitted).toBe(false);
      expect((await redis.take('d:s:10.0.0.1', day, T0 + 86_400_001)).admitted).toBe(true);
      expect(await inspect.pttl('test:peek:{d:s:10.0.0.1}')).toBeGreaterThan(86_400_000);
    } finally {
      inspect.disconnect();
    }
  });

  it('keeps keys of different prefixes apart and gives every key an idle expiry', async () => {
    const a = await limiter('prefix-a');
    const b = await limiter('prefix-b');
    for (let i = 0; i < BUILDER.burst; i++) await a.take('k:10', BUILDER, T0);
    expect((await a.take('k:10', BUILDER, T0)).admitted).toBe(false);
    expect((await b.take('k:10', BUILDER, T0)).admitted).toBe(true);
    const inspect = new Redis(server.port, '127.0.0.1');
    try {
      const ttls = await Promise.all([inspect.pttl('test:prefix-a:{k:10}'), inspect.pttl('test:prefix-a:{k:10}:log')]);
      for (const ttl of ttls) {
        expect(ttl).toBeGreaterThan(60_000);
        expect(ttl).toBeLessThanOrEqual(10 * 60_000);
      }
    } finally {
      inspect.disconnect();
    }
  });
});
