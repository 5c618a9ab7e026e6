// A market's series cut to [from, to), for sources that read whole markets: the same snapshots a
// ranged read (`msnap snapshots --from --to`) returns, as views on the same columns.
import type { MarketSeries, OutcomeSide } from '../../domain/market-series.js';
import type { SnapshotRange } from './snapshot-series.js';

/** First index with time >= t (time ascending). */
function lowerBound(time: ArrayLike<number>, n: number, t: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (time[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function view(col: ArrayLike<number>, a: number, b: number): ArrayLike<number> {
  const sub = (col as { subarray?: (a: number, b: number) => ArrayLike<number> }).subarray;
  return sub ? sub.call(col, a, b) : Array.prototype.slice.call(col, a, b);
}

/** Use on whole-market series when a range was asked for; the series itself when the range cuts nothing. */
export function sliceSeries(s: MarketSeries, range: SnapshotRange): MarketSeries {
  const a = range.from === undefined ? 0 : lowerBound(s.time, s.length, range.from);
  const b = range.to === undefined ? s.length : lowerBound(s.time, s.length, range.to);
  if (a === 0 && b === s.length) return s;
  const end = Math.max(a, b);
  return {
    market: s.market,
    length: end - a,
    time: view(s.time, a, end),
    price: view(s.price, a, end),
    priceUp: view(s.priceUp, a, end),
    priceDown: view(s.priceDown, a, end),
    book: (i, side) => s.book(i + a, side),
    ...(s.bestPrices && {
      bestPrices: (side: OutcomeSide) => {
        const b = s.bestPrices!(side);
        return { bids: view(b.bids, a, end), asks: view(b.asks, a, end) };
      },
    }),
  };
}
