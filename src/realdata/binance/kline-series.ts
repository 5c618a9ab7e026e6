// The closes of a run of Binance klines, kept as two sorted columns: what the import reads an
// asset price from (REALDATA.md "price": the close of the last kline closed by t).
import { UsageError } from '../../errors.js';

/** Kline closes by close time (epoch ms), sorted, each close time once. */
export interface KlineSeries {
  symbol: string | null;
  interval: string | null;
  closeTimes: Float64Array;
  closes: Float64Array;
}

/**
 * Use to build a series from closes in any order: sorted by close time, a close time seen twice
 * kept once (the last given), so re-read or overlapping files add nothing.
 */
export function klineSeries(symbol: string | null, interval: string | null, closeTimes: ArrayLike<number>, closes: ArrayLike<number>): KlineSeries {
  const order = Array.from({ length: closeTimes.length }, (_, i) => i);
  let sorted = true;
  for (let i = 1; i < closeTimes.length && sorted; i++) sorted = closeTimes[i - 1]! <= closeTimes[i]!;
  // A stable sort keeps equal close times in the order given, so the last given stays last.
  if (!sorted) order.sort((a, b) => closeTimes[a]! - closeTimes[b]!);
  const times: number[] = [];
  const values: number[] = [];
  for (const i of order) {
    const t = closeTimes[i]!;
    if (times.length > 0 && times[times.length - 1] === t) values[values.length - 1] = closes[i]!;
    else {
      times.push(t);
      values.push(closes[i]!);
    }
  }
  return { symbol, interval, closeTimes: Float64Array.from(times), closes: Float64Array.from(values) };
}

/**
 * Use for the asset price known at `t`: the close of the last kline with closeTime <= t (the
 * candle containing t has not closed yet); undefined before the first close.
 */
export function priceAt(series: KlineSeries, t: number): number | undefined {
  const times = series.closeTimes;
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : series.closes[lo - 1];
}

/**
 * Use to join the series of several files or pages into one (overlaps counted once). Series of
 * two symbols are a UsageError; of two intervals, the join has interval null.
 */
export function mergeKlines(all: KlineSeries[]): KlineSeries {
  const symbols = new Set(all.map((s) => s.symbol).filter((s): s is string => s !== null));
  if (symbols.size > 1) throw new UsageError(`cannot join the prices of ${[...symbols].join(' and ')} into one series`);
  const intervals = new Set(all.map((s) => s.interval));
  const times: number[] = [];
  const closes: number[] = [];
  for (const s of all) {
    for (let i = 0; i < s.closeTimes.length; i++) {
      times.push(s.closeTimes[i]!);
      closes.push(s.closes[i]!);
    }
  }
  return klineSeries([...symbols][0] ?? null, intervals.size === 1 ? [...intervals][0]! : null, times, closes);
}
