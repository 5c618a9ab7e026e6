// A scaled-out serve depends on PostgreSQL and Redis. While either cannot be reached, requests
// get a 503 JSON error with Retry-After (never a 500, never admitted without being counted),
// the public health routes say which backend is down, and the log says so once per outage.
import type { Decision, LimitConfig } from '../ratelimit/key-limiter.js';
import { LimiterUnavailableError } from '../ratelimit/shared-limiter.js';
import { StoreUnavailableError, type Store } from '../store/store.js';
import { HttpException } from './http-error.js';
import type { RateLimits } from './rate-limit.js';

/** The 503 for an unreachable store or limiter; undefined for any other error. */
export function unavailableError(err: unknown): HttpException | undefined {
  if (!(err instanceof StoreUnavailableError) && !(err instanceof LimiterUnavailableError)) return undefined;
  const s = Math.max(1, err.retryAfterSec);
  const what = err instanceof StoreUnavailableError ? 'its database' : 'its rate limiter';
  return new HttpException(
    503,
    `The service is temporarily unavailable: ${what} cannot be reached; retry in ${s} second${s === 1 ? '' : 's'}.`,
    { retry_after: s },
    { 'Retry-After': String(s) },
    { kind: 'unavailable' },
  );
}

/** The rate-limit headers of an answer the limiter could not decide: no slot left, look again in a second. */
export function unknownDecision(config: LimitConfig, at: number): Decision {
  return {
    admitted: false,
    limit: config.perMinute,
    remaining: 0,
    resetSec: Math.ceil((at + 1000) / 1000),
    waitMs: 1000,
    retryAfterSec: 1,
    refusedBy: null,
    burst: config.burst,
  };
}

/** Use in the public health routes: which backends cannot be reached right now. */
export async function backendsDown(store: Store, limits: RateLimits): Promise<string[]> {
  const down: string[] = [];
  if (store.ping) {
    try {
      await store.ping();
    } catch {
      down.push('store');
    }
  }
  if (!limits.healthy) down.push('limiter');
  return down;
}

/** One log line when an outage begins and one when service is back, not one per refused request. */
export class OutageLog {
  private down = false;

  constructor(private readonly log: (line: string) => void) {}

  failed(err: unknown): void {
    if (this.down) return;
    this.down = true;
    this.log(`msnap serve: answering 503: ${err instanceof Error ? err.message : String(err)}`);
  }

  recovered(): void {
    if (!this.down) return;
    this.down = false;
    this.log('msnap serve: backends reachable again; serving normally');
  }
}
