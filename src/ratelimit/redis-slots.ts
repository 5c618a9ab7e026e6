// Slots in Redis: one sorted set per key, members scored by when their hold expires. Taking a
// hold is one atomic script (drop expired holds, count, add), so instances racing for the last
// slot cannot both get it.
import type { Redis } from 'ioredis';
import { LimiterUnavailableError } from './shared-limiter.js';
import type { Slots } from './slots.js';

const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[4]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/** Use through RedisLimiter.slots: holds shared by every instance on the same Redis. */
export class RedisSlots implements Slots {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async acquire(key: string, member: string, max: number, now: number, ttlMs: number): Promise<boolean> {
    let reply: unknown;
    try {
      reply = await this.redis.eval(ACQUIRE, 1, this.prefix + key, String(now), member, String(max), String(ttlMs));
    } catch (err) {
      // As a take that cannot reach Redis: refused (503), never admitted uncounted.
      throw new LimiterUnavailableError(`the Redis limiter is unavailable: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return Number(reply) === 1;
  }

  async renew(key: string, members: readonly string[], now: number, ttlMs: number): Promise<void> {
    if (members.length === 0) return;
    const k = this.prefix + key;
    // XX: a hold that expired meanwhile (Redis was away) is not brought back over the cap.
    await this.redis.multi().zadd(k, 'XX', ...members.flatMap((m) => [String(now + ttlMs), m])).pexpire(k, ttlMs).exec();
  }

  async release(key: string, member: string): Promise<void> {
    await this.redis.zrem(this.prefix + key, member);
  }
}
