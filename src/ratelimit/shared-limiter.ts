// The limiter the server charges requests to, behind one asynchronous interface: in-process
// (LocalLimiter, the default) or shared by every instance through Redis (redis-limiter.ts).
import { LimiterRegistry, type Decision, type LimitConfig } from './key-limiter.js';

/** Use one per server: every key (`k:42`) and anonymous address (`a:10.0.0.1`) has its own limits. */
export interface SharedLimiter {
  /** Check and, when both limits allow, charge one request under `key`. */
  take(key: string, config: LimitConfig, now: number): Promise<Decision>;
  /** The decision take would make, without charging. */
  peek(key: string, config: LimitConfig, now: number): Promise<Decision>;
  /** False after the backend failed and until it answers again (health reports it). */
  readonly healthy: boolean;
  close(): Promise<void>;
}

/** Thrown by take/peek when the backend cannot be reached: the request is refused (fail closed). */
export class LimiterUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryAfterSec = 1,
  ) {
    super(message);
    this.name = 'LimiterUnavailableError';
  }
}

/** The in-process limiter: one KeyLimiter per key, decisions at once. */
export class LocalLimiter implements SharedLimiter {
  readonly healthy = true;
  private readonly registry = new LimiterRegistry<string>();

  take(key: string, config: LimitConfig, now: number): Promise<Decision> {
    return Promise.resolve(this.registry.get(key, config, now).take(now));
  }

  peek(key: string, config: LimitConfig, now: number): Promise<Decision> {
    return Promise.resolve(this.registry.get(key, config, now).peek(now));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
