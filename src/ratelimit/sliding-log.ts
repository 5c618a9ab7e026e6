// Minute limit: an exact log of admitted request times; a request at `now` sees the ones in
// (now - windowMs, now]. Stored as a ring of timestamps, oldest first.

/** Log state; create with `newLog`. */
export interface SlidingLog {
  times: Float64Array;
  head: number;
  size: number;
}

/** An empty log able to hold `limit` entries (more are never needed: a full window rejects). */
export function newLog(limit: number): SlidingLog {
  return { times: new Float64Array(Math.max(1, limit)), head: 0, size: 0 };
}

/** Drop entries that have left the window ending at `now`. */
export function expire(log: SlidingLog, windowMs: number, now: number): void {
  while (log.size > 0 && log.times[log.head]! <= now - windowMs) {
    log.head = (log.head + 1) % log.times.length;
    log.size--;
  }
}

/** The i-th oldest entry still in the log. */
export function entry(log: SlidingLog, i: number): number {
  return log.times[(log.head + i) % log.times.length]!;
}

/** Milliseconds until the log admits one more request under `limit` (0 = now). Call after `expire`. */
export function logWaitMs(log: SlidingLog, limit: number, windowMs: number, now: number): number {
  if (log.size < limit) return 0;
  // The entry that must leave so that size drops below limit.
  return entry(log, log.size - limit) + windowMs - now;
}

/** Record an admitted request. The log never holds more than its capacity: callers check first. */
export function append(log: SlidingLog, now: number): void {
  if (log.size === log.times.length) {
    // Only reachable if a caller charges without checking; keep the newest entries.
    log.head = (log.head + 1) % log.times.length;
    log.size--;
  }
  log.times[(log.head + log.size) % log.times.length] = now;
  log.size++;
}
