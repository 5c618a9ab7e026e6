// KeyLimiters by key (a key id, a client address, an account name): created on first charge,
// dropped when idle, and never more than a fixed number of them, least recently used first out,
// so no stream of distinct client-chosen keys can grow the process without bound. Looking a key
// up without charging it (peek) creates nothing.
import { KeyLimiter, type Decision, type LimitConfig } from './key-limiter.js';

/** Default cap on limiters held by one registry: a few MB at the anonymous limits. */
const DEFAULT_MAX_LIMITERS = 20_000;

/** Use one per kind of key; `take`/`peek` decide as the key's KeyLimiter would. */
export class LimiterRegistry<K> {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  private readonly limiters = new Map<K, { limiter: KeyLimiter; seen: number }>();

  constructor(
    private readonly maxIdleMs = 10 * 60_000,
    readonly maxEntries = DEFAULT_MAX_LIMITERS,
  ) {}

  /** How many limiters are held now. */
  get size(): number {
    return this.limiters.size;
  }

  /** Check and charge one request under `key`; a refusal charges nothing and creates nothing. */
  take(key: K, config: LimitConfig, now: number): Decision {
    const held = this.current(key, config, now);
    if (held) return held.take(now);
    const fresh = new KeyLimiter(config, now);
    const d = fresh.take(now);
    if (d.admitted) this.insert(key, fresh, now);
    return d;
  }

  /** The decision `take` would make, without charging or creating anything. */
  peek(key: K, config: LimitConfig, now: number): Decision {
    return (this.current(key, config, now) ?? new KeyLimiter(config, now)).peek(now);
  }

  /** The held limiter of `key` when its config still matches (a plan change starts afresh). */
  private current(key: K, config: LimitConfig, now: number): KeyLimiter | undefined {
    const slot = this.limiters.get(key);
    if (!slot) return undefined;
    const c = slot.limiter.config;
    if (c.perMinute !== config.perMinute || c.burst !== config.burst || c.windowMs !== config.windowMs) {
      this.limiters.delete(key);
      return undefined;
    }
    this.limiters.delete(key);
    slot.seen = now;
    this.limiters.set(key, slot);
    return slot.limiter;
  }

  private insert(key: K, limiter: KeyLimiter, now: number): void {
    this.limiters.set(key, { limiter, seen: now });
    if (this.limiters.size % 1024 === 0) this.sweep(now);
    for (const oldest of this.limiters.keys()) {
      if (this.limiters.size <= this.maxEntries) break;
      this.limiters.delete(oldest);
    }
  }

  /** Forget limiters idle for longer than a window plus margin (their state is empty by then). */
  sweep(now: number): void {
    for (const [key, slot] of this.limiters) {
      if (now - slot.seen > Math.max(this.maxIdleMs, slot.limiter.windowMs)) this.limiters.delete(key);
    }
  }
}
