// One pass over the bytes of a snapshot page's body that turns its rows straight into the
// contract's CSV lines, without building an object or a number per row. JSON.parse, the
// normaliser and number-to-text conversion were most of an export's CPU (the bench's figure 2);
// here each value's bytes are copied as they came. That is exact only where the text is what
// JavaScript itself prints for the value, so the scan accepts nothing else (see copyNumber) and
// answers undefined for any page it cannot prove: the caller then parses the page as before.
//
// Accepted rows are objects holding exactly the six snapshot fields (any order, no repeats):
// `market_id` a string of printable ASCII without `"`, `\` or `,` (CSV would quote it), the rest
// numbers. An orderbook, an extra field or an escape sends the page down the general path.

import { COLON, COMMA, LBRACE, LBRACKET, LF, QUOTE, RBRACE, RBRACKET, bytesOf, copyNumber, copyText, plainTextEnd, skipSpace, valueEnd } from './json-bytes.js';

/** What the scan made of a page: its CSV now sits in the body, where the rows' JSON was. */
export interface ScannedPage {
  /** Rows in the `snapshots` array. */
  count: number;
  /** The rows as CSV lines `id,market_id,time,price,price_up,price_down\n`, in order (a view into the body). */
  csv: Uint8Array;
  /** The body's object with its `snapshots` array emptied (`[]`): the paging fields, the market. */
  envelope: Record<string, unknown>;
}

const SLOTS = 6;
const MARKET_ID_SLOT = 1;
const ALL_SLOTS = (1 << SLOTS) - 1;
const SNAPSHOTS_KEY = bytesOf('snapshots');

/** The slot a key's bytes `[start, end)` name, or -1. */
function slotOf(b: Uint8Array, start: number, end: number, names: readonly Uint8Array[], slots: readonly number[]): number {
  const length = end - start;
  for (let n = 0; n < names.length; n++) {
    const name = names[n]!;
    if (name.length !== length) continue;
    let j = 0;
    while (j < length && b[start + j] === name[j]) j++;
    if (j === length) return slots[n]!;
  }
  return -1;
}

/** A fixed piece of text, as little-endian 32-bit words (compared four bytes at a time) and the bytes left over. */
export interface Literal {
  words: Uint32Array;
  tail: Uint8Array;
  length: number;
}

function literal(text: string): Literal {
  const bytes = Buffer.from(text, 'latin1');
  const whole = bytes.length >> 2;
  const words = new Uint32Array(whole);
  for (let k = 0; k < whole; k++) words[k] = bytes.readUInt32LE(k * 4);
  return { words, tail: Uint8Array.from(bytes.subarray(whole * 4)), length: bytes.length };
}

/** The key names the scan accepts for each CSV column, compiled once per dialect. */
export interface RowKeys {
  names: readonly Uint8Array[];
  slots: readonly number[];
  /** The text before each value of a row as JSON.stringify writes it, fields in CSV order, and after the last. */
  compact: readonly Literal[];
}

/**
 * Use once per dialect (and coin): `priceKeys` are the names the price may come under
 * (v1 `price`; v4 `btc_price`, or `price`), the first the one the service is expected to use.
 * A row may hold only one of them.
 */
export function rowKeys(priceKeys: readonly string[]): RowKeys {
  const fields: [string, number][] = [['id', 0], ['market_id', 1], ['time', 2], ...priceKeys.map((k): [string, number] => [k, 3]), ['price_up', 4], ['price_down', 5]];
  const compact = ['{"id":', ',"market_id":"', '","time":', `,"${priceKeys[0]}":`, ',"price_up":', ',"price_down":', '}'];
  return { names: fields.map(([name]) => bytesOf(name)), slots: fields.map(([, slot]) => slot), compact: compact.map(literal) };
}

// The CSV of the page being scanned is written here, then copied over the rows' JSON once the
// whole page proved fit: a page that fails leaves its body as it came. Scans are synchronous, so
// one buffer serves them all; it only grows (to the largest page seen).
let scratch = Buffer.allocUnsafeSlow(0);

/** Where a page's `snapshots` array sat in its body: its `[`, and just after its `]`. */
export interface ArraySpan {
  start: number;
  end: number;
}

/**
 * Use to scan a snapshot page body (a JSON object with a `snapshots` array) in one pass: every key
 * but `snapshots` is skipped, the array is handed to `scanArray` (at its `[`), and the rest is
 * parsed as the envelope (the object with `snapshots` emptied). Undefined when `scanArray` refuses
 * or the body is not of that plain form: parse it the general way then.
 */
export function scanPageBody<R extends ArraySpan>(b: Uint8Array, scanArray: (b: Uint8Array, at: number) => R | undefined): { rows: R; envelope: Record<string, unknown> } | undefined {
  let i = skipSpace(b, 0);
  if (b[i] !== LBRACE) return undefined;
  i = skipSpace(b, i + 1);
  let rows: R | undefined;
  if (b[i] === RBRACE) return undefined;
  for (;;) {
    // A key with an escape might spell `snapshots` too: such a body is left to JSON.parse.
    if (b[i] !== QUOTE) return undefined;
    const keyEnd = plainTextEnd(b, i + 1);
    if (keyEnd < 0) return undefined;
    const isSnapshots = slotOf(b, i + 1, keyEnd, [SNAPSHOTS_KEY], [0]) === 0;
    i = skipSpace(b, keyEnd + 1);
    if (b[i] !== COLON) return undefined;
    i = skipSpace(b, i + 1);
    if (isSnapshots) {
      // A repeated key: JSON.parse keeps the last; leave such a body to it.
      if (rows || b[i] !== LBRACKET) return undefined;
      rows = scanArray(b, i);
      if (!rows) return undefined;
      i = rows.end;
    } else {
      i = valueEnd(b, i);
      if (i < 0) return undefined;
    }
    i = skipSpace(b, i);
    if (b[i] === COMMA) {
      i = skipSpace(b, i + 1);
      continue;
    }
    if (b[i] !== RBRACE) return undefined;
    break;
  }
  if (!rows || skipSpace(b, i + 1) !== b.length) return undefined;
  const text = Buffer.from(b.buffer, b.byteOffset, b.length);
  let envelope: unknown;
  try {
    envelope = JSON.parse(text.toString('utf8', 0, rows.start + 1) + text.toString('utf8', rows.end - 1));
  } catch {
    return undefined;
  }
  if (envelope === null || typeof envelope !== 'object' || Array.isArray(envelope)) return undefined;
  return { rows, envelope: envelope as Record<string, unknown> };
}

/**
 * Use on the raw body of a snapshot page (a JSON object with a `snapshots` array). On success the
 * rows' JSON in `b` is overwritten by their CSV (`csv` views it) and the body is no longer JSON.
 * Undefined, with `b` untouched, when any row is not of the plain shape above or the body is not
 * of that form at all: parse it the general way then (which also says what is wrong with it).
 */
export function scanSnapshotPage(b: Uint8Array, keys: RowKeys): ScannedPage | undefined {
  const scanned = scanPageBody(b, (body, at) => scanRows(body, at, keys));
  if (!scanned) return undefined;
  const { rows, envelope } = scanned;
  // The CSV is shorter than the JSON it replaces (no keys, no quotes).
  b.set(scratch.subarray(0, rows.csvLength), rows.start);
  return { count: rows.count, csv: b.subarray(rows.start, rows.start + rows.csvLength), envelope };
}

interface ScannedRows extends ArraySpan {
  count: number;
  csvLength: number;
}

// The array at `at` (its `[`), row by row, its CSV written to `scratch`; undefined at the first row it cannot copy.
function scanRows(b: Uint8Array, at: number, keys: RowKeys): ScannedRows | undefined {
  // A CSV line is shorter than its JSON object, so this always suffices.
  if (scratch.length < b.length - at) scratch = Buffer.allocUnsafeSlow(b.length - at);
  const out = scratch;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let o = 0;
  let count = 0;
  let i = skipSpace(b, at + 1);
  if (b[i] === RBRACKET) return { count: 0, csvLength: 0, start: at, end: i + 1 };
  for (;;) {
    if (b[i] !== LBRACE) return undefined;
    // Most rows are as JSON.stringify writes them, in CSV order: copied in one pass.
    const next = compactRow(b, view, i, keys.compact, out, o);
    i = next >= 0 ? next : anyRow(b, i, keys, out, o);
    if (i < 0) return undefined;
    o = rowEnd;
    count++;
    i = skipSpace(b, i);
    if (b[i] === COMMA) {
      i = skipSpace(b, i + 1);
      continue;
    }
    if (b[i] !== RBRACKET) return undefined;
    return { count, csvLength: o, start: at, end: i + 1 };
  }
}

// Where the last row's line ended in the output: the second result of compactRow and anyRow,
// kept here rather than in an object per row.
let rowEnd = 0;

/** After `literal` when the bytes at `i` are it (four at a time through `view`, which views `b`); else -1. */
export function afterLiteral(b: Uint8Array, view: DataView, i: number, literal: Literal): number {
  const { words, tail, length } = literal;
  if (i + length > b.length) return -1;
  for (let k = 0; k < words.length; k++, i += 4) if (view.getUint32(i, true) !== words[k]) return -1;
  for (let k = 0; k < tail.length; k++, i++) if (b[i] !== tail[k]) return -1;
  return i;
}

/** After the row at `i` when it is in the compact form, its line written at `o` (see rowEnd); else -1. */
function compactRow(b: Uint8Array, view: DataView, i: number, literals: readonly Literal[], out: Uint8Array, o: number): number {
  for (let s = 0; s <= SLOTS; s++) {
    i = afterLiteral(b, view, i, literals[s]!);
    if (i < 0) return -1;
    if (s === SLOTS) break;
    const end = s === MARKET_ID_SLOT ? copyText(b, i, out, o) : copyNumber(b, i, out, o);
    if (end < 0) return -1;
    o += end - i;
    out[o++] = s === SLOTS - 1 ? LF : COMMA;
    i = end;
  }
  rowEnd = o;
  return i;
}

// Values of a row in another order are copied here first, then written out in CSV order.
let rowScratch = Buffer.allocUnsafeSlow(256);

/** After the row at `i` in any key order and spacing, its line written at `o` (see rowEnd); else -1. */
function anyRow(b: Uint8Array, i: number, keys: RowKeys, out: Uint8Array, o: number): number {
  // No value is longer than what is left of the body.
  if (rowScratch.length < b.length - i) rowScratch = Buffer.allocUnsafeSlow(b.length - i);
  const values = rowScratch;
  const spans = new Int32Array(SLOTS * 2);
  let v = 0;
  let seen = 0;
  i = skipSpace(b, i + 1);
  for (;;) {
    if (b[i] !== QUOTE) return -1;
    const keyEnd = plainTextEnd(b, i + 1);
    if (keyEnd < 0) return -1;
    const slot = slotOf(b, i + 1, keyEnd, keys.names, keys.slots);
    if (slot < 0 || (seen & (1 << slot)) !== 0) return -1;
    seen |= 1 << slot;
    i = skipSpace(b, keyEnd + 1);
    if (b[i] !== COLON) return -1;
    i = skipSpace(b, i + 1);
    const text = slot === MARKET_ID_SLOT;
    if (text && b[i++] !== QUOTE) return -1;
    const end = text ? copyText(b, i, values, v) : copyNumber(b, i, values, v);
    if (end < 0) return -1;
    spans[slot * 2] = v;
    v += end - i;
    spans[slot * 2 + 1] = v;
    i = skipSpace(b, text ? end + 1 : end);
    if (b[i] === COMMA) {
      i = skipSpace(b, i + 1);
      continue;
    }
    if (b[i] !== RBRACE) return -1;
    break;
  }
  if (seen !== ALL_SLOTS) return -1;
  for (let s = 0; s < SLOTS; s++) {
    const end = spans[s * 2 + 1]!;
    for (let j = spans[s * 2]!; j < end; j++) out[o++] = values[j]!;
    out[o++] = s === SLOTS - 1 ? LF : COMMA;
  }
  rowEnd = o;
  return i + 1;
}
