// Open streams per key across instances: two servers, each with its own connection to one real
// Redis (`serve --limiter`), share a builder key's two stream slots; a slot of an instance that
// died frees itself after its time to live.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStream } from '../../test/support/stream-client.js';
import { announceRedisSkip, redisAvailable, ThrowawayRedis } from '../../test/support/throwaway-redis.js';
import { until } from '../../test/support/until.js';
import { hashApiKey } from '../accounts/api-key.js';
import { createRedisLimiter, type RedisLimiter } from '../ratelimit/redis-limiter.js';
import { wallClock } from '../replay/server-clock.js';
import { createApp } from '../server/app.js';
import { startServer, type RunningServer } from '../server/listen.js';
import { fixtureStore } from '../server/test-support/fixture.js';
import { StreamHub } from './stream-hub.js';

const available = redisAvailable();
if (!available) announceRedisSkip('stream slots on Redis (src/stream/stream-slots.test.ts)');

describe.skipIf(!available)('stream slots shared through Redis', () => {
  let redis: ThrowawayRedis;
  const limiters: RedisLimiter[] = [];
  const servers: { server: RunningServer; hub: StreamHub }[] = [];

  async function instance(prefix: string) {
    const store = fixtureStore();
    const limiter = await createRedisLimiter(redis.url, { keyPrefix: `test:${prefix}:` });
    limiters.push(limiter);
    const clock = wallClock('live', Date.now);
    const hub = new StreamHub({ store, clock, visibleThrough: () => 0, wall: Date.now, limiter, hashKey: hashApiKey, log: () => undefined, every: () => () => undefined });
    const server = await startServer({ app: createApp({ store, limiter, version: '1.0.0' }), host: '127.0.0.1', port: 0, upgrade: hub.upgrade });
    servers.push({ server, hub });
    return server;
  }

  beforeAll(async () => {
    redis = await ThrowawayRedis.start();
  });

  afterAll(async () => {
    for (const { server, hub } of servers) await Promise.all([hub.close(), server.close()]);
    for (const l of limiters) await l.close();
    await redis?.destroy();
  });

  it('a builder key holds two streams over both instances; a closed one frees its slot', async () => {
    const a = await instance('shared');
    const b = await instance('shared');
    const first = openStream(a.url, { token: 'key-builder' });
    const second = openStream(b.url, { token: 'key-builder' });
    await Promise.all([first.opened, second.opened]);
    const third = openStream(a.url, { token: 'key-builder' });
    await third.opened;
    expect((await third.waitClosed()).code).toBe(4008);
    // Another key of the same plan has its own slots.
    const other = openStream(b.url, { token: 'key-builder-2' });
    await other.opened;
    second.ws.close();
    await second.waitClosed();
    // The release reaches Redis just after the close: a new stream on A gets the slot once it has.
    const hubA = servers.at(-2)!.hub;
    let fourth = openStream(a.url, { token: 'key-builder' });
    await until(async () => {
      await fourth.opened;
      await until(() => fourth.closed !== undefined || hubA.size === 2, 'the new stream attached or refused');
      if (fourth.closed === undefined) return true;
      fourth = openStream(a.url, { token: 'key-builder' });
      return false;
    }, 'a freed slot', 5000);
    expect(fourth.closed).toBeUndefined();
    expect(other.closed).toBeUndefined();
  });

  it('an instance that died holds its slots only until they expire', async () => {
    const limiter = await createRedisLimiter(redis.url, { keyPrefix: 'test:expiry:' });
    limiters.push(limiter);
    const t = Date.now();
    expect(await limiter.slots.acquire('s:1', 'dead:1', 1, t, 90_000)).toBe(true);
    expect(await limiter.slots.acquire('s:1', 'alive:1', 1, t + 89_999, 90_000)).toBe(false);
    expect(await limiter.slots.acquire('s:1', 'alive:1', 1, t + 90_000, 90_000)).toBe(true);
  });
});
