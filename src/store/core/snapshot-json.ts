// Serialises raw snapshot rows straight into a JSON array string (or a local export's CSV or NDJSON
// lines, by their RowLayout): no intermediate objects and no JSON.stringify per row, which is what
// makes pages of thousands of snapshots cheap to serve.
import { V1_SNAPSHOT_FORMAT, type SnapshotFormat } from '../store.js';
import { EXACT_SCALED_LIMIT, PRICE_SCALE } from './price-scale.js';
import { servedPageLayout, type RowLayout } from '../../domain/row-layout.js';
import { idAt, pageIds, SNAPSHOT_ID_STRIDE, type PageIds } from './snapshot-ids.js';

export { SNAPSHOT_ID_STRIDE };

// Number-to-string of a double is the costly step per row; the fractional part of a scaled value
// and every probability (0..1 in steps of 1e-4) come from tables built once instead.
const FRACTIONS: string[] = Array.from({ length: PRICE_SCALE }, (_, i) => (i === 0 ? '' : String(i / PRICE_SCALE).slice(1)));
const PROBABILITIES: string[] = Array.from({ length: PRICE_SCALE + 1 }, (_, i) => String(i / PRICE_SCALE));

/** Use to print a stored (scaled, non-negative) value exactly as JSON would print value / 1e4. */
export function scaledToJson(v: number): string {
  if (v >= 0 && v <= PRICE_SCALE) return PROBABILITIES[v]!;
  return priceText(v);
}

/** A raw row as the page query returns it: t, price, price_up, price_down[, orderbook up, orderbook down]. */
export type RawSnapshotRow = [number, number, number, number, (string | null)?, (string | null)?];

/** Use to derive the public id of the snapshot at offset `t` ms of market row `marketRowid`. */
export function snapshotId(marketRowid: number, t: number): number {
  return marketRowid * SNAPSHOT_ID_STRIDE + t;
}

/**
 * Ids and times are 11-13 digit integers, above V8's small-integer range: printing one goes
 * through a slow double-to-string conversion. Both are written instead as a fixed head plus
 * 8 zero-padded low digits, each a small integer (msnap's own ids are rowid * 1e8 + t with t < 1e8;
 * any other pattern, and ids stored one by one, print plainly).
 * This holds the per-page pieces; three times faster pages than String(idBase + t).
 */
class PageText {
  private readonly idHead: string;
  private readonly timeLow: number;
  private readonly timeHead: string;
  private readonly timeHeadNext: string;
  /** Between the id and the time: the market id is the same for every row, written once. */
  readonly idToTime: string;
  /** False when a value falls outside what the split printing assumes; plain printing then. */
  private readonly split: boolean;

  private readonly ids: PageIds;
  /** Ids print as a head plus 8 digits of t only for a per-ms pattern whose base is a multiple of 1e8. */
  private readonly splitId: boolean;

  constructor(
    ids: number | PageIds,
    marketId: string,
    private readonly startTime: number,
    layout: RowLayout,
  ) {
    this.ids = pageIds(ids);
    const { base, step } = this.ids.pattern;
    // A start below 1e8 (1970-01-02) has an empty head: the low digits would print a leading zero.
    this.split = Number.isSafeInteger(startTime) && startTime >= SNAPSHOT_ID_STRIDE;
    this.splitId = step === null && Number.isSafeInteger(base) && base >= SNAPSHOT_ID_STRIDE && base % SNAPSHOT_ID_STRIDE === 0;
    const hi = Math.floor(startTime / SNAPSHOT_ID_STRIDE);
    this.idHead = String(base / SNAPSHOT_ID_STRIDE);
    this.timeLow = startTime - hi * SNAPSHOT_ID_STRIDE;
    this.timeHead = String(hi);
    this.timeHeadNext = String(hi + 1);
    this.idToTime = layout.idToTime(marketId);
  }

  /** The snapshot id at offset t (0 <= t < 1e8), as JSON. */
  id(t: number): string {
    const exception = this.ids.exceptions?.get(t);
    if (exception !== undefined) return String(exception);
    if (!this.splitId || !(t >= 0 && t < SNAPSHOT_ID_STRIDE)) return String(idAt(this.ids.pattern, t));
    return this.idHead + String(SNAPSHOT_ID_STRIDE + t).slice(1);
  }

  /** start_time + t, as JSON. */
  time(t: number): string {
    if (!this.split || !(t >= 0 && t < SNAPSHOT_ID_STRIDE)) return String(this.startTime + t);
    const low = this.timeLow + t;
    // low < 2e8: either "1" + 8 digits past the head, or the 8 digits themselves.
    return low < SNAPSHOT_ID_STRIDE
      ? this.timeHead + String(SNAPSHOT_ID_STRIDE + low).slice(1)
      : this.timeHeadNext + String(low).slice(1);
  }
}

// Exact only while the 4-decimal text is the shortest that reads back as the same double (below
// 1e15 scaled: the gap between doubles is then under 1e-4); beyond it, and for values no msnap
// writer stores (fractional), the number's own text: what JSON.stringify prints.
function priceText(p: number): string {
  return p >= 0 && p < EXACT_SCALED_LIMIT && p === Math.floor(p) ? Math.floor(p / PRICE_SCALE) + FRACTIONS[p % PRICE_SCALE]! : String(p / PRICE_SCALE);
}

function probabilityText(v: number): string {
  return PROBABILITIES[v] ?? String(v / PRICE_SCALE);
}

/** Use to turn a page of raw rows of one market into the contract's JSON array of snapshots (ids: a rowid for msnap's own). */
export function snapshotRowsToJson(
  rows: readonly RawSnapshotRow[],
  ids: number | PageIds,
  marketId: string,
  startTime: number,
  withOrderbook: boolean,
  format: SnapshotFormat = V1_SNAPSHOT_FORMAT,
): string {
  return writeSnapshotRows(rows, ids, marketId, startTime, servedPageLayout(format), withOrderbook);
}

/**
 * Use to write a page of raw rows of one market in any layout (a served page, an export's lines);
 * the layout's orderbook pieces are added only when `withOrderbook` (the rows then carry depth).
 */
export function writeSnapshotRows(
  rows: readonly RawSnapshotRow[],
  ids: number | PageIds,
  marketId: string,
  startTime: number,
  layout: RowLayout,
  withOrderbook: boolean,
): string {
  if (rows.length === 0) return layout.pageOpen + layout.pageClose;
  const text = new PageText(ids, marketId, startTime, layout);
  const iso = layout.isoTimes;
  const orderbook = withOrderbook ? layout.orderbook : undefined;
  const { rowOpen, price, up, down, rowClose } = layout;
  const between = layout.between + rowOpen;
  let out = layout.pageOpen;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const t = r[0];
    out +=
      (i === 0 ? rowOpen : between) +
      text.id(t) +
      text.idToTime +
      (iso ? `"${new Date(startTime + t).toISOString()}"` : text.time(t)) +
      price +
      priceText(r[1]) +
      up +
      probabilityText(r[2]) +
      down +
      probabilityText(r[3]);
    if (orderbook) out += orderbook(r[4] ?? null, r[5] ?? null);
    out += rowClose;
  }
  return out + layout.pageClose;
}
