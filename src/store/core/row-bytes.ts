// Printing a snapshot row into a byte buffer: ASCII digits through a table of 4-digit groups, a
// RowLayout's pieces as bytes, and what a page's rows share (ids, times, the market id) checked
// once per page. The dense and raw-row page writers build on it.
import { EXACT_SCALED_LIMIT, PRICE_SCALE } from './price-scale.js';
import type { RowLayout } from '../../domain/row-layout.js';
import { idAt, SNAPSHOT_ID_STRIDE, type PageIds } from './snapshot-ids.js';

/** Longest row: fixed keys and a market id (~120 bytes) plus 20-digit numbers; generous on purpose. */
const ROW_BYTES_BESIDES_ID = 200;
const ZERO = 48;

let scratch = Buffer.allocUnsafe(1 << 20);

/** Use for text that goes into a page as bytes; undefined when it is not ASCII. */
export function ascii(text: string): Uint8Array | undefined {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 127) return undefined;
    bytes[i] = c;
  }
  return bytes;
}

/** A layout's pieces as bytes, made once per layout (undefined: a piece is not ASCII). */
export interface LayoutBytes {
  pageOpen: Uint8Array;
  pageClose: Uint8Array;
  between: Uint8Array;
  rowOpen: Uint8Array;
  price: Uint8Array;
  up: Uint8Array;
  down: Uint8Array;
  rowClose: Uint8Array;
}
const layoutBytes = new WeakMap<RowLayout, LayoutBytes | null>();

export function bytesOf(layout: RowLayout): LayoutBytes | undefined {
  let bytes = layoutBytes.get(layout);
  if (bytes === undefined) {
    const parts = {
      pageOpen: ascii(layout.pageOpen),
      pageClose: ascii(layout.pageClose),
      between: ascii(layout.between),
      rowOpen: ascii(layout.rowOpen),
      price: ascii(layout.price),
      up: ascii(layout.up),
      down: ascii(layout.down),
      rowClose: ascii(layout.rowClose),
    };
    bytes = Object.values(parts).every((b) => b !== undefined) ? (parts as LayoutBytes) : null;
    layoutBytes.set(layout, bytes);
  }
  return bytes ?? undefined;
}

/** What every row of a page shares, checked once: the layout's bytes, the market id's, how ids print. */
export interface PageSetup {
  pieces: LayoutBytes;
  /** The buffer to write into (unless asked for one of its own, reused by the next page: copy or decode before then). */
  buf: Buffer;
  idToTime: Uint8Array;
  /** msnap's own ids (a per-ms pattern on a multiple of 1e8) print as this head plus 8 digits of t. */
  idHead: Uint8Array | undefined;
  /** Where a time's 8 low digits start: the start's low digits; the head above them, and the next. */
  timeLow: number;
  timeHead: Uint8Array;
  timeHeadNext: Uint8Array;
}

/**
 * Use before writing `n` rows at offsets firstT..lastT of a market: undefined when a value lies
 * outside what the byte writers print (huge or negative ids, times before 1970-01-02, a non-ASCII
 * market id or piece): the caller then takes the general path.
 */
export function pageSetup(
  n: number,
  firstT: number,
  lastT: number,
  ids: PageIds,
  marketId: string,
  startTime: number,
  layout: RowLayout,
  extraPerRow = 0,
  ownBuffer = false,
): PageSetup | undefined {
  const pieces = bytesOf(layout);
  if (!pieces) return undefined;
  const { base, step } = ids.pattern;
  if (!(Number.isSafeInteger(idAt(ids.pattern, firstT)) && idAt(ids.pattern, firstT) >= 0)) return undefined;
  if (!(Number.isSafeInteger(idAt(ids.pattern, lastT)) && idAt(ids.pattern, lastT) >= 0)) return undefined;
  const headed = step === null && base >= SNAPSHOT_ID_STRIDE && base % SNAPSHOT_ID_STRIDE === 0 && base / SNAPSHOT_ID_STRIDE < SNAPSHOT_ID_STRIDE;
  // Times below 1e8 (1970-01-02) would print a leading zero after their empty head.
  if (!(Number.isSafeInteger(startTime) && startTime >= SNAPSHOT_ID_STRIDE && firstT >= 0 && lastT < SNAPSHOT_ID_STRIDE)) return undefined;
  if (!Number.isSafeInteger(startTime + lastT)) return undefined;
  const idToTime = ascii(layout.idToTime(marketId));
  if (!idToTime) return undefined;
  const { rowOpen, between, price, up, down, rowClose } = pieces;
  const perRow = idToTime.length + between.length + rowOpen.length + price.length + up.length + down.length + rowClose.length;
  const need = pieces.pageOpen.length + pieces.pageClose.length + n * (ROW_BYTES_BESIDES_ID + perRow + extraPerRow);
  // A page handed on as bytes gets a buffer of its own: no copy of the text out of the shared one.
  if (!ownBuffer && scratch.length < need) scratch = Buffer.allocUnsafe(Math.max(need, scratch.length * 2));
  const hi = Math.floor(startTime / SNAPSHOT_ID_STRIDE);
  return {
    pieces,
    buf: ownBuffer ? Buffer.allocUnsafeSlow(need) : scratch,
    idToTime,
    idHead: headed ? ascii(String(base / SNAPSHOT_ID_STRIDE)) : undefined,
    timeLow: startTime - hi * SNAPSHOT_ID_STRIDE,
    timeHead: ascii(String(hi))!,
    timeHeadNext: ascii(String(hi + 1))!,
  };
}

/** True for a stored value the byte writers print exactly (what JSON.stringify prints for value / 1e4). */
export function printable(v: number): boolean {
  return v >= 0 && v < EXACT_SCALED_LIMIT && v === Math.floor(v);
}

/** The price and the two probabilities of a row, each after its piece, then the row's end (unless `close` is false). */
export function writeValues(buf: Buffer, pos: number, pieces: LayoutBytes, price: number, up: number, down: number, close = true): number {
  pos = copy(buf, pos, pieces.price);
  pos = scaled(buf, pos, price);
  pos = copy(buf, pos, pieces.up);
  pos = scaled(buf, pos, up);
  pos = copy(buf, pos, pieces.down);
  pos = scaled(buf, pos, down);
  return close ? copy(buf, pos, pieces.rowClose) : pos;
}

/** start_time + t (0 <= t < 1e8) as epoch ms, from the page's time head and low digits. */
export function writeTime(buf: Buffer, pos: number, page: PageSetup, t: number): number {
  const low = page.timeLow + t;
  // low < 2e8: the head and 8 digits, or the next head and 8 digits past it.
  if (low < SNAPSHOT_ID_STRIDE) return digits8(buf, copy(buf, pos, page.timeHead), low);
  return digits8(buf, copy(buf, pos, page.timeHeadNext), low - SNAPSHOT_ID_STRIDE);
}

/** Use to put a piece into the page. */
export function copy(buf: Buffer, pos: number, bytes: Uint8Array): number {
  if (bytes.length > 64) {
    buf.set(bytes, pos);
    return pos + bytes.length;
  }
  for (let i = 0; i < bytes.length; i++) buf[pos + i] = bytes[i]!;
  return pos + bytes.length;
}

/** Use for ISO times: the time of day `HH:MM:SS.mmmZ"` of ms (0 <= ms < one day). */
export function clock(buf: Buffer, pos: number, ms: number): number {
  const h = (ms / 3_600_000) | 0;
  ms -= h * 3_600_000;
  const m = (ms / 60_000) | 0;
  ms -= m * 60_000;
  const sec = (ms / 1000) | 0;
  ms -= sec * 1000;
  pos = digits2(buf, pos, h);
  buf[pos++] = 58; // :
  pos = digits2(buf, pos, m);
  buf[pos++] = 58;
  pos = digits2(buf, pos, sec);
  buf[pos++] = 46; // .
  const hundreds = (ms / 100) | 0;
  buf[pos++] = ZERO + hundreds;
  pos = digits2(buf, pos, ms - hundreds * 100);
  buf[pos++] = 90; // Z
  buf[pos++] = 34; // "
  return pos;
}

function digits2(buf: Buffer, pos: number, v: number): number {
  const tens = (v / 10) | 0;
  buf[pos] = ZERO + tens;
  buf[pos + 1] = ZERO + (v - tens * 10);
  return pos + 2;
}

/** Every number 0..9999 as four ASCII digits: two lookups print eight digits, one prints a fraction. */
const QUADS = new Uint8Array(40_000);
for (let i = 0; i < 10_000; i++) {
  QUADS[i * 4] = ZERO + ((i / 1000) | 0);
  QUADS[i * 4 + 1] = ZERO + (((i / 100) | 0) % 10);
  QUADS[i * 4 + 2] = ZERO + (((i / 10) | 0) % 10);
  QUADS[i * 4 + 3] = ZERO + (i % 10);
}

/** v (0 <= v < 1e4) as exactly 4 digits. */
export function quad(buf: Buffer, pos: number, v: number): number {
  const q = v * 4;
  buf[pos] = QUADS[q]!;
  buf[pos + 1] = QUADS[q + 1]!;
  buf[pos + 2] = QUADS[q + 2]!;
  buf[pos + 3] = QUADS[q + 3]!;
  return pos + 4;
}

/** v (0 <= v < 1e8) as exactly 8 digits. */
export function digits8(buf: Buffer, pos: number, v: number): number {
  const hi = (v / 10_000) | 0; // v < 2^31: integer division
  return quad(buf, quad(buf, pos, hi), v - hi * 10_000);
}

/** A non-negative integer v as JSON prints v / 1e4: integer digits, then up to 4 decimals, trailing zeros dropped. */
export function scaled(buf: Buffer, pos: number, v: number): number {
  const whole = Math.floor(v / PRICE_SCALE);
  const frac = v - whole * PRICE_SCALE;
  pos = integer(buf, pos, whole);
  if (frac === 0) return pos;
  buf[pos++] = 46; // .
  pos = quad(buf, pos, frac);
  while (buf[pos - 1] === ZERO) pos--;
  return pos;
}

/** A non-negative safe integer in its digits. */
export function integer(buf: Buffer, pos: number, v: number): number {
  // Below 1e8 (every price and probability, and ids' and times' heads): one or two table lookups.
  if (v < 10_000) return short(buf, pos, v);
  if (v < 100_000_000) {
    const hi = (v / 10_000) | 0;
    return quad(buf, short(buf, pos, hi), v - hi * 10_000);
  }
  let len = 1;
  for (let x = v; x >= 10; x = Math.floor(x / 10)) len++;
  for (let j = len - 1; j >= 0; j--) {
    const q = Math.floor(v / 10);
    buf[pos + j] = ZERO + (v - q * 10);
    v = q;
  }
  return pos + len;
}

/** v (0 <= v < 1e4) without leading zeros. */
function short(buf: Buffer, pos: number, v: number): number {
  const skip = v < 10 ? 3 : v < 100 ? 2 : v < 1000 ? 1 : 0;
  const q = v * 4;
  for (let j = skip; j < 4; j++) buf[pos++] = QUADS[q + j]!;
  return pos;
}
