// Resampling snapshots into bars: per market and time bucket, open/high/low/close of the asset
// price and of the probability of up, the last probability of down, and how many snapshots fell in.
// Streams: only the bar being filled is held, whatever the number of snapshots.
import type { Snapshot } from '../domain/market.js';

/** One bar of one market; `time` is the bucket's start (epoch ms, buckets aligned to UTC). */
export interface Bar {
  market_id: string;
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  up_open: number;
  up_high: number;
  up_low: number;
  up_close: number;
  down_close: number;
  /** Snapshots in the bucket; 0 for a bucket carried forward with --fill. */
  count: number;
}

/** Bar lengths `--resample` accepts. */
export const RESAMPLE_INTERVALS: Readonly<Record<string, number>> = {
  '1s': 1_000,
  '5s': 5_000,
  '1m': 60_000,
  '5m': 300_000,
  '1h': 3_600_000,
};

/** Use to read a `--resample` value; undefined when it is not one of RESAMPLE_INTERVALS. */
export function resampleInterval(value: string): number | undefined {
  return RESAMPLE_INTERVALS[value.toLowerCase()];
}

function openBar(s: Snapshot, time: number): Bar {
  return {
    market_id: s.market_id,
    time,
    open: s.price,
    high: s.price,
    low: s.price,
    close: s.price,
    up_open: s.price_up,
    up_high: s.price_up,
    up_low: s.price_up,
    up_close: s.price_up,
    down_close: s.price_down,
    count: 1,
  };
}

// A bucket with no snapshot, carried forward from the bar before it.
function carried(prev: Bar, time: number): Bar {
  const p = prev.close;
  const u = prev.up_close;
  return { market_id: prev.market_id, time, open: p, high: p, low: p, close: p, up_open: u, up_high: u, up_low: u, up_close: u, down_close: prev.down_close, count: 0 };
}

/**
 * Use to turn snapshot pages (grouped by market, oldest first in each, as the client streams them)
 * into bar pages. Buckets without snapshots are left out, or with `fill` carried forward between a
 * market's first and last bucket (count 0). A market's bars never mix with another market's.
 */
export async function* resamplePages(
  pages: AsyncIterable<readonly Snapshot[]> | Iterable<readonly Snapshot[]>,
  intervalMs: number,
  fill = false,
): AsyncGenerator<Bar[]> {
  let bar: Bar | undefined;
  for await (const page of pages) {
    const done: Bar[] = [];
    for (const s of page) {
      const bucket = Math.floor(s.time / intervalMs) * intervalMs;
      if (bar && bar.market_id === s.market_id && bar.time === bucket) {
        if (s.price > bar.high) bar.high = s.price;
        if (s.price < bar.low) bar.low = s.price;
        bar.close = s.price;
        if (s.price_up > bar.up_high) bar.up_high = s.price_up;
        if (s.price_up < bar.up_low) bar.up_low = s.price_up;
        bar.up_close = s.price_up;
        bar.down_close = s.price_down;
        bar.count += 1;
        continue;
      }
      if (bar) {
        done.push(bar);
        if (fill && bar.market_id === s.market_id) {
          for (let t = bar.time + intervalMs; t < bucket; t += intervalMs) done.push(carried(bar, t));
        }
      }
      bar = openBar(s, bucket);
    }
    if (done.length > 0) yield done;
  }
  if (bar) yield [bar];
}
