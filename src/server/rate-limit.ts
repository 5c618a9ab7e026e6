// Rate-limit middleware: one KeyLimiter per key id (the account's plan limits) and one per client
// address for requests without a valid key; every response carries the decision as headers.
import { ANONYMOUS_LIMITS, ENTERPRISE_DEFAULT_LIMITS, PLANS } from '../domain/plans.js';
import { LimiterRegistry, type Decision, type LimitConfig } from '../ratelimit/key-limiter.js';
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

/** Use one per app: the limiters of keys and of anonymous addresses. */
export class RateLimits {
  private readonly keys = new LimiterRegistry<number>();
  private readonly addresses = new LimiterRegistry<string>();

  /** Check and charge one request of `account`'s key `keyId`. */
  takeKey(keyId: number, account: Account, now: number): Decision {
    return this.keys.get(keyId, limitsFor(account), now).take(now);
  }

  /** Check and charge one request without a valid key from `address`. */
  takeAddress(address: string, now: number): Decision {
    return this.addresses.get(address, ANONYMOUS_CONFIG, now).take(now);
  }

  /** The headers of `address`'s limiter without charging (for answers that charge nothing). */
  peekAddress(address: string, now: number): Decision {
    return this.addresses.get(address, ANONYMOUS_CONFIG, now).peek(now);
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
