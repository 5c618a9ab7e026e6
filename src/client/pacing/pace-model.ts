// The client's model of the server's limiter for one key, built from the same pure primitives
// as the server's KeyLimiter (token bucket + sliding log) but charged at the two instants that
// make it safe, since the server charges at an arrival the client never observes:
// - the token bucket at *send* time, and a send waits until 1 + a reserve of tokens is back;
//   the reserve is the refill of the largest recent round trip (round-trips.ts): arrivals can
//   bunch up by at most that much, and it costs its length once per burst phase;
// - the minute log at *completion* time plus LOG_MARGIN_MS: an entry can only leave our window
//   after it left the server's (the server saw it earlier), whatever the latency.
import { bucketWaitMs, newBucket, refill, type TokenBucket } from '../../ratelimit/token-bucket.js';
import { append, entry, expire, newLog, type SlidingLog } from '../../ratelimit/sliding-log.js';
import { WINDOW_MS } from '../../ratelimit/key-limiter.js';
import { INITIAL_RESERVE_MS } from './round-trips.js';

/** Added to a completed request's time in the minute log (Date.now truncation, clock granularity). */
export const LOG_MARGIN_MS = 75;

/** The two limits the pacer keeps under. */
export interface PaceConfig {
  perMinute: number;
  burst: number;
}

/** What several processes pacing one key share (state-file.ts): the bucket, the log, a send counter. */
export interface PaceState {
  tokens: number;
  /** When `tokens` was last refilled (epoch ms). */
  last: number;
  /** Minute-log entries, oldest first (epoch ms, margin included). */
  log: number[];
  /** Sends so far, by every process: what the server may have counted since a given send. */
  sends: number;
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
  /** Sends so far (see PaceState.sends). */
  sends = 0;
  /** Refill time to keep in the bucket before a send; the Pacer sets it from measured round trips. */
  reserveMs = INITIAL_RESERVE_MS;

  constructor(
    public config: PaceConfig,
    now: number,
  ) {
    this.bucket = newBucket(config.burst, now);
    this.log = newLog(config.perMinute);
  }

  // Tokens a send waits for: one plus the reserve, capped below a full bucket, which already
  // absorbs as much bunching as any reserve could. A bucket of 1 holds no reserve: there a send
  // waits for every earlier answer instead (see onDone).
  private need(): number {
    const { burst } = this.config;
    return 1 + Math.min(burst - 1, (this.reserveMs * burst) / 1000);
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
    if (burst === 1 && this.inflight > 0) return Infinity;
    const logWait = this.log.size < allowed ? 0 : entry(this.log, this.log.size - allowed) + WINDOW_MS - now;
    return Math.max(bucketWait, logWait, 0);
  }

  /** Charge the bucket for a request sent now; returns the most minute slots the server can see used by it. */
  onSend(now: number): number {
    this.refillNow(now);
    expire(this.log, WINDOW_MS, now);
    this.bucket.tokens -= 1;
    this.remember(now, false);
    this.inflight++;
    this.sends++;
    return this.log.size + this.inflight;
  }

  /** Log a request that just completed (any status: the server may have counted it). */
  onDone(now: number): void {
    this.inflight = Math.max(0, this.inflight - 1);
    if (this.config.burst === 1) {
      // It reached the server at the latest now: the next one may only arrive a full second later.
      this.refillNow(now);
      this.bucket.tokens = Math.min(this.bucket.tokens, 0);
    }
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
    const times = this.logTimes();
    const room = this.config.perMinute - times.length - this.inflight;
    const n = Math.min(extra, Math.max(0, room));
    for (let i = 0; i < n; i++) {
      const at = i === 0 && oldestExpiry !== undefined ? Math.min(now, oldestExpiry - WINDOW_MS) : now;
      times.push(at + LOG_MARGIN_MS);
    }
    times.sort((a, b) => a - b);
    this.setLog(times);
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
    const times = this.logTimes();
    this.config = config;
    // The server's bucket never goes below empty (a 429 charges nothing): a guessed burst far
    // above the real one (an enterprise account's custom limits) must not become a debt.
    const first = this.history[0];
    this.bucket = { tokens: this.historyTruncated ? 0 : config.burst, last: first?.at ?? now };
    for (const e of this.history) {
      this.refillNow(e.at);
      this.bucket.tokens = e.foreign ? Math.min(this.bucket.tokens, 0) : Math.max(0, this.bucket.tokens - 1);
    }
    this.refillNow(now);
    this.setLog(times);
  }

  /**
   * Milliseconds from `now` until `n` more sends would all be admitted, each answered at once:
   * the least the rest of a run can take at these limits (a progress ETA that knows the minute
   * cap). Simulated on a copy; this model is left as it was.
   */
  estimateMs(n: number, now: number): number {
    const sim = new PaceModel(this.config, now);
    sim.importState(this.exportState());
    sim.reserveMs = this.reserveMs;
    let t = now;
    for (let i = 0; i < n; i++) {
      const wait = sim.waitMs(t);
      if (!Number.isFinite(wait)) break;
      t += wait;
      sim.onSend(t);
      sim.onDone(t);
    }
    return t - now;
  }

  /** The state other processes need to pace with us (see PaceState). */
  exportState(): PaceState {
    return { tokens: this.bucket.tokens, last: this.bucket.last, log: this.logTimes(), sends: this.sends };
  }

  /**
   * Take over the state another process left (ours is older or equal: it was saved after ours).
   * The replay history is lost, so a later reconfigure starts from an empty bucket.
   */
  importState(state: PaceState): void {
    const { burst } = this.config;
    this.bucket = { tokens: Math.min(burst, Math.max(0, state.tokens)), last: state.last };
    this.setLog(state.log);
    this.sends = state.sends;
    this.history = [];
    this.historyTruncated = true;
  }

  private logTimes(): number[] {
    const times: number[] = [];
    for (let i = 0; i < this.log.size; i++) times.push(entry(this.log, i));
    return times;
  }

  private setLog(times: number[]): void {
    // Reuse the ring when it has the right size: with a huge minute limit it is megabytes.
    if (this.log.times.length === Math.max(1, this.config.perMinute)) {
      this.log.head = 0;
      this.log.size = 0;
    } else {
      this.log = newLog(this.config.perMinute);
    }
    for (const t of times.slice(-this.config.perMinute)) append(this.log, t);
  }
}
