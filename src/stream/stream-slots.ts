// A key's open streams, counted in the limiter's slots (in the process, or in Redis across
// instances): one hold per stream, taken once its handshake is done, released when it closes,
// renewed while it is open, so a hold whose release never arrived lapses by itself.
import { randomUUID } from 'node:crypto';
import { PLANS } from '../domain/plans.js';
import type { Slots } from '../ratelimit/slots.js';
import type { Caller } from '../server/auth.js';

/** A stream's slot outlives its instance (or a lost release) by at most this long; renewed three times as often. */
const SLOT_TTL_MS = 90_000;
export const SLOT_RENEW_MS = 30_000;

/** A stream's hold on one of its key's slots. */
export type Hold = { key: string; member: string };

/** Use one per hub: this instance's holds, named apart from every other instance's. */
export class StreamSlots {
  /** Names this instance's holds in a shared slot store. */
  private readonly instance = randomUUID().slice(0, 8);
  private opened = 0;

  constructor(private readonly slots: Slots) {}

  /** One of the key's slots (null: its plan has no cap), or undefined when all are taken; throws while Redis is away. */
  async take(caller: Caller, at: number): Promise<Hold | null | undefined> {
    const max = PLANS[caller.account.plan].maxStreamsPerKey;
    if (max === null) return null;
    const hold = { key: `s:${caller.key.id}`, member: `${this.instance}:${++this.opened}` };
    return (await this.slots.acquire(hold.key, hold.member, max, at, SLOT_TTL_MS)) ? hold : undefined;
  }

  release(hold: Hold): void {
    this.slots.release(hold.key, hold.member).catch(() => {
      // Redis away: the hold expires by itself within SLOT_TTL_MS.
    });
  }

  /** Keeps the holds of open streams from expiring. */
  renew(holds: Iterable<Hold>, now: number): void {
    const byKey = new Map<string, string[]>();
    for (const h of holds) byKey.set(h.key, [...(byKey.get(h.key) ?? []), h.member]);
    for (const [key, members] of byKey) this.slots.renew(key, members, now, SLOT_TTL_MS).catch(() => undefined);
  }
}
