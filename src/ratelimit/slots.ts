// Things a key may hold open at once (live streams), counted where the rate limits are: in this
// process, or in Redis where every instance sees every other's. A hold lasts `ttlMs` unless
// renewed, so a hold whose release never came (an instance that died, a release lost on the way)
// frees itself within that time.

/** Open holds per key, capped; members name each hold (instance and stream). */
export interface Slots {
  /** Takes one of `max` holds of `key` for `member`; false when all are taken. */
  acquire(key: string, member: string, max: number, now: number, ttlMs: number): Promise<boolean>;
  /** Extends the holds of `members` (still open) by `ttlMs` from `now`. */
  renew(key: string, members: readonly string[], now: number, ttlMs: number): Promise<void>;
  release(key: string, member: string): Promise<void>;
}

/** Use for a single instance: holds in this process, each expiring as a Redis hold does. */
export class LocalSlots implements Slots {
  /** Per key, each member's expiry. */
  private readonly held = new Map<string, Map<string, number>>();

  async acquire(key: string, member: string, max: number, now: number, ttlMs: number): Promise<boolean> {
    const members = this.held.get(key) ?? new Map<string, number>();
    for (const [m, expires] of members) if (expires <= now) members.delete(m);
    if (members.size >= max) return false;
    members.set(member, now + ttlMs);
    this.held.set(key, members);
    return true;
  }

  async renew(key: string, members: readonly string[], now: number, ttlMs: number): Promise<void> {
    const held = this.held.get(key);
    // As in Redis: a hold that expired meanwhile is not brought back.
    for (const m of members) if ((held?.get(m) ?? -Infinity) > now) held!.set(m, now + ttlMs);
  }

  async release(key: string, member: string): Promise<void> {
    const members = this.held.get(key);
    members?.delete(member);
    if (members?.size === 0) this.held.delete(key);
  }
}
