// The shortest time in which N requests can be admitted under a key's two limits: replay the
// server's own KeyLimiter at perfect timing (each request sent the very millisecond it would be
// admitted) and read the admission time of the last one. The pacing figure divides by this.
import { KeyLimiter } from '../dist/ratelimit/key-limiter.js';

/** Milliseconds from the first to the n-th admitted request under `{ perMinute, burst }`, greedy schedule. */
export function pacingMinimumMs(n, limits) {
  const limiter = new KeyLimiter({ perMinute: limits.perMinute, burst: limits.burst }, 0);
  let now = 0;
  for (let i = 0; i < n; i++) {
    for (;;) {
      const decision = limiter.take(now);
      if (decision.admitted) break;
      now += Math.max(1, decision.waitMs);
    }
  }
  return now;
}
