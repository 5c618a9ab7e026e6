// Burst limit: a token bucket of `capacity` tokens refilled continuously at `perSecond`.
// Pure state + functions over an explicit `now`, so the server and the client pacer share it
// and tests move time by hand.

/** Bucket state; create with `newBucket`. */
export interface TokenBucket {
  tokens: number;
  /** The latest `now` seen; a clock that goes backwards never refills. */
  last: number;
}

/** A full bucket at time `now`. */
export function newBucket(capacity: number, now: number): TokenBucket {
  return { tokens: capacity, last: now };
}

/** Refill for the time elapsed since the last call (never for time going backwards). */
export function refill(b: TokenBucket, capacity: number, perSecond: number, now: number): void {
  if (now > b.last) {
    b.tokens = Math.min(capacity, b.tokens + ((now - b.last) * perSecond) / 1000);
    b.last = now;
  }
}

/** Milliseconds until one whole token is available (0 when one is there now). Call after `refill`. */
export function bucketWaitMs(b: TokenBucket, perSecond: number): number {
  // A tiny epsilon absorbs float error from many fractional refills.
  if (b.tokens >= 1 - 1e-9) return 0;
  return Math.ceil(((1 - b.tokens) * 1000) / perSecond);
}
