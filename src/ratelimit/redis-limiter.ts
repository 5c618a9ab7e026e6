// Limits shared by every `msnap serve` instance on one Redis: each take/peek is one atomic Lua
// script (redis-limit.lua.ts) that makes exactly KeyLimiter's decision. Fails closed: while Redis
// cannot answer, take/peek reject at once with LimiterUnavailableError (never admit, never wait
// longer than the command timeout), and ioredis keeps reconnecting in the background.
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { UnreachableError } from '../errors.js';
import { WINDOW_MS, type Decision, type LimitConfig } from './key-limiter.js';
import { LIMIT_SCRIPT } from './redis-limit.lua.js';
import { RedisSlots } from './redis-slots.js';
import type { Slots } from './slots.js';
import { parseRedisUrl, type RedisTarget } from './redis-url.js';
import { LimiterUnavailableError, type SharedLimiter } from './shared-limiter.js';

/** Tuning of a RedisLimiter; the defaults suit a Redis on the same network. */
export interface RedisLimiterOptions {
  /** Prefix of every key written (default `msnap:rl:`), so tests and deployments can share a Redis. */
  keyPrefix?: string;
  /** A command not answered within this many ms fails (default 500): a hung Redis must not hang requests. */
  commandTimeoutMs?: number;
  /** Longest pause between reconnect attempts in ms (default 500). */
  maxReconnectDelayMs?: number;
  /** Idle keys vanish after this many ms (default 10 min, as LimiterRegistry's sweep); must exceed a minute. */
  idleTtlMs?: number;
  /** Told of every change of `healthy`, with a reason that never contains the URL. */
  onHealthChange?: (healthy: boolean, reason: string) => void;
}

const SCRIPT_SHA = createHash('sha1').update(LIMIT_SCRIPT).digest('hex');

/** Use for limits shared by several instances; build with `createRedisLimiter`. */
export class RedisLimiter implements SharedLimiter {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly idleTtlMs: number;
  private readonly retryDelayMs: number;
  private up = false;
  private closed = false;
  private probe: NodeJS.Timeout | undefined;
  /** Open streams per key, shared by every instance (`msnap:rl:slots:…`). */
  readonly slots: Slots;

  constructor(
    readonly target: RedisTarget,
    private readonly options: RedisLimiterOptions = {},
  ) {
    this.prefix = options.keyPrefix ?? 'msnap:rl:';
    this.idleTtlMs = options.idleTtlMs ?? 10 * 60_000;
    if (!(this.idleTtlMs > 60_000)) throw new RangeError('idleTtlMs must exceed the 60 s window');
    this.retryDelayMs = options.maxReconnectDelayMs ?? 500;
    const retryDelayMs = this.retryDelayMs;
    this.redis = new Redis({
      host: target.host,
      port: target.port,
      db: target.db,
      ...(target.username !== undefined ? { username: target.username } : {}),
      ...(target.password !== undefined ? { password: target.password } : {}),
      ...(target.tls ? { tls: { servername: target.host } } : {}),
      lazyConnect: true,
      // Fail fast instead of queueing while disconnected: a queued take would admit late or hang.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A script in flight when the connection dropped may have run; resending could charge twice.
      autoResendUnfulfilledCommands: false,
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: 1000,
      retryStrategy: (times: number) => Math.min(times * 50, retryDelayMs),
    });
    this.slots = new RedisSlots(this.redis, `${this.prefix}slots:`);
    this.redis.on('ready', () => this.markUp('connected'));
    // Listening to 'error' also keeps ioredis from printing each failed reconnect.
    this.redis.on('error', (err: Error) => this.markDown(err.message));
    this.redis.on('close', () => this.markDown('connection closed'));
  }

  get healthy(): boolean {
    return this.up;
  }

  /** Connect; resolves once Redis answers, rejects after `timeoutMs` (reconnecting goes on regardless). */
  async start(timeoutMs = 3000): Promise<void> {
    let lastError = 'no answer';
    const noteError = (err: Error): void => {
      lastError = err.message;
    };
    this.redis.on('error', noteError);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(lastError)), timeoutMs);
        this.redis.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
        this.redis.connect().catch(() => {});
      });
    } finally {
      this.redis.off('error', noteError);
    }
  }

  take(key: string, config: LimitConfig, now: number): Promise<Decision> {
    return this.decide(key, config, now, true);
  }

  peek(key: string, config: LimitConfig, now: number): Promise<Decision> {
    return this.decide(key, config, now, false);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.probe);
    this.up = false;
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }

  private async decide(key: string, config: LimitConfig, now: number, charge: boolean): Promise<Decision> {
    checkArgs(config, now);
    // While down, refuse without a round trip: the 'ready' event or the probe brings it back.
    if (!this.up) throw new LimiterUnavailableError('the Redis limiter is unavailable');
    const state = `${this.prefix}{${key}}`;
    const windowMs = config.windowMs ?? WINDOW_MS;
    // A key must outlive its window (a day for sign-ups), however short the idle TTL.
    const ttl = Math.max(this.idleTtlMs, windowMs + 60_000);
    const args = [state, `${state}:log`, String(now), String(config.perMinute), String(config.burst), charge ? '1' : '0', String(ttl), String(windowMs)];
    let reply: unknown;
    try {
      reply = await this.evalScript(args);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.markDown(reason);
      throw new LimiterUnavailableError(`the Redis limiter is unavailable: ${reason}`, { cause: err });
    }
    const [admitted, remaining, resetSec, waitMs, retryAfterSec, refusedBy] = reply as string[];
    return {
      admitted: admitted === '1',
      limit: config.perMinute,
      remaining: Number(remaining),
      resetSec: Number(resetSec),
      waitMs: Number(waitMs),
      retryAfterSec: Number(retryAfterSec),
      refusedBy: refusedBy === 'burst' || refusedBy === 'minute' ? refusedBy : null,
      burst: config.burst,
    };
  }

  /** EVALSHA, and EVAL once when Redis does not know the script (first use, or after a restart). */
  private async evalScript(args: string[]): Promise<unknown> {
    try {
      return await this.redis.evalsha(SCRIPT_SHA, 2, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return await this.redis.eval(LIMIT_SCRIPT, 2, ...args);
    }
  }

  private markUp(reason: string): void {
    clearTimeout(this.probe);
    this.probe = undefined;
    if (this.up || this.closed) return;
    this.up = true;
    this.options.onHealthChange?.(true, reason);
  }

  private markDown(reason: string): void {
    if (this.closed) return;
    // A failure on a live connection (timeout, error reply) gets no 'ready' event to end it:
    // ping until Redis answers. A dropped connection is ended by the reconnect's 'ready'.
    if (this.redis.status === 'ready' && this.probe === undefined) this.scheduleProbe();
    if (!this.up) return;
    this.up = false;
    this.options.onHealthChange?.(false, reason);
  }

  private scheduleProbe(): void {
    this.probe = setTimeout(() => {
      this.redis.ping().then(
        () => this.markUp('answering again'),
        () => {
          this.probe = undefined;
          if (this.redis.status === 'ready' && !this.closed) this.scheduleProbe();
        },
      );
    }, this.retryDelayMs);
    this.probe.unref();
  }
}

/** Positive integer minute limit and positive burst (as plans and `serve keys --rpm/--burst` give), a real clock: a caller's bug, not an outage. */
function checkArgs(c: LimitConfig, now: number): void {
  if (!Number.isSafeInteger(c.perMinute) || c.perMinute < 1 || !(c.burst > 0) || !Number.isFinite(c.burst)) {
    throw new RangeError(`invalid limits: ${c.perMinute}/min, burst ${c.burst}/s`);
  }
  if (!Number.isFinite(now)) throw new RangeError(`invalid clock reading: ${now}`);
}

/** Use to build the limiter for `--limiter redis://…`: a bad URL or a Redis that does not answer at start is a one-line error. */
export async function createRedisLimiter(url: string, options: RedisLimiterOptions & { connectTimeoutMs?: number } = {}): Promise<RedisLimiter> {
  const target = parseRedisUrl(url);
  const limiter = new RedisLimiter(target, options);
  try {
    await limiter.start(options.connectTimeoutMs);
  } catch (err) {
    await limiter.close();
    const reason = err instanceof Error ? err.message : String(err);
    throw new UnreachableError(`cannot reach Redis at ${target.display}: ${reason}`, 'start Redis or check MSNAP_REDIS_URL / --limiter');
  }
  return limiter;
}
