// Both limits of one key (or one anonymous address): admitted only if the token bucket and
// the sliding minute log both allow; then both are charged, in one synchronous step.
import { append, entry, expire, logWaitMs, newLog, type SlidingLog } from './sliding-log.js';
import { bucketWaitMs, newBucket, refill, type TokenBucket } from './token-bucket.js';

export const WINDOW_MS = 60_000;

/** Limits of one key: requests per sliding minute and token-bucket burst per second. */
export interface LimitConfig {
  /** Requests per window (a minute unless `windowMs` says otherwise). */
  perMinute: number;
  burst: number;
  /** The sliding window in ms (default a minute; the dashboard's sign-ups per day use a day). */
  windowMs?: number;
}

/** The outcome of one check, with everything the rate-limit headers need. */
export interface Decision {
  admitted: boolean;
  /** X-RateLimit-Limit: the per-minute limit. */
  limit: number;
  /** X-RateLimit-Remaining: minute slots left after this request. */
  remaining: number;
  /** X-RateLimit-Reset: epoch seconds (rounded up) when the oldest request leaves the window; now if empty. */
  resetSec: number;
  /** Milliseconds until both limits would admit a request (0 when admitted). */
  waitMs: number;
  /** Retry-After: whole seconds >= 1 when rejected, 0 when admitted. */
  retryAfterSec: number;
  /** The limit that refused: `minute` when the sliding window did (alone or with the bucket); null when admitted. */
  refusedBy: 'burst' | 'minute' | null;
  /** The token bucket's capacity (requests per second). */
  burst: number;
}

/** Use one per key; `take(now)` checks and charges, `peek(now)` only checks. */
export class KeyLimiter {
  private bucket: TokenBucket;
  private log: SlidingLog;
  private latest: number;
  /** The sliding window of this limiter in ms. */
  readonly windowMs: number;

  constructor(readonly config: LimitConfig, now: number) {
    this.windowMs = config.windowMs ?? WINDOW_MS;
    this.bucket = newBucket(config.burst, now);
    this.log = newLog(config.perMinute);
    this.latest = now;
  }

  /** Check and, when both limits allow, charge. A rejection charges nothing. */
  take(now: number): Decision {
    return this.decide(now, true);
  }

  /** The decision `take` would make, without charging. */
  peek(now: number): Decision {
    return this.decide(now, false);
  }

  private decide(rawNow: number, charge: boolean): Decision {
    // A clock that moves backwards is treated as standing still: it grants nothing.
    const now = Math.max(rawNow, this.latest);
    this.latest = now;
    const { perMinute, burst } = this.config;
    refill(this.bucket, burst, burst, now);
    expire(this.log, this.windowMs, now);
    const bucketWait = bucketWaitMs(this.bucket, burst);
    const logWait = logWaitMs(this.log, perMinute, this.windowMs, now);
    const waitMs = Math.max(bucketWait, logWait);
    const admitted = waitMs <= 0;
    if (admitted && charge) {
      this.bucket.tokens -= 1;
      append(this.log, now);
    }
    const used = this.log.size + (admitted && !charge ? 1 : 0);
    const resetMs = this.log.size > 0 ? entry(this.log, 0) + this.windowMs : now;
    return {
      admitted,
      limit: perMinute,
      remaining: Math.max(0, perMinute - used),
      resetSec: Math.ceil(resetMs / 1000),
      waitMs: admitted ? 0 : waitMs,
      retryAfterSec: admitted ? 0 : Math.max(1, Math.ceil(waitMs / 1000)),
      refusedBy: admitted ? null : logWait > 0 ? 'minute' : 'burst',
      burst,
    };
  }
}
