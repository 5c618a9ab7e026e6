// A market's data quality from its snapshots, as they stream by: coverage of the 125 ms grid, gaps,
// duplicate and out-of-order times, probabilities outside [0, 1], up + down far from 1, price jumps
// beyond a robust threshold, and how many snapshots carry an orderbook. Pure: no I/O, no clock.
import { SNAPSHOT_INTERVAL_MS, type Snapshot } from '../domain/market.js';

/** Thresholds of a scan. */
export interface QualityOptions {
  /** `price_up + price_down` may differ from 1 by this much (default 0.05). */
  sumTolerance?: number;
  /** A step counts as a jump beyond this many robust standard deviations (default 12). */
  jumpSigmas?: number;
  /** How many gaps and jumps are listed with their times (default 5). */
  examples?: number;
}

/** Missing grid slots between two present snapshots (or the window's edge). */
export interface Gap {
  /** The last time present before the gap (the window start for a leading gap). */
  from: number;
  /** The first time present after it (the window end for a trailing gap). */
  to: number;
  /** Grid slots with no snapshot. */
  missing: number;
}

/** A step of the asset price beyond the jump threshold. */
export interface Jump {
  time: number;
  from: number;
  to: number;
  /** The step in robust standard deviations. */
  sigmas: number;
}

/** One market's report; `problems` sums the counts that mean bad data. */
export interface QualityReport {
  market_id: string;
  window_start: number;
  window_end: number;
  expected: number;
  present: number;
  gaps: number;
  missing: number;
  longest_gap_ms: number;
  first_gaps: Gap[];
  duplicates: number;
  out_of_order: number;
  bad_probabilities: number;
  sum_outside: number;
  jumps: number;
  first_jumps: Jump[];
  orderbook_coverage: number;
  problems: number;
}

// Below this relative step nothing is a jump, however calm the rest of the market was.
const MIN_JUMP = 1e-4;
// The normal distribution's MAD is 0.6745 sigma.
const MAD_TO_SIGMA = 1.4826;

function median(values: Float64Array): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Use per market: `add` each snapshot in the order the service sent them, then `finish`. The grid
 * is anchored at the market's start; a snapshot belongs to the nearest slot. The window is the part
 * of the market that should have snapshots ([start, end) cut to the asked range).
 */
export class QualityScan {
  private readonly sumTolerance: number;
  private readonly jumpSigmas: number;
  private readonly examples: number;
  private present = 0;
  private withBook = 0;
  private duplicates = 0;
  private outOfOrder = 0;
  private badProbabilities = 0;
  private sumOutside = 0;
  private gaps: Gap[] = [];
  private gapCount = 0;
  private missing = 0;
  private longest = 0;
  private prev: Snapshot | undefined;
  private prevSlot = 0;
  // Price steps (log return per grid slot elapsed) and the time of each, for the jump threshold.
  private steps = new Float64Array(1024);
  private stepTimes = new Float64Array(1024);
  private stepPrices = new Float64Array(2048);
  private stepCount = 0;

  constructor(
    readonly marketId: string,
    private readonly marketStart: number,
    private readonly windowStart: number,
    private windowEnd: number,
    opts: QualityOptions = {},
  ) {
    this.sumTolerance = opts.sumTolerance ?? 0.05;
    this.jumpSigmas = opts.jumpSigmas ?? 12;
    this.examples = opts.examples ?? 5;
  }

  private slotOf(time: number): number {
    return Math.round((time - this.marketStart) / SNAPSHOT_INTERVAL_MS);
  }

  // The first and last grid slots inside the window.
  private firstSlot(): number {
    return Math.ceil((this.windowStart - this.marketStart) / SNAPSHOT_INTERVAL_MS);
  }
  private lastSlot(): number {
    return Math.ceil((this.windowEnd - this.marketStart) / SNAPSHOT_INTERVAL_MS) - 1;
  }

  private gap(from: number, to: number, missing: number): void {
    if (missing <= 0) return;
    this.gapCount += 1;
    this.missing += missing;
    this.longest = Math.max(this.longest, to - from);
    if (this.gaps.length < this.examples) this.gaps.push({ from, to, missing });
  }

  /** Take the next snapshot. */
  add(s: Snapshot): void {
    this.present += 1;
    if (s.orderbook_up != null || s.orderbook_down != null) this.withBook += 1;
    const probabilityOk = (p: number): boolean => p >= 0 && p <= 1;
    if (!probabilityOk(s.price_up) || !probabilityOk(s.price_down)) this.badProbabilities += 1;
    if (!(Math.abs(s.price_up + s.price_down - 1) <= this.sumTolerance)) this.sumOutside += 1;

    const slot = this.slotOf(s.time);
    const prev = this.prev;
    if (!prev) {
      this.gap(this.windowStart, s.time, slot - this.firstSlot());
    } else if (s.time < prev.time) {
      // Out of order: counted, and left out of the grid and price-step bookkeeping.
      this.outOfOrder += 1;
      return;
    } else if (slot === this.prevSlot) {
      this.duplicates += 1;
    } else {
      this.gap(prev.time, s.time, slot - this.prevSlot - 1);
      if (prev.price > 0 && s.price > 0) this.step(Math.log(s.price / prev.price) / Math.sqrt(slot - this.prevSlot), s.time, prev.price, s.price);
    }
    this.prev = s;
    this.prevSlot = slot;
  }

  private step(r: number, time: number, from: number, to: number): void {
    if (this.stepCount === this.steps.length) {
      const grow = (a: Float64Array<ArrayBuffer>, size: number): Float64Array<ArrayBuffer> => {
        const b = new Float64Array(size);
        b.set(a);
        return b;
      };
      this.steps = grow(this.steps, this.steps.length * 2);
      this.stepTimes = grow(this.stepTimes, this.stepTimes.length * 2);
      this.stepPrices = grow(this.stepPrices, this.stepPrices.length * 2);
    }
    const i = this.stepCount++;
    this.steps[i] = r;
    this.stepTimes[i] = time;
    this.stepPrices[2 * i] = from;
    this.stepPrices[2 * i + 1] = to;
  }

  /**
   * The report; call once, after the last snapshot. `openEnded` (a market still running): the
   * window ends at the last snapshot, since nothing after it is known to be missing yet.
   */
  finish(openEnded = false): QualityReport {
    if (openEnded && this.prev) this.windowEnd = Math.min(this.windowEnd, this.prev.time + 1);
    const expected = Math.max(0, this.lastSlot() - this.firstSlot() + 1);
    if (this.prev) this.gap(this.prev.time, this.windowEnd, this.lastSlot() - this.prevSlot);
    else this.gap(this.windowStart, this.windowEnd, expected);

    const steps = this.steps.subarray(0, this.stepCount);
    const center = median(steps);
    const deviations = steps.map((r) => Math.abs(r - center));
    const sigma = median(deviations) * MAD_TO_SIGMA;
    const threshold = Math.max(this.jumpSigmas * sigma, MIN_JUMP);
    let jumps = 0;
    const firstJumps: Jump[] = [];
    for (let i = 0; i < steps.length; i++) {
      if (deviations[i]! <= threshold) continue;
      jumps += 1;
      if (firstJumps.length < this.examples) {
        firstJumps.push({
          time: this.stepTimes[i]!,
          from: this.stepPrices[2 * i]!,
          to: this.stepPrices[2 * i + 1]!,
          sigmas: sigma > 0 ? Math.round((deviations[i]! / sigma) * 10) / 10 : Infinity,
        });
      }
    }
    const problems = this.gapCount + this.duplicates + this.outOfOrder + this.badProbabilities + this.sumOutside + jumps;
    return {
      market_id: this.marketId,
      window_start: this.windowStart,
      window_end: this.windowEnd,
      expected,
      present: this.present,
      gaps: this.gapCount,
      missing: this.missing,
      longest_gap_ms: this.longest,
      first_gaps: this.gaps,
      duplicates: this.duplicates,
      out_of_order: this.outOfOrder,
      bad_probabilities: this.badProbabilities,
      sum_outside: this.sumOutside,
      jumps,
      first_jumps: firstJumps,
      orderbook_coverage: this.present === 0 ? 0 : this.withBook / this.present,
      problems,
    };
  }
}
