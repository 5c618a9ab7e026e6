// How long to wait before retrying a GET that failed on the network or with a 5xx.

/** Retry delays: exponential with full jitter, bounded by `capMs`. */
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

/** The defaults: 250 ms doubling up to 8 s; five retries therefore sleep at most 0.25+0.5+1+2+4 = 7.75 s. */
export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 250, capMs: 8000 };

/**
 * Use for the delay before retry number `retry` (0-based): uniform in [0, min(cap, base * 2^retry)),
 * so clients that failed together do not come back together ("full jitter").
 */
export function backoffMs(retry: number, random: () => number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** Use for the delay a 429 imposes: never less than Retry-After, plus up to 10% (at least 100 ms) of jitter. */
export function rateLimitDelayMs(retryAfterSec: number, random: () => number): number {
  const base = Math.max(1, retryAfterSec) * 1000;
  return base + Math.floor(random() * Math.max(100, base / 10));
}

/** Use to read a `Retry-After` header: whole seconds or an HTTP date (relative to `now`); undefined when absent or bad. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
