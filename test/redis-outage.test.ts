// RedisLimiter when Redis goes away, against a real throwaway redis-server: stopped, restarted
// empty, frozen (SIGSTOP); every take refuses promptly (fail closed) and the limiter recovers by
// itself, granting nothing extra. In test/, the end-to-end tier: it stops, restarts and freezes a
// server process, an integration test by nature, not a unit of the inner loop.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PLANS } from '../src/domain/plans.js';
import type { LimitConfig } from '../src/ratelimit/key-limiter.js';
import { createRedisLimiter, type RedisLimiter } from '../src/ratelimit/redis-limiter.js';
import { LimiterUnavailableError } from '../src/ratelimit/shared-limiter.js';
import { announceRedisSkip, redisAvailable, ThrowawayRedis } from './support/throwaway-redis.js';

const BUILDER: LimitConfig = { perMinute: PLANS.builder.requestsPerMinute!, burst: PLANS.builder.burstPerSecond! };
const T0 = 1_700_000_000_000;

const available = redisAvailable();
if (!available) announceRedisSkip('RedisLimiter outage suite of test/redis-outage.test.ts');

describe.skipIf(!available)('RedisLimiter when Redis goes away', () => {
  let server: ThrowawayRedis;
  let limiter: RedisLimiter;
  const changes: boolean[] = [];

  beforeAll(async () => {
    server = await ThrowawayRedis.start();
    limiter = await createRedisLimiter(server.url, { keyPrefix: 'test:outage:', onHealthChange: (healthy) => changes.push(healthy) });
  });
  afterAll(async () => {
    await limiter?.close();
    await server?.destroy();
  });

  /** Rejections must be prompt; the bound is loose because the machine is shared, the point is "never hangs". */
  async function expectUnavailable(at: number): Promise<void> {
    const started = performance.now();
    const err = await limiter.take('k:1', BUILDER, at).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LimiterUnavailableError);
    expect((err as LimiterUnavailableError).retryAfterSec).toBe(1);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(limiter.healthy).toBe(false);
  }

  async function admittedOf(n: number, at: number): Promise<number> {
    const ds = await Promise.all(Array.from({ length: n }, () => limiter.take('k:1', BUILDER, at)));
    return ds.filter((d) => d.admitted).length;
  }

  it('refuses while Redis is stopped, recovers by itself, and admits nothing extra afterwards', async () => {
    expect(limiter.healthy).toBe(true);
    expect(await admittedOf(20, T0)).toBe(BUILDER.burst);
    await server.stop({ keepData: true });
    for (let i = 0; i < 5; i++) await expectUnavailable(T0 + 1000);
    await server.restart();
    await vi.waitFor(() => expect(limiter.healthy).toBe(true), { timeout: 15_000, interval: 50 });
    // The bucket emptied at T0 is still empty: the outage granted nothing.
    expect(await admittedOf(20, T0)).toBe(0);
    // A second later it has refilled to exactly one burst, and no refused take was charged.
    const after = await Promise.all(Array.from({ length: 20 }, () => limiter.take('k:1', BUILDER, T0 + 1000)));
    expect(after.filter((d) => d.admitted)).toHaveLength(BUILDER.burst);
    expect(Math.min(...after.filter((d) => d.admitted).map((d) => d.remaining))).toBe(BUILDER.perMinute - 2 * BUILDER.burst);
    expect(changes).toEqual([true, false, true]);
  });

  it('recovers after Redis restarts empty (its data lost), with the limits holding again', async () => {
    await server.stop();
    await expectUnavailable(T0 + 2000);
    await server.restart();
    await vi.waitFor(() => expect(limiter.healthy).toBe(true), { timeout: 15_000, interval: 50 });
    expect(await admittedOf(20, T0 + 2000)).toBe(BUILDER.burst);
  });

  it('times out against a frozen Redis instead of hanging, and recovers when it thaws', async () => {
    server.pause();
    try {
      await expectUnavailable(T0 + 3000);
      // And keeps refusing while it stays frozen.
      await expectUnavailable(T0 + 3000);
    } finally {
      server.resume();
    }
    await vi.waitFor(() => expect(limiter.healthy).toBe(true), { timeout: 15_000, interval: 50 });
    // The take that timed out may have run late: then it used a token, never more than the burst.
    expect(await admittedOf(20, T0 + 3000)).toBeLessThanOrEqual(BUILDER.burst);
    expect(await admittedOf(20, T0 + 3000)).toBe(0);
  });
});
