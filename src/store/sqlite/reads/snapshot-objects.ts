// A page of stored snapshots as the contract's records, for local reads that skip HTTP and JSON:
// the same values the JSON writers print, parsed back (a scaled integer / 1e4 is the double
// nearest its 4-decimal text, so JSON.parse of that text gives the very same number).
import type { Snapshot } from '../../../domain/market.js';
import { SNAPSHOT_INTERVAL_MS } from '../../../domain/market.js';
import { SIDE_BITS } from '../../core/dense-page-writer.js';
import { fromScaled } from '../../core/price-scale.js';
import { idAt, type PageIds } from '../../core/snapshot-ids.js';
import type { RawSnapshotRow } from '../../core/snapshot-json.js';

const SIDE_MASK = (1 << SIDE_BITS) - 1;

/** True when dense values hold only what the dense writers print (no out-of-range probability, no negative price). */
export function packable(prices: ArrayLike<number>, sides: ArrayLike<number>): boolean {
  for (let i = 0; i < prices.length; i++) {
    const p = prices[i]!;
    if (sides[i]! < 0 || !(p >= 0) || p !== Math.floor(p) || p > Number.MAX_SAFE_INTEGER) return false;
  }
  return true;
}

/** Use for a dense page (rows at t = firstT, firstT + 125, ...; no exceptions among its ids). */
export function denseToSnapshots(
  prices: ArrayLike<number>,
  sides: ArrayLike<number>,
  firstT: number,
  ids: PageIds,
  marketId: string,
  startTime: number,
): Snapshot[] {
  const out = new Array<Snapshot>(prices.length);
  let t = firstT;
  for (let i = 0; i < prices.length; i++) {
    const ud = sides[i]!;
    out[i] = {
      id: idAt(ids.pattern, t),
      market_id: marketId,
      time: startTime + t,
      price: fromScaled(prices[i]!),
      price_up: fromScaled(ud >> SIDE_BITS),
      price_down: fromScaled(ud & SIDE_MASK),
    };
    t += SNAPSHOT_INTERVAL_MS;
  }
  return out;
}

/** Use for a page of raw rows; orderbooks are parsed from their stored JSON text when asked for. */
export function rowsToSnapshots(
  rows: readonly RawSnapshotRow[],
  ids: PageIds,
  marketId: string,
  startTime: number,
  withOrderbook: boolean,
): Snapshot[] {
  const out = new Array<Snapshot>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const t = r[0];
    const s: Snapshot = {
      id: ids.exceptions?.get(t) ?? idAt(ids.pattern, t),
      market_id: marketId,
      time: startTime + t,
      price: fromScaled(r[1]),
      price_up: fromScaled(r[2]),
      price_down: fromScaled(r[3]),
    };
    if (withOrderbook && r[4] != null && r[5] != null) {
      s.orderbook_up = JSON.parse(r[4]) as Snapshot['orderbook_up'];
      s.orderbook_down = JSON.parse(r[5]) as Snapshot['orderbook_down'];
    }
    out[i] = s;
  }
  return out;
}
