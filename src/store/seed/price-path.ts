// One price path per coin and seed, defined at every 125 ms step from keyed draws alone, so a
// price never depends on when or how far the path was computed. Three levels, each a Brownian
// bridge pinned to the level above: daily anchors (a mean-reverting sum of keyed daily shocks,
// which keeps the level realistic for years), 5-minute anchors within each day, and 125 ms
// steps within each 5 minutes. Every market type of a coin reads the same path.
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';
import { fillNormals, normalAt } from '../../random/prng.js';

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Every market boundary is a multiple of 5 minutes: the middle level's step. */
export const COARSE_STEP_MS = 5 * 60_000;
const COARSE_PER_DAY = DAY_MS / COARSE_STEP_MS;
const FINE_PER_COARSE = COARSE_STEP_MS / SNAPSHOT_INTERVAL_MS;
/** Daily pull back to the model's level: the log price wanders about 0.2-0.3 from it at most times. */
const REVERSION_PER_DAY = 0.01;
/** Daily shocks summed per anchor: older ones weigh under e^-10 and are left out by definition. */
const DAY_TERMS = 1000;
const DAY_WEIGHTS = Float64Array.from({ length: DAY_TERMS }, (_, k) => Math.exp(-REVERSION_PER_DAY * k));
const LEVEL_DAY = 0;
const LEVEL_COARSE = 1;
const LEVEL_FINE = 2;
/** How many computed days and 5-minute windows a path keeps (a seed revisits recent ones per market type). */
const CACHED_DAYS = 8;
const CACHED_WINDOWS = 64;

/** A coin's price path: priceAt answers for any multiple of 125 ms, the same value every time. */
export interface PricePath {
  /** Annualised volatility of the path (the up/down pricing uses the same). */
  readonly sigma: number;
  priceAt(time: number): number;
}

/** Use to get the path of one coin under one seed; `stream` tells coins apart, `startPrice` is its typical level. */
export function pricePath(opts: { seed: number; stream: number; startPrice: number; sigma: number }): PricePath {
  const { seed, stream, sigma } = opts;
  const streamOf = (level: number) => stream * 4 + level;
  const daySd = sigma * Math.sqrt(DAY_MS / YEAR_MS);
  const coarseSd = sigma * Math.sqrt(COARSE_STEP_MS / YEAR_MS);
  const fineSd = sigma * Math.sqrt(SNAPSHOT_INTERVAL_MS / YEAR_MS);
  const logBase = Math.log(opts.startPrice);
  const dayAnchors = new Map<number, number>();
  const coarseDays = new Map<number, Float64Array>();
  const fineWindows = new Map<number, Float64Array>();
  const shocks = new Float64Array(Math.max(DAY_TERMS, FINE_PER_COARSE));

  // Log price at the start of day d: the shocks of the DAY_TERMS days before it (each day keyed
  // by its own number, so neighbouring anchors share all but one), summed in a fixed order.
  const dayAnchor = (d: number): number => {
    let x = dayAnchors.get(d);
    if (x !== undefined) return x;
    x = 0;
    for (let k = 0; k < DAY_TERMS; k++) x += DAY_WEIGHTS[k]! * daySd * normalAt(seed, streamOf(LEVEL_DAY), 0, d - 1 - k);
    x += logBase;
    remember(dayAnchors, d, x, CACHED_DAYS * 4);
    return x;
  };
  const coarseAnchor = (g: number): number => {
    const d = Math.floor(g / COARSE_PER_DAY);
    let day = coarseDays.get(d);
    if (!day) {
      day = bridge(dayAnchor(d), dayAnchor(d + 1), COARSE_PER_DAY, coarseSd, seed, streamOf(LEVEL_COARSE), d, shocks);
      remember(coarseDays, d, day, CACHED_DAYS);
    }
    return day[g - d * COARSE_PER_DAY]!;
  };
  const fineWindow = (g: number): Float64Array => {
    let w = fineWindows.get(g);
    if (!w) {
      w = bridge(coarseAnchor(g), coarseAnchor(g + 1), FINE_PER_COARSE, fineSd, seed, streamOf(LEVEL_FINE), g, shocks);
      remember(fineWindows, g, w, CACHED_WINDOWS);
    }
    return w;
  };

  return {
    sigma,
    priceAt(time: number): number {
      if (time % SNAPSHOT_INTERVAL_MS !== 0) throw new RangeError(`price path is defined on 125 ms steps, asked for ${time}`);
      const g = Math.floor(time / COARSE_STEP_MS);
      // A window's first step is its anchor exactly: market boundaries need no 125 ms window.
      if (time === g * COARSE_STEP_MS) return Math.exp(coarseAnchor(g));
      return Math.exp(fineWindow(g)[(time - g * COARSE_STEP_MS) / SNAPSHOT_INTERVAL_MS]!);
    },
  };
}

/**
 * n steps from `from` towards `to` (value i of n; the end belongs to the next interval): a keyed
 * random walk with the line from its own end to `to` added, which is a Brownian bridge. Value 0
 * is `from` exactly, so levels agree at their shared points.
 */
function bridge(from: number, to: number, n: number, sd: number, seed: number, stream: number, block: number, shocks: Float64Array): Float64Array {
  fillNormals(shocks, n, seed, stream, block);
  const out = new Float64Array(n);
  let walk = 0;
  for (let i = 0; i < n; i++) {
    out[i] = walk;
    walk += sd * shocks[i]!;
  }
  const gap = to - from - walk;
  for (let i = 0; i < n; i++) out[i] = from + out[i]! + (i / n) * gap;
  return out;
}

function remember<V>(cache: Map<number, V>, key: number, value: V, max: number): void {
  if (cache.size >= max) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

/** Annualised time left, for pricing the up/down probability. */
export function yearsOf(ms: number): number {
  return ms / YEAR_MS;
}
