// Rate-limit middleware: one limit per key id (the account's plan limits) and one per client
// address for requests without a valid key, in-process or shared through Redis; every response
// carries the decision as headers.
import { ANONYMOUS_LIMITS, ENTERPRISE_DEFAULT_LIMITS, PLANS } from '../domain/plans.js';
import type { Decision, LimitConfig } from '../ratelimit/key-limiter.js';
import { LocalLimiter, type SharedLimiter } from '../ratelimit/shared-limiter.js';
import type { Account } from '../store/store.js';
import { HttpException } from './http-error.js';

/** The per-key limits of an account: its own numbers when set, else its plan's, else enterprise defaults. */
export function limitsFor(account: Account): LimitConfig {
  const plan = PLANS[account.plan];
  return {
    perMinute: account.requestsPerMinute ?? plan.requestsPerMinute ?? ENTERPRISE_DEFAULT_LIMITS.requestsPerMinute,
    burst: account.burstPerSecond ?? plan.burstPerSecond ?? ENTERPRISE_DEFAULT_LIMITS.burstPerSecond,
  };
}

/** Limits of requests that carry no valid key, per client address. */
export const ANONYMOUS_CONFIG: LimitConfig = {
  perMinute: ANONYMOUS_LIMITS.requestsPerMinute,
  burst: ANONYMOUS_LIMITS.burstPerSecond,
};

/**
 * Limits of the keyless health routes per client address, apart from failed-key requests: a load
 * balancer probing every second (or several probing together) never meets a 429.
 */
export const HEALTH_CONFIG: LimitConfig = { perMinute: 600, burst: 30 };

/** Use one per app: the limits of keys and of anonymous addresses, over one (local or shared) limiter. */
export class RateLimits {
  constructor(private readonly limiter: SharedLimiter = new LocalLimiter()) {}

  /** Check and charge one request of `account`'s key `keyId`. */
  takeKey(keyId: number, account: Account, now: number): Promise<Decision> {
    return this.limiter.take(`k:${keyId}`, limitsFor(account), now);
  }

  /** Check and charge one request without a valid key from `address`. */
  takeAddress(address: string, now: number): Promise<Decision> {
    return this.limiter.take(`a:${address}`, ANONYMOUS_CONFIG, now);
  }

  /** Check and charge one health probe from `address` (its own allowance, not the failed-key one). */
  takeHealth(address: string, now: number): Promise<Decision> {
    return this.limiter.take(`h:${address}`, HEALTH_CONFIG, now);
  }

  /** Requests of key `keyId` in the current sliding minute, without charging (the dashboard shows it). */
  async keyUsage(keyId: number, account: Account, now: number): Promise<{ used: number; limit: number }> {
    const d = await this.limiter.peek(`k:${keyId}`, limitsFor(account), now);
    // peek's `remaining` already counts the request it would admit.
    return { used: d.limit - d.remaining - (d.admitted ? 1 : 0), limit: d.limit };
  }

  /** The headers of `address`'s limiter without charging (for answers that charge nothing). */
  peekAddress(address: string, now: number): Promise<Decision> {
    return this.limiter.peek(`a:${address}`, ANONYMOUS_CONFIG, now);
  }

  /** False while a shared limiter cannot reach its backend (requests are refused meanwhile). */
  get healthy(): boolean {
    return this.limiter.healthy;
  }
}

/** The rate-limit headers every response carries. */
export function rateLimitHeaders(d: Decision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.resetSec),
  };
}

/** The 429 for a rejected decision: `Retry-After` header and `retry_after` field agree. */
export function tooManyRequests(d: Decision, who: string): HttpException {
  const s = d.retryAfterSec;
  return new HttpException(
    429,
    `Rate limit exceeded for ${who}; retry in ${s} second${s === 1 ? '' : 's'}.`,
    { retry_after: s },
    { 'Retry-After': String(s) },
    {
      kind: 'rate_limited',
      rate:
        d.refusedBy === 'burst'
          ? { retryAfter: s, limit: d.burst, window: 'second' }
          : { retryAfter: s, limit: d.limit, window: 'minute' },
    },
  );
}
