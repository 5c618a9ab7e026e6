// Client-side pacing: a model of the server's limiter for one key, so a long export runs just
// under both limits and never sees a 429.
//
// The server charges a request at its *arrival*, which the client never observes: it lies
// between our send and our completion. The model is built from the same pure primitives as the
// server's KeyLimiter (token bucket + sliding log), but charges them at the two instants that
// make it safe rather than at one:
// - the token bucket at *send* time, and a send waits until 1 + a small reserve of tokens is
//   back (BUCKET_MARGIN_MS of refill): server-side gaps can only shrink by latency jitter, and
//   the reserve absorbs that; it costs the margin once per burst phase, not per request;
// - the minute log at *completion* time plus LOG_MARGIN_MS: an entry can only leave our
//   window after it left the server's (the server saw it earlier), whatever the latency and
//   millisecond truncation; it costs one latency + margin per 60 s window.
// Requests of one key queue FIFO through one Pacer; a 429 pauses the whole queue.
import { bucketWaitMs, newBucket, refill, type TokenBucket } from '../ratelimit/token-bucket.js';
import { append, entry, expire, newLog, type SlidingLog } from '../ratelimit/sliding-log.js';
import { WINDOW_MS } from '../ratelimit/key-limiter.js';
import { PLANS } from '../domain/plans.js';

/** Refill time kept in reserve before a burst token is used (absorbs latency jitter). */
export const BUCKET_MARGIN_MS = 30;
/** Added to a completed request's time in the minute log (Date.now truncation, clock granularity). */
export const LOG_MARGIN_MS = 75;
/** Added to an `X-RateLimit-Reset` (whole seconds, skew-corrected with a 1 s resolution `Date`). */
export const RESET_MARGIN_MS = 1000;

/** The two limits the pacer keeps under. */
export interface PaceConfig {
  perMinute: number;
  burst: number;
}

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

/** Sends kept for a reconfigure: beyond this many since the bucket was last surely full, replay starts empty. */
const HISTORY_MAX = 512;

/** Something that changed the server's bucket: one of our sends, or another process emptying it. */
interface BucketEvent {
  at: number;
  foreign: boolean;
}

/**
 * The pure model: no clock of its own, every method takes `now`. Use through Pacer; exported
 * for tests that check its arithmetic directly.
 */
export class PaceModel {
  private bucket: TokenBucket;
  private log: SlidingLog;
  // Every bucket event since the bucket was last surely full (a bucket refills completely in
  // 1 s under any limits), so new limits can be applied to what was really sent.
  private history: BucketEvent[] = [];
  private historyTruncated = false;
  inflight = 0;

  constructor(
    public config: PaceConfig,
    now: number,
  ) {
    this.bucket = newBucket(config.burst, now);
    this.log = newLog(config.perMinute);
  }

  /** Tokens a send waits for: one plus BUCKET_MARGIN_MS of refill, as far as the bucket holds them. */
  private need(): number {
    return Math.min(this.config.burst, 1 + (BUCKET_MARGIN_MS * this.config.burst) / 1000);
  }

  // Only a bucket of 1 cannot hold the reserve (the server's is full at one token): each send
  // then costs the reserve on top, or sends would be exactly 1 s apart and any latency jitter
  // would trip the server.
  private charge(): number {
    return 1 + Math.max(0, 1 + (BUCKET_MARGIN_MS * this.config.burst) / 1000 - this.config.burst);
  }

  private refillNow(now: number): void {
    refill(this.bucket, this.config.burst, this.config.burst, now);
  }

  private remember(at: number, foreign: boolean): void {
    const last = this.history[this.history.length - 1];
    if (last !== undefined && at - last.at >= 1000) {
      this.history = [];
      this.historyTruncated = false;
    }
    this.history.push({ at, foreign });
    if (this.history.length > HISTORY_MAX) {
      this.history.shift();
      this.historyTruncated = true;
    }
  }

  /** Milliseconds until a send is safe; Infinity while in-flight requests hold every minute slot. */
  waitMs(now: number): number {
    const { perMinute, burst } = this.config;
    this.refillNow(now);
    expire(this.log, WINDOW_MS, now);
    const need = this.need();
    const bucketWait =
      this.bucket.tokens >= need - 1e-9 ? 0 : Math.max(bucketWaitMs(this.bucket, burst), Math.ceil(((need - this.bucket.tokens) * 1000) / burst));
    const allowed = perMinute - this.inflight;
    if (allowed <= 0) return Infinity;
    const logWait = this.log.size < allowed ? 0 : entry(this.log, this.log.size - allowed) + WINDOW_MS - now;
    return Math.max(bucketWait, logWait, 0);
  }

  /** Charge the bucket for a request sent now; returns the most minute slots the server can see used by it. */
  onSend(now: number): number {
    this.refillNow(now);
    expire(this.log, WINDOW_MS, now);
    this.bucket.tokens -= this.charge();
    this.remember(now, false);
    this.inflight++;
    return this.log.size + this.inflight;
  }

  /** Log a request that just completed (any status: the server may have counted it). */
  onDone(now: number): void {
    this.inflight = Math.max(0, this.inflight - 1);
    expire(this.log, WINDOW_MS, now);
    append(this.log, now + LOG_MARGIN_MS);
  }

  /**
   * The server counts more requests than we can have caused: another process shares the key.
   * Assume the extra ones just happened (pessimistic) except, when `oldestExpiry` is given, one
   * that leaves the window then; and assume the other process emptied the bucket.
   */
  addForeign(extra: number, now: number, oldestExpiry?: number): void {
    if (extra <= 0) return;
    expire(this.log, WINDOW_MS, now);
    const times: number[] = [];
    for (let i = 0; i < this.log.size; i++) times.push(entry(this.log, i));
    const room = this.config.perMinute - times.length - this.inflight;
    const n = Math.min(extra, Math.max(0, room));
    for (let i = 0; i < n; i++) {
      const at = i === 0 && oldestExpiry !== undefined ? Math.min(now, oldestExpiry - WINDOW_MS) : now;
      times.push(at + LOG_MARGIN_MS);
    }
    times.sort((a, b) => a - b);
    this.log = newLog(this.config.perMinute);
    for (const t of times) append(this.log, t);
    this.refillNow(now);
    this.bucket.tokens = Math.min(this.bucket.tokens, 0);
    this.remember(now, true);
  }

  /**
   * Switch to new limits (learned from /limits or a changed header) keeping what was charged:
   * the bucket is rebuilt by replaying every send since it was last surely full under the new
   * burst, because a guessed burst refills at a different rate and would forget some of them.
   */
  reconfigure(config: PaceConfig, now: number): void {
    if (config.perMinute === this.config.perMinute && config.burst === this.config.burst) return;
    expire(this.log, WINDOW_MS, now);
    const times: number[] = [];
    for (let i = 0; i < this.log.size; i++) times.push(entry(this.log, i));
    this.config = config;
    // The server's bucket never goes below empty (a 429 charges nothing): a guessed burst far
    // above the real one (an enterprise account's custom limits) must not become a debt.
    const charge = this.charge();
    const floor = 1 - charge;
    const first = this.history[0];
    this.bucket = { tokens: this.historyTruncated ? floor : config.burst, last: first?.at ?? now };
    for (const e of this.history) {
      this.refillNow(e.at);
      this.bucket.tokens = e.foreign ? Math.min(this.bucket.tokens, floor) : Math.max(floor, this.bucket.tokens - charge);
    }
    this.refillNow(now);
    this.log = newLog(config.perMinute);
    for (const t of times.slice(-config.perMinute)) append(this.log, t);
  }
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
}

/** Counters for `--verbose` and the pacing bench. */
export interface PacerStats {
  /** Time callers spent queued behind the limits (or a 429 pause). */
  pacedMs: number;
  pauses: number;
  foreignDetected: number;
}

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
  readonly stats: PacerStats = { pacedMs: 0, pauses: 0, foreignDetected: 0 };

  constructor(
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  /** True once the limits came from `/api/v1/limits` (so the client need not fetch them). */
  get learned(): boolean {
    return this.fromLimits;
  }

  /** The limits in force, if known. */
  get config(): PaceConfig | undefined {
    return this.model?.config;
  }

  /** Wait for a turn (FIFO) and for both limits; resolve with the ticket to send under. */
  acquire(): Promise<Ticket> {
    const turn = this.tail.then(() => this.waitForRoom());
    // A failed turn must not block the queue behind it.
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** The response (or failure) of a ticket's request; `at` is its completion time. */
  done(ticket: Ticket, headers: RateHeaders | undefined): void {
    const now = this.now();
    this.inflight = Math.max(0, this.inflight - 1);
    this.answered = this.answered || headers !== undefined;
    if (headers?.serverDate !== undefined) this.skewMs = headers.serverDate - now;
    if (!this.model && headers?.limit !== undefined && headers.limit > 0) {
      this.model = new PaceModel(configFromMinuteLimit(headers.limit), now);
      // Replay this request so the new model counts it.
      this.model.onSend(now);
    } else if (this.model && !this.fromLimits && headers?.limit !== undefined && headers.limit > 0 && headers.limit !== this.model.config.perMinute) {
      this.model.reconfigure(configFromMinuteLimit(headers.limit), now);
    }
    if (this.model) {
      this.model.onDone(now);
      if (headers?.limit !== undefined && headers.remaining !== undefined) {
        // A fresh model's first request: the only thing it can account for is that request.
        const expected = ticket.first && this.sent === 1 ? 1 : ticket.expectedMax;
        this.resync(headers.limit - headers.remaining, expected, headers.reset, ticket.first && this.sent === 1);
      }
    }
    this.notify();
  }

  /** Limits from `/api/v1/limits` (authoritative), with its usage when present. */
  learn(config: PaceConfig): void {
    const now = this.now();
    this.fromLimits = true;
    if (this.model) this.model.reconfigure(config, now);
    else this.model = new PaceModel(config, now);
    this.notify();
  }

  /** Hold every request of the key until `until` (a 429's Retry-After plus jitter). */
  pauseUntil(until: number): void {
    if (until > this.pausedUntil) {
      this.pausedUntil = until;
      this.stats.pauses++;
    }
  }

  private resync(serverUsed: number, expectedMax: number, reset: number | undefined, firstContact: boolean): void {
    if (!this.model || serverUsed <= expectedMax) return;
    this.stats.foreignDetected++;
    const now = this.now();
    // Reset is when the server's oldest entry leaves; on first contact that entry is surely not ours.
    const oldestExpiry = firstContact && reset !== undefined ? reset * 1000 - this.skewMs + RESET_MARGIN_MS : undefined;
    this.model.addForeign(serverUsed - expectedMax, now, oldestExpiry);
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
      let wait = Math.max(0, this.pausedUntil - now);
      if (this.model) {
        wait = Math.max(wait, this.model.waitMs(now));
      } else if (this.inflight > 0 && !this.answered) {
        // Limits unknown until the first answer: one request at a time till then.
        wait = Infinity;
      }
      if (wait <= 0) break;
      if (wait === Infinity) await new Promise<void>((resolve) => this.wake.push(resolve));
      else await this.sleep(wait);
    }
    const now = this.now();
    this.stats.pacedMs += now - start;
    this.sent++;
    this.inflight++;
    const expectedMax = this.model ? this.model.onSend(now) : this.sent;
    return { expectedMax, first: this.sent === 1 };
  }
}
