// Serialises raw snapshot rows straight into a JSON array string: no intermediate objects and no
// JSON.stringify per row, which is what makes pages of thousands of snapshots cheap to serve.
import { PRICE_SCALE } from './price-scale.js';

// Number-to-string of a double is the costly step per row; the fractional part of a scaled value
// and every probability (0..1 in steps of 1e-4) come from tables built once instead.
const FRACTIONS: string[] = Array.from({ length: PRICE_SCALE }, (_, i) => (i === 0 ? '' : String(i / PRICE_SCALE).slice(1)));
const PROBABILITIES: string[] = Array.from({ length: PRICE_SCALE + 1 }, (_, i) => String(i / PRICE_SCALE));

/** Use to print a stored (scaled, non-negative) value exactly as JSON would print value / 1e4. */
export function scaledToJson(v: number): string {
  if (v >= 0 && v <= PRICE_SCALE) return PROBABILITIES[v]!;
  return v >= 0 ? Math.floor(v / PRICE_SCALE) + FRACTIONS[v % PRICE_SCALE]! : String(v / PRICE_SCALE);
}

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
    const p = r[1];
    out +=
      (i === 0 ? '{"id":' : ',{"id":') +
      (idBase + t) +
      idToTime +
      (startTime + t) +
      ',"price":' +
      (p >= 0 ? Math.floor(p / PRICE_SCALE) + FRACTIONS[p % PRICE_SCALE]! : String(p / PRICE_SCALE)) +
      ',"price_up":' +
      (PROBABILITIES[r[2]] ?? r[2] / PRICE_SCALE) +
      ',"price_down":' +
      (PROBABILITIES[r[3]] ?? r[3] / PRICE_SCALE);
    if (withOrderbook && r[4] != null && r[5] != null) {
      out += ',"orderbook_up":' + r[4] + ',"orderbook_down":' + r[5];
    }
    out += '}';
  }
  return out + ']';
}
