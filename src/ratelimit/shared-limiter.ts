// The limiter as the server sees it: asynchronous, so the limits can live in a shared backend
// (Redis) that several `msnap serve` instances charge atomically, or in this process.
import { LimiterRegistry, type Decision, type LimitConfig } from './key-limiter.js';

/** Use for rate limiting in the server, whatever the backend; one instance per app. */
export interface SharedLimiter {
  /** Check and, when both limits allow, charge one request under `key` (e.g. `k:42`, `a:10.0.0.1`). */
  take(key: string, config: LimitConfig, now: number): Promise<Decision>;
  /** The decision take would make, without charging. */
  peek(key: string, config: LimitConfig, now: number): Promise<Decision>;
  /** False after the backend failed and until it answers again (health reports it). */
  readonly healthy: boolean;
  /** Release connections and timers; take/peek fail afterwards. */
  close(): Promise<void>;
}

/** Thrown by take/peek when the backend cannot be reached: the request must be refused (503), never admitted. */
export class LimiterUnavailableError extends Error {
  /** Retry-After for the 503: the backend reconnects within about a second. */
  readonly retryAfterSec = 1;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LimiterUnavailableError';
  }
}

/** Use for a single instance (the default): KeyLimiters in this process, today's exact decisions. */
export class LocalLimiter implements SharedLimiter {
  private readonly limiters = new LimiterRegistry<string>();
  readonly healthy = true;

  async take(key: string, config: LimitConfig, now: number): Promise<Decision> {
    return this.limiters.get(key, config, now).take(now);
  }

  async peek(key: string, config: LimitConfig, now: number): Promise<Decision> {
    return this.limiters.get(key, config, now).peek(now);
  }

  async close(): Promise<void> {}
}
