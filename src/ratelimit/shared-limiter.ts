// The limiter as the server sees it: asynchronous, so the limits can live in a shared backend
// (Redis) that several `msnap serve` instances charge atomically, or in this process.
import type { Decision, LimitConfig } from './key-limiter.js';
import { LimiterRegistry } from './limiter-registry.js';
import { LocalSlots, type Slots } from './slots.js';

/** Use for rate limiting in the server, whatever the backend; one instance per app. */
export interface SharedLimiter {
  /** Check and, when both limits allow, charge one request under `key` (e.g. `k:42`, `a:10.0.0.1`). */
  take(key: string, config: LimitConfig, now: number): Promise<Decision>;
  /** The decision take would make, without charging. */
  peek(key: string, config: LimitConfig, now: number): Promise<Decision>;
  /** False after the backend failed and until it answers again (health reports it). */
  readonly healthy: boolean;
  /** Open streams per key, counted in the same place as the limits. */
  readonly slots: Slots;
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
  // API keys (`k:`) exist only in the store; every other key (an address, a name) is the client's
  // to choose, so those live apart and a flood of them cannot push a key's limiter out.
  private readonly keys = new LimiterRegistry<string>(undefined, 200_000);
  private readonly others: LimiterRegistry<string>;
  readonly healthy = true;
  readonly slots: Slots = new LocalSlots();

  constructor(opts: { maxEntries?: number } = {}) {
    this.others = new LimiterRegistry<string>(undefined, opts.maxEntries);
  }

  /** Limiters held now (tests check that refusals add none). */
  get size(): number {
    return this.keys.size + this.others.size;
  }

  async take(key: string, config: LimitConfig, now: number): Promise<Decision> {
    return this.registry(key).take(key, config, now);
  }

  async peek(key: string, config: LimitConfig, now: number): Promise<Decision> {
    return this.registry(key).peek(key, config, now);
  }

  async close(): Promise<void> {}

  private registry(key: string): LimiterRegistry<string> {
    return key.startsWith('k:') ? this.keys : this.others;
  }
}
