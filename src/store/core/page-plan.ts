// Which stored rows a snapshot page covers, and which snapshot is nearest a time: the arithmetic
// every backend shares, so SQLite and PostgreSQL page and pick alike.
import { SNAPSHOT_INTERVAL_MS, type Snapshot } from '../../domain/market.js';
import type { SnapshotQuery } from '../store.js';
import type { MarketRow } from './market-row.js';
import { fromScaled } from './price-scale.js';
import { idAt, patternOf } from './snapshot-ids.js';

/** Offsets [lo, hi) within the market a query asks for. */
export interface OffsetRange {
  lo: number;
  hi: number;
}

/** Use first in every page read: the query's offsets within the market, or undefined when no stored row can match. */
export function offsetRange(m: MarketRow, q: Pick<SnapshotQuery, 'from' | 'before'>): OffsetRange | undefined {
  const duration = m.end_time - m.start_time;
  // Offsets within the market; times outside [start, end) hold no snapshots.
  const lo = q.from === undefined ? 0 : Math.max(0, q.from - m.start_time);
  const hi = q.before === undefined ? duration : Math.min(duration, q.before - m.start_time);
  return hi <= lo || m.snapshot_count === 0 ? undefined : { lo, hi };
}

/** A dense market's page as a key range: `total` rows in the asked range, and the page's offsets [from, to). */
export interface DensePageRange {
  total: number;
  /** Row numbers [first, last) of the page (k: the row at k * 125 ms). */
  first: number;
  last: number;
  from: number;
  to: number;
}

/**
 * Use for a dense market (rows exactly k * 125 for k < snapshot_count): the page is a key range,
 * no OFFSET walk. `last <= first` when the page is past the end.
 */
export function densePageRange(m: MarketRow, range: OffsetRange, q: Pick<SnapshotQuery, 'offset' | 'limit'>): DensePageRange {
  const kLo = Math.ceil(range.lo / SNAPSHOT_INTERVAL_MS);
  const kHi = Math.min(m.snapshot_count, Math.ceil(range.hi / SNAPSHOT_INTERVAL_MS));
  const total = Math.max(0, kHi - kLo);
  const first = kLo + q.offset;
  const last = Math.min(kHi, first + q.limit);
  return { total, first, last, from: first * SNAPSHOT_INTERVAL_MS, to: last * SNAPSHOT_INTERVAL_MS };
}

/** A stored row as the nearest read sees it: offset t, then scaled price, up and down. */
export type NearRow = readonly [number, number, number, number, ...unknown[]];

/** Use with the last row at or before offset `t` and the first after it: the nearest, the earlier winning a tie. */
export function pickNearest<R extends NearRow>(before: R | undefined, after: R | undefined, t: number): R | undefined {
  // The earlier one wins a tie, so `after` needs to be strictly closer.
  if (after && (!before || after[0] - t < t - before[0])) return after;
  return before;
}

/** Use to answer a nearest read: the record of the picked row, its stored id when it is an exception, and its depth texts when asked. */
export function nearestRecord(m: MarketRow, pick: NearRow, storedId: number | undefined | null, depth?: readonly [string, string]): Snapshot {
  const snapshot: Snapshot = {
    id: storedId ?? idAt(patternOf(m), pick[0]),
    market_id: m.market_id,
    time: m.start_time + pick[0],
    price: fromScaled(pick[1]),
    price_up: fromScaled(pick[2]),
    price_down: fromScaled(pick[3]),
  };
  if (depth) {
    snapshot.orderbook_up = JSON.parse(depth[0]) as Snapshot['orderbook_up'];
    snapshot.orderbook_down = JSON.parse(depth[1]) as Snapshot['orderbook_down'];
  }
  return snapshot;
}
