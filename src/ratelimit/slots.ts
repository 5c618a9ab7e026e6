// Things a key may hold open at once (live streams), counted where the rate limits are: in this
// process, or in Redis where every instance sees every other's. A hold lasts `ttlMs` unless
// renewed, so an instance that dies frees its holds within that time.

/** Open holds per key, capped; members name each hold (instance and stream). */
export interface Slots {
  /** Takes one of `max` holds of `key` for `member`; false when all are taken. */
  acquire(key: string, member: string, max: number, now: number, ttlMs: number): Promise<boolean>;
  /** Extends the holds of `members` (still open) by `ttlMs` from `now`. */
  renew(key: string, members: readonly string[], now: number, ttlMs: number): Promise<void>;
  release(key: string, member: string): Promise<void>;
}

/** Use for a single instance: holds in this process (they end with it, so no expiry is needed). */
export class LocalSlots implements Slots {
  private readonly held = new Map<string, Set<string>>();

  async acquire(key: string, member: string, max: number): Promise<boolean> {
    const members = this.held.get(key) ?? new Set<string>();
    if (members.size >= max) return false;
    members.add(member);
    this.held.set(key, members);
    return true;
  }

  async renew(): Promise<void> {}

  async release(key: string, member: string): Promise<void> {
    const members = this.held.get(key);
    members?.delete(member);
    if (members?.size === 0) this.held.delete(key);
  }
}
