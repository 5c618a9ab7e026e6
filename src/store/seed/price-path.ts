// One simulated price path per coin: coarse (5-minute steps) far back, where only market
// boundaries are needed, and fine (125 ms steps) over the span that gets full snapshots.
// Every market type of a coin reads the same path, so markets of different types agree.
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';
import { normalSource, type Random } from './prng.js';

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
/** Every market boundary is a multiple of 5 minutes, so the coarse path needs no finer step. */
export const COARSE_STEP_MS = 5 * 60_000;

/** A price path; priceAt answers for any 5-minute boundary and any 125 ms step at or after fineStart. */
export interface PricePath {
  readonly coarseStart: number;
  readonly fineStart: number;
  readonly fineEnd: number;
  /** Annualised volatility used to draw the path (the seed's up/down pricing uses the same). */
  readonly sigma: number;
  priceAt(time: number): number;
}

/** Use to simulate a coin from `coarseStart` to `fineEnd` (all multiples as described above). */
export function simulatePricePath(opts: {
  random: Random;
  startPrice: number;
  sigma: number;
  coarseStart: number;
  fineStart: number;
  fineEnd: number;
}): PricePath {
  const { coarseStart, fineStart, fineEnd, sigma } = opts;
  const normal = normalSource(opts.random);
  const coarseSteps = Math.round((fineStart - coarseStart) / COARSE_STEP_MS);
  const coarse = new Float64Array(coarseSteps + 1);
  const coarseSd = sigma * Math.sqrt(COARSE_STEP_MS / YEAR_MS);
  // Log-normal without drift: subtract sd^2/2 so the expected price stays level.
  let logP = Math.log(opts.startPrice);
  coarse[0] = opts.startPrice;
  for (let i = 1; i <= coarseSteps; i++) {
    logP += coarseSd * normal() - (coarseSd * coarseSd) / 2;
    coarse[i] = Math.exp(logP);
  }
  const fineSteps = Math.floor((fineEnd - fineStart) / SNAPSHOT_INTERVAL_MS);
  const fine = new Float64Array(fineSteps + 1);
  const fineSd = sigma * Math.sqrt(SNAPSHOT_INTERVAL_MS / YEAR_MS);
  fine[0] = coarse[coarseSteps]!;
  for (let i = 1; i <= fineSteps; i++) {
    logP += fineSd * normal() - (fineSd * fineSd) / 2;
    fine[i] = Math.exp(logP);
  }
  return {
    coarseStart,
    fineStart,
    fineEnd,
    sigma,
    priceAt(time: number): number {
      if (time >= fineStart) {
        const v = fine[Math.floor((time - fineStart) / SNAPSHOT_INTERVAL_MS)];
        if (v === undefined) throw new RangeError(`price path ends at ${fineEnd}, asked for ${time}`);
        return v;
      }
      const v = coarse[Math.floor((time - coarseStart) / COARSE_STEP_MS)];
      if (v === undefined) throw new RangeError(`price path starts at ${coarseStart}, asked for ${time}`);
      return v;
    },
  };
}

/** Annualised time left, for pricing the up/down probability. */
export function yearsOf(ms: number): number {
  return ms / YEAR_MS;
}
