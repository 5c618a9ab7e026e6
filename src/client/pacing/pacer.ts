// Client-side pacing: admit one key's requests first in, first out, just under the server's two
// limits (pace-model.ts), so a long export never sees a 429. The burst reserve follows the
// measured round trips (round-trips.ts); processes sharing a key pace through one state file
// (state-file.ts) when given one. A 429 still pauses the whole queue.
import { PLANS } from '../../domain/plans.js';
import { PaceModel, type PaceConfig, type PaceState } from './pace-model.js';
import { RoundTrips } from './round-trips.js';

export { LOG_MARGIN_MS, PaceModel, type PaceConfig } from './pace-model.js';

/** Added to an `X-RateLimit-Reset` (whole seconds, skew-corrected with a 1 s resolution `Date`). */
const RESET_MARGIN_MS = 1000;
/** How often a process re-reads the shared state while other processes hold every minute slot. */
const SHARED_POLL_MS = 25;

/** Use when only `X-RateLimit-Limit` is known: the burst of the plan with that minute limit, else a guess. */
export function configFromMinuteLimit(perMinute: number): PaceConfig {
  for (const plan of Object.values(PLANS)) {
    if (plan.requestsPerMinute === perMinute && plan.burstPerSecond !== null) {
      return { perMinute, burst: plan.burstPerSecond };
    }
  }
  // Unknown plan: about 1/20 of the minute limit per second, as builder and pro roughly have.
  return { perMinute, burst: Math.max(1, Math.floor(perMinute / 20)) };
}

/** One key's pace as several processes keep it: the model's state plus every process's requests in flight. */
export interface SharedRecord extends PaceState {
  inflight: { pid: number; at: number }[];
}

/** A lock-protected record several processes update in turn (state-file.ts). */
export interface SharedPace {
  /** This process, as it appears in `inflight`. */
  readonly pid: number;
  /**
   * Under the lock: read the record (undefined when there is none yet), let `fn` change it, and
   * write back the record `fn` returns (none: nothing changed). Throws only before calling `fn`,
   * when the store cannot be used at all.
   */
  update<T>(fn: (record: SharedRecord | undefined) => { value: T; record: SharedRecord | undefined }): T;
}

/** What a response said about the key's limiter. */
export interface RateHeaders {
  limit?: number;
  remaining?: number;
  /** Epoch seconds, server clock. */
  reset?: number;
  /** The `Date` header in epoch ms (1 s resolution). */
  serverDate?: number;
}

/** A granted send; hand it back to `Pacer.done` exactly once. */
export interface Ticket {
  readonly expectedMax: number;
  readonly first: boolean;
  /** When it was granted (the request goes out at once). */
  readonly sentAt: number;
  /** The model's send counter after this send: later sends may reach the server first. */
  readonly sends: number;
  /** Whether it is listed in flight in the shared state. */
  readonly registered: boolean;
}

/** Counters for `--verbose` and the pacing bench. */
export interface PacerStats {
  /** Time callers spent queued behind the limits (or a 429 pause). */
  pacedMs: number;
  pauses: number;
  foreignDetected: number;
}

type Inflight = SharedRecord['inflight'];
// What a send was granted with, before it becomes a Ticket.
type Grant = { expectedMax: number; sends: number; registered: boolean };

/** Use one per key and base URL: FIFO admission under the key's limits, shared by every request. */
export class Pacer {
  private model: PaceModel | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private pausedUntil = 0;
  private sent = 0;
  private inflight = 0;
  private answered = false;
  private fromLimits = false;
  private skewMs = 0;
  private wake: (() => void)[] = [];
  private readonly roundTrips = new RoundTrips();
  readonly stats: PacerStats = { pacedMs: 0, pauses: 0, foreignDetected: 0 };

  constructor(
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
    private shared?: SharedPace,
  ) {}

  /** True once the limits came from `/api/v1/limits` (so the client need not fetch them). */
  get learned(): boolean {
    return this.fromLimits;
  }

  /** The limits in force, if known. */
  get config(): PaceConfig | undefined {
    return this.model?.config;
  }

  /** Refill time kept in reserve before a send, from the measured round trips. */
  get reserveMs(): number {
    return this.roundTrips.reserveMs();
  }

  /** Wait for a turn (FIFO) and for both limits; resolve with the ticket to send under. */
  acquire(): Promise<Ticket> {
    const turn = this.tail.then(() => this.waitForRoom());
    // A failed turn must not block the queue behind it.
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** The response (or failure: no headers) of a ticket's request, now. */
  done(ticket: Ticket, headers: RateHeaders | undefined): void {
    const now = this.now();
    this.inflight = Math.max(0, this.inflight - 1);
    this.answered = this.answered || headers !== undefined;
    if (headers !== undefined) this.roundTrips.record(ticket.sentAt, now);
    if (headers?.serverDate !== undefined) this.skewMs = headers.serverDate - now;
    const limit = headers?.limit !== undefined && headers.limit > 0 ? headers.limit : undefined;
    // A request sent before any limits were known was charged nowhere: count it now.
    const replay = !this.model && limit !== undefined;
    if (!this.model && limit !== undefined) {
      this.model = new PaceModel(configFromMinuteLimit(limit), now);
    } else if (this.model && !this.fromLimits && limit !== undefined && limit !== this.model.config.perMinute) {
      this.model.reconfigure(configFromMinuteLimit(limit), now);
    }
    const model = this.model;
    if (model) {
      model.reserveMs = this.roundTrips.reserveMs();
      this.sync(model, (inflight) => {
        const replayed = replay ? model.onSend(now) : undefined;
        if (inflight && ticket.registered && this.shared) {
          const mine = inflight.findIndex((e) => e.pid === this.shared!.pid);
          if (mine >= 0) inflight.splice(mine, 1);
        }
        model.onDone(now);
        if (headers?.limit !== undefined && headers.remaining !== undefined) {
          // The server may also have counted everything sent after this request (it can overtake).
          const expected = replayed ?? ticket.expectedMax + (model.sends - ticket.sends);
          this.resync(model, headers.limit - headers.remaining, expected, headers.reset, ticket.first && this.sent === 1, now);
        }
        return { value: undefined, changed: true };
      });
    }
    this.notify();
  }

  /**
   * Limits from `/api/v1/limits` (authoritative), with its usage when present. Applied under the
   * shared state's lock and written back: left only in this model, the next send imported the
   * state the first answer wrote under a guessed burst (a custom `--burst 1` guessed as 30 from the
   * minute limit), found the bucket full and drew a 429 right after the limits request.
   */
  learn(config: PaceConfig): void {
    const now = this.now();
    this.fromLimits = true;
    const model = (this.model ??= new PaceModel(config, now));
    this.sync(model, () => {
      model.reconfigure(config, now);
      return { value: undefined, changed: true };
    });
    this.notify();
  }

  /** The least time `requests` more sends take at the key's limits from now; undefined while the limits are unknown. */
  estimateMs(requests: number): number | undefined {
    return this.model?.estimateMs(requests, this.now());
  }

  /** Hold every request of the key until `until` (a 429's Retry-After plus jitter). */
  pauseUntil(until: number): void {
    if (until > this.pausedUntil) {
      this.pausedUntil = until;
      this.stats.pauses++;
    }
  }

  private resync(model: PaceModel, serverUsed: number, expectedMax: number, reset: number | undefined, firstContact: boolean, now: number): void {
    if (serverUsed <= expectedMax) return;
    this.stats.foreignDetected++;
    // Reset is when the server's oldest entry leaves; on first contact that entry is surely not ours.
    const oldestExpiry = firstContact && reset !== undefined ? reset * 1000 - this.skewMs + RESET_MARGIN_MS : undefined;
    model.addForeign(serverUsed - expectedMax, now, oldestExpiry);
  }

  // Run `fn` on the model; with a shared state, under its lock on the state every process left,
  // writing back what `fn` changed. A store that cannot be used leaves this process pacing alone.
  private sync<T>(model: PaceModel, fn: (inflight: Inflight | undefined) => { value: T; changed: boolean }): T {
    const shared = this.shared;
    if (shared) {
      try {
        return shared.update((record) => {
          if (record) model.importState(record);
          const inflight = record?.inflight ?? [];
          model.inflight = inflight.length;
          const { value, changed } = fn(inflight);
          return { value, record: changed ? { ...model.exportState(), inflight } : undefined };
        });
      } catch {
        this.shared = undefined;
      }
    }
    return fn(undefined).value;
  }

  private notify(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const w of waiting) w();
  }

  private async waitForRoom(): Promise<Ticket> {
    const start = this.now();
    for (;;) {
      const now = this.now();
      const paused = this.pausedUntil - now;
      const model = this.model;
      if (!model && this.inflight > 0 && !this.answered) {
        // Limits unknown until the first answer: one request at a time till then.
        await new Promise<void>((resolve) => this.wake.push(resolve));
        continue;
      }
      if (paused > 0) {
        await this.sleep(paused);
        continue;
      }
      if (!model) return this.grant(start, now, { expectedMax: this.sent + 1, sends: 0, registered: false });
      model.reserveMs = this.roundTrips.reserveMs();
      const granted = this.sync<number | Grant>(model, (inflight) => {
        const wait = model.waitMs(now);
        if (wait > 0) return { value: wait, changed: false };
        const expectedMax = model.onSend(now);
        if (inflight && this.shared) inflight.push({ pid: this.shared.pid, at: now });
        return { value: { expectedMax, sends: model.sends, registered: inflight !== undefined }, changed: true };
      });
      if (typeof granted !== 'number') return this.grant(start, now, granted);
      // Other processes' answers wake nobody here: look again soon.
      if (granted === Infinity && !this.shared) await new Promise<void>((resolve) => this.wake.push(resolve));
      else await this.sleep(granted === Infinity ? SHARED_POLL_MS : granted);
    }
  }

  private grant(start: number, now: number, t: Grant): Ticket {
    this.stats.pacedMs += now - start;
    this.sent++;
    this.inflight++;
    return { ...t, first: this.sent === 1, sentAt: now };
  }
}
