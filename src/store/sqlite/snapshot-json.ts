// Serialises raw snapshot rows straight into a JSON array string: no intermediate objects and no
// JSON.stringify per row, which is what makes pages of thousands of snapshots cheap to serve.
import { PRICE_SCALE } from './price-scale.js';

/** A raw row as the page query returns it: t, price, price_up, price_down[, orderbook up, orderbook down]. */
export type RawSnapshotRow = [number, number, number, number, (string | null)?, (string | null)?];

/** Snapshot ids are derived, never stored: unique because t < 100,000,000 ms (a 24hr market is 86,400,000). */
export const SNAPSHOT_ID_STRIDE = 100_000_000;

/** Use to derive the public id of the snapshot at offset `t` ms of market row `marketRowid`. */
export function snapshotId(marketRowid: number, t: number): number {
  return marketRowid * SNAPSHOT_ID_STRIDE + t;
}

/** Use to turn a page of raw rows of one market into the contract's JSON array of snapshots. */
export function snapshotRowsToJson(
  rows: readonly RawSnapshotRow[],
  marketRowid: number,
  marketId: string,
  startTime: number,
  withOrderbook: boolean,
): string {
  if (rows.length === 0) return '[]';
  const idBase = marketRowid * SNAPSHOT_ID_STRIDE;
  // The market id is the same for every row: quote it once.
  const idToTime = `,"market_id":${JSON.stringify(marketId)},"time":`;
  let out = '[';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const t = r[0];
    out +=
      (i === 0 ? '{"id":' : ',{"id":') +
      (idBase + t) +
      idToTime +
      (startTime + t) +
      ',"price":' +
      r[1] / PRICE_SCALE +
      ',"price_up":' +
      r[2] / PRICE_SCALE +
      ',"price_down":' +
      r[3] / PRICE_SCALE;
    if (withOrderbook && r[4] != null && r[5] != null) {
      out += ',"orderbook_up":' + r[4] + ',"orderbook_down":' + r[5];
    }
    out += '}';
  }
  return out + ']';
}
