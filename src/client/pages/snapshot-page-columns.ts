// A snapshot page's rows read straight into columns (the form a Parquet export takes), in the one
// pass over the body that otherwise writes ready CSV (snapshot-page-scan.ts): no CSV is written
// and read back, no object or string is made per row. Only rows in the compact form msnap serve
// writes are taken; any other page answers undefined and goes the CSV way, which takes any key
// order and spacing.
//
// Numbers are accepted exactly where the CSV scan's copyNumber accepts them (at most 15
// significant digits, no exponent: see json-bytes.ts), and each is read as an integer below 2^53
// over a power of ten up to 10^20: one correctly rounded division, the very double JSON.parse gives.
import type { SnapshotColumnPage } from './row-page.js';
import { COMMA, DOT, LBRACE, MAX_DIGITS, MAX_LEADING_FRACTION_ZEROS, MINUS, NINE, QUOTE, RBRACKET, ZERO, plainTextEnd, skipSpace } from './json-bytes.js';
import { afterLiteral, scanPageBody, type RowKeys } from './snapshot-page-scan.js';

const LOWER_E = 0x65;
const UPPER_E = 0x45;
const POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

// Where numberAt stopped (after the number), or -1 where it refused the text: its second result,
// without an object per number.
let numberEnd = -1;

/**
 * The number whose JSON text starts at `i`, when the CSV scan would copy that text (see the file's
 * comment); else numberEnd is -1. Exported for the tests, which hold it to copyNumber and JSON.parse.
 */
export function numberAt(b: Uint8Array, i: number): number {
  const start = i;
  let c = b[i]!;
  if (c === MINUS) c = b[++i]!;
  const intStart = i;
  let mantissa = 0;
  while (c >= ZERO && c <= NINE) {
    mantissa = mantissa * 10 + (c - ZERO);
    c = b[++i]!;
  }
  const intDigits = i - intStart;
  numberEnd = -1;
  if (intDigits === 0 || (intDigits > 1 && b[intStart] === ZERO)) return 0;
  let digits = b[intStart] === ZERO ? 0 : intDigits;
  let scale = 0;
  if (c === DOT) {
    c = b[++i]!;
    const fraction = i;
    while (c >= ZERO && c <= NINE) {
      mantissa = mantissa * 10 + (c - ZERO);
      c = b[++i]!;
    }
    scale = i - fraction;
    if (scale === 0 || b[i - 1] === ZERO) return 0;
    if (digits === 0) {
      let z = fraction;
      while (b[z] === ZERO) z++;
      if (z - fraction > MAX_LEADING_FRACTION_ZEROS) return 0;
      digits = i - z;
    } else {
      digits += scale;
    }
  } else if (digits === 0 && start !== intStart) {
    return 0; // -0: JavaScript prints it as 0
  }
  if (digits > MAX_DIGITS || c === LOWER_E || c === UPPER_E) return 0;
  numberEnd = i;
  const value = scale === 0 ? mantissa : mantissa / POW10[scale]!;
  return start === intStart ? value : -value;
}

/** Columns being filled: five numbers per row (slot s of row r at s * capacity + r) and market indexes. */
class ColumnFill {
  values: Float64Array;
  market: Int32Array;
  count = 0;
  marketIds: string[] = [];
  // The previous row's market id: where its text sat in the body, and its index.
  lastStart = -1;
  lastLength = 0;
  lastIndex = -1;

  constructor(public capacity: number) {
    this.values = new Float64Array(capacity * 5);
    this.market = new Int32Array(capacity);
  }

  grow(): void {
    const capacity = this.capacity * 2;
    const values = new Float64Array(capacity * 5);
    for (let s = 0; s < 5; s++) values.set(this.values.subarray(s * this.capacity, s * this.capacity + this.count), s * capacity);
    const market = new Int32Array(capacity);
    market.set(this.market.subarray(0, this.count));
    this.values = values;
    this.market = market;
    this.capacity = capacity;
  }

  // The filled rows copied to `base` in `buffer` (8-byte aligned, room for 44 bytes a row): the
  // fill itself is reused for the next page.
  page(buffer: ArrayBufferLike, base: number): SnapshotColumnPage {
    const n = this.count;
    const column = (s: number): Float64Array => {
      const out = new Float64Array(buffer, base + s * n * 8, n);
      out.set(this.values.subarray(s * this.capacity, s * this.capacity + n));
      return out;
    };
    const market = new Int32Array(buffer, base + n * 40, n);
    market.set(this.market.subarray(0, n));
    return { id: column(0), time: column(1), price: column(2), up: column(3), down: column(4), marketIds: this.marketIds, market };
  }

  /** Empty again for the next page, with room for at least `capacity` rows. */
  reset(capacity: number): this {
    if (capacity > this.capacity) {
      this.capacity = capacity;
      this.values = new Float64Array(capacity * 5);
      this.market = new Int32Array(capacity);
    }
    this.count = 0;
    this.marketIds = [];
    this.lastStart = -1;
    this.lastLength = 0;
    this.lastIndex = -1;
    return this;
  }
}

// The row's market id, whose text starts at `i` (after its `"`): its index into fill.marketIds
// set for row `r`; returns where its closing `"` is, or -1 where CSV could not hold it unquoted.
function marketIdAt(b: Uint8Array, view: DataView, i: number, fill: ColumnFill, r: number): number {
  // Nearly every row names the market the row before named: compared four bytes at a time.
  const last = fill.lastStart;
  const length = fill.lastLength;
  if (last >= 0 && b[i + length] === QUOTE) {
    let k = 0;
    for (; k + 4 <= length; k += 4) if (view.getUint32(i + k) !== view.getUint32(last + k)) break;
    if (k + 4 > length) while (k < length && b[i + k] === b[last + k]) k++;
    if (k === length) {
      fill.market[r] = fill.lastIndex;
      fill.lastStart = i;
      return i + length;
    }
  }
  const end = plainTextEnd(b, i);
  if (end < 0) return -1;
  const text = Buffer.from(b.buffer, b.byteOffset + i, end - i).toString('latin1');
  let index = fill.marketIds.indexOf(text);
  if (index < 0) index = fill.marketIds.push(text) - 1;
  fill.market[r] = index;
  fill.lastStart = i;
  fill.lastLength = end - i;
  fill.lastIndex = index;
  return end;
}

// The row at `i` (its `{`) in the compact form into row `fill.count`; after it, or -1.
function compactRow(b: Uint8Array, view: DataView, i: number, keys: RowKeys, fill: ColumnFill): number {
  const literals = keys.compact;
  const r = fill.count;
  const values = fill.values;
  const capacity = fill.capacity;
  let column = 0;
  for (let s = 0; s <= 6; s++) {
    i = afterLiteral(b, view, i, literals[s]!);
    if (i < 0) return -1;
    if (s === 6) break;
    if (s === 1) {
      i = marketIdAt(b, view, i, fill, r);
      if (i < 0) return -1;
      continue;
    }
    values[column * capacity + r] = numberAt(b, i);
    if (numberEnd < 0) return -1;
    i = numberEnd;
    column++;
  }
  return i;
}

// Scans are synchronous: one fill serves them all (it only grows, to the largest page seen).
const reusedFill = new ColumnFill(16);

interface ColumnRows {
  start: number;
  end: number;
  fill: ColumnFill;
}

// The array at `at` (its `[`), every row in the compact form; undefined at the first that is not.
function scanColumns(b: Uint8Array, at: number, keys: RowKeys): ColumnRows | undefined {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  // A compact row takes at least its keys and six one-byte values: a bound on the rows, less a
  // wild guess than growing from nothing, and corrected by grow() if a service pads them.
  let minRow = 7;
  for (const l of keys.compact) minRow += l.length;
  const fill = reusedFill.reset(Math.ceil((b.length - at) / minRow));
  let i = skipSpace(b, at + 1);
  if (b[i] === RBRACKET) return { start: at, end: i + 1, fill };
  for (;;) {
    if (b[i] !== LBRACE) return undefined;
    if (fill.count === fill.capacity) fill.grow();
    i = compactRow(b, view, i, keys, fill);
    if (i < 0) return undefined;
    fill.count++;
    if (b[i] === COMMA) {
      i++;
      continue;
    }
    i = skipSpace(b, i);
    if (b[i] === COMMA) {
      i = skipSpace(b, i + 1);
      continue;
    }
    if (b[i] !== RBRACKET) return undefined;
    return { start: at, end: i + 1, fill };
  }
}

/** What the column scan made of a page: its rows as columns, and the body's envelope (`snapshots` emptied). */
export interface ColumnPage {
  count: number;
  columns: SnapshotColumnPage;
  envelope: Record<string, unknown>;
}

/** Bytes a row takes as columns: five doubles and a market index. */
const ROW_BYTES = 44;

/**
 * Use on the raw body of a snapshot page asked for as columns: its rows as columns when every row
 * is in the compact form, written over the rows' JSON in `b` (which is then no longer JSON, as
 * with the CSV scan: the page holds no second copy); else undefined with `b` untouched, and the
 * CSV scan (scanSnapshotPage) or the general path reads it.
 */
export function scanSnapshotColumns(b: Uint8Array, keys: RowKeys): ColumnPage | undefined {
  const scanned = scanPageBody(b, (body, at) => scanColumns(body, at, keys));
  if (!scanned) return undefined;
  const { start, end, fill } = scanned.rows;
  // A compact row's JSON is longer than its 44 bytes of columns, so they fit where the rows were
  // (from the first 8-byte boundary, as a Float64Array needs); a fresh buffer only if they do not.
  const aligned = (b.byteOffset + start + 7) & ~7;
  const fits = aligned + fill.count * ROW_BYTES <= b.byteOffset + end;
  const columns = fits ? fill.page(b.buffer, aligned) : fill.page(new ArrayBuffer(fill.count * ROW_BYTES), 0);
  return { count: fill.count, columns, envelope: scanned.envelope };
}
