// Writes a dense market's page of snapshots as JSON bytes (or a local export's CSV or NDJSON lines,
// by their RowLayout) into one reused buffer, then makes one flat string of it. Building the same text from string pieces allocates a dozen small strings per
// row, and collecting them was a third of the time of a 10,000-row page.
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';
import { V1_SNAPSHOT_FORMAT, type SnapshotFormat } from '../store.js';
import { EXACT_SCALED_LIMIT, PRICE_SCALE } from './price-scale.js';
import { servedPageLayout, type RowLayout } from './row-layout.js';
import { idAt, pageIds, SNAPSHOT_ID_STRIDE, type PageIds } from './snapshot-ids.js';

/** The dense page query packs both probabilities into one value: up * 2^14 + down, -1 if out of range. */
export const SIDE_BITS = 14;
const SIDE_MASK = (1 << SIDE_BITS) - 1;
/** Longest row: fixed keys and a market id (~120 bytes) plus 20-digit numbers; generous on purpose. */
const ROW_BYTES_BESIDES_ID = 200;
const ZERO = 48;

let scratch = Buffer.allocUnsafe(1 << 20);

function ascii(text: string): Uint8Array | undefined {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 127) return undefined;
    bytes[i] = c;
  }
  return bytes;
}

const DAY_MS = 86_400_000;
/** 10000-01-01: later times print a six-digit year, which the ISO writer does not. */
const ISO_END_MS = 253_402_300_800_000;

/** A layout's pieces as bytes, made once per layout (undefined: a piece is not ASCII). */
interface LayoutBytes {
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

function bytesOf(layout: RowLayout): LayoutBytes | undefined {
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

/**
 * Use for a page of a dense market (rows at t = firstT, firstT + 125, ...), as prices and
 * probabilities packed by SIDE_BITS (-1 where a probability is out of range), read from the
 * market's blocks or plucked from its rows. Gives the
 * text snapshotRowsToJson gives for the same rows, or undefined when a value is outside what this
 * writer prints (negative, fractional or huge stored values, a non-ASCII market id, huge or negative
 * ids, ids stored one by one, times before 1970-01-02): the caller then takes the general path.
 */
export function writeDensePage(
  prices: ArrayLike<number>,
  sides: ArrayLike<number>,
  firstT: number,
  idsOrRowid: number | PageIds,
  marketId: string,
  startTime: number,
  format?: SnapshotFormat,
): string | undefined {
  const end = fill({ prices, sides, firstT, ids: idsOrRowid, marketId, startTime }, servedPageLayout(format ?? V1_SNAPSHOT_FORMAT));
  return end === undefined ? undefined : scratch.toString('latin1', 0, end);
}

/** A dense page's values and what its rows share, as writeDensePage takes them. */
export interface DenseRows {
  prices: ArrayLike<number>;
  sides: ArrayLike<number>;
  firstT: number;
  ids: number | PageIds;
  marketId: string;
  startTime: number;
}

/**
 * As writeDensePage, in any layout without orderbooks (an export's lines): writeSnapshotRows' text
 * for the same rows, as bytes of its own (written out as they are: no string made and encoded again).
 */
export function writeDenseRows(page: DenseRows, layout: RowLayout): Uint8Array | undefined {
  const end = fill(page, layout);
  return end === undefined ? undefined : Buffer.from(scratch.subarray(0, end));
}

/** Writes the page into `scratch`; returns where its text ends, undefined when it declines. */
function fill({ prices, sides, firstT, ids: idsOrRowid, marketId, startTime }: DenseRows, layout: RowLayout): number | undefined {
  const pieces = bytesOf(layout);
  if (!pieces) return undefined;
  const ids = pageIds(idsOrRowid);
  if (ids.exceptions && ids.exceptions.size > 0) return undefined;
  const { base, step } = ids.pattern;
  const n = prices.length;
  if (n === 0) return copy(scratch, copy(scratch, 0, pieces.pageOpen), pieces.pageClose);
  const lastT = firstT + (n - 1) * SNAPSHOT_INTERVAL_MS;
  if (!(Number.isSafeInteger(idAt(ids.pattern, firstT)) && idAt(ids.pattern, firstT) >= 0)) return undefined;
  if (!(Number.isSafeInteger(idAt(ids.pattern, lastT)) && idAt(ids.pattern, lastT) >= 0)) return undefined;
  // msnap's own ids (a per-ms pattern on a multiple of 1e8) print as a head plus 8 digits of t.
  const headed = step === null && base >= SNAPSHOT_ID_STRIDE && base % SNAPSHOT_ID_STRIDE === 0 && base / SNAPSHOT_ID_STRIDE < SNAPSHOT_ID_STRIDE;
  // Times below 1e8 (1970-01-02) would print a leading zero after their empty head.
  if (!(Number.isSafeInteger(startTime) && startTime >= SNAPSHOT_ID_STRIDE && firstT >= 0 && lastT < SNAPSHOT_ID_STRIDE)) return undefined;
  if (!Number.isSafeInteger(startTime + lastT)) return undefined;
  const idToTime = ascii(layout.idToTime(marketId));
  if (!idToTime) return undefined;
  const iso = layout.isoTimes;
  if (iso && startTime + lastT >= ISO_END_MS) return undefined;
  const idHead = ascii(String(base / SNAPSHOT_ID_STRIDE))!;
  const slotStep = step ?? 0;
  const { rowOpen, between, price: priceKey, up: upKey, down: downKey, rowClose } = pieces;
  const perRow = idToTime.length + between.length + rowOpen.length + priceKey.length + upKey.length + downKey.length + rowClose.length;
  const need = pieces.pageOpen.length + pieces.pageClose.length + n * (ROW_BYTES_BESIDES_ID + perRow);
  if (scratch.length < need) scratch = Buffer.allocUnsafe(Math.max(need, scratch.length * 2));
  const buf = scratch;

  // A time is written as its digits above 1e8 (changing at most once in a page) and 8 below.
  const timeHi = Math.floor((startTime + firstT) / SNAPSHOT_ID_STRIDE);
  let timeHead = ascii(String(timeHi))!;
  let timeLow = startTime + firstT - timeHi * SNAPSHOT_ID_STRIDE;
  let t = firstT;
  // ISO times: the date part ("YYYY-MM-DDT) changes at most once a day; the rest is arithmetic.
  let dayStart = Math.floor((startTime + firstT) / DAY_MS) * DAY_MS;
  let datePart = ascii(`"${new Date(dayStart).toISOString().slice(0, 11)}`)!;
  let msOfDay = startTime + firstT - dayStart;
  let pos = copy(buf, 0, pieces.pageOpen);
  for (let i = 0; i < n; i++) {
    const price = prices[i]!;
    const ud = sides[i]!;
    if (ud < 0 || !(price >= 0) || price !== Math.floor(price) || price >= EXACT_SCALED_LIMIT) return undefined;
    if (i > 0) pos = copy(buf, pos, between);
    pos = copy(buf, pos, rowOpen);
    if (headed) {
      pos = copy(buf, pos, idHead);
      pos = digits8(buf, pos, t);
    } else {
      pos = integer(buf, pos, step === null ? base + t : base + (t / SNAPSHOT_INTERVAL_MS) * slotStep);
    }
    pos = copy(buf, pos, idToTime);
    if (iso) {
      pos = copy(buf, pos, datePart);
      pos = clock(buf, pos, msOfDay);
      msOfDay += SNAPSHOT_INTERVAL_MS;
      if (msOfDay >= DAY_MS) {
        msOfDay -= DAY_MS;
        dayStart += DAY_MS;
        datePart = ascii(`"${new Date(dayStart).toISOString().slice(0, 11)}`)!;
      }
    } else {
      pos = copy(buf, pos, timeHead);
      pos = digits8(buf, pos, timeLow);
    }
    pos = copy(buf, pos, priceKey);
    pos = scaled(buf, pos, price);
    pos = copy(buf, pos, upKey);
    pos = scaled(buf, pos, ud >> SIDE_BITS);
    pos = copy(buf, pos, downKey);
    pos = scaled(buf, pos, ud & SIDE_MASK);
    pos = copy(buf, pos, rowClose);
    t += SNAPSHOT_INTERVAL_MS;
    timeLow += SNAPSHOT_INTERVAL_MS;
    if (timeLow >= SNAPSHOT_ID_STRIDE) {
      timeLow -= SNAPSHOT_ID_STRIDE;
      timeHead = ascii(String(Math.floor((startTime + t) / SNAPSHOT_ID_STRIDE)))!;
    }
  }
  return copy(buf, pos, pieces.pageClose);
}

function copy(buf: Buffer, pos: number, bytes: Uint8Array): number {
  if (bytes.length > 16) {
    buf.set(bytes, pos);
    return pos + bytes.length;
  }
  for (let i = 0; i < bytes.length; i++) buf[pos + i] = bytes[i]!;
  return pos + bytes.length;
}

/** The time of day `HH:MM:SS.mmmZ"` of ms (0 <= ms < one day). */
function clock(buf: Buffer, pos: number, ms: number): number {
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

function quad(buf: Buffer, pos: number, v: number): number {
  const q = v * 4;
  buf[pos] = QUADS[q]!;
  buf[pos + 1] = QUADS[q + 1]!;
  buf[pos + 2] = QUADS[q + 2]!;
  buf[pos + 3] = QUADS[q + 3]!;
  return pos + 4;
}

/** v (0 <= v < 1e8) as exactly 8 digits. */
function digits8(buf: Buffer, pos: number, v: number): number {
  const hi = (v / 10_000) | 0; // v < 2^31: integer division
  return quad(buf, quad(buf, pos, hi), v - hi * 10_000);
}

/** A non-negative integer v as JSON prints v / 1e4: integer digits, then up to 4 decimals, trailing zeros dropped. */
function scaled(buf: Buffer, pos: number, v: number): number {
  const whole = Math.floor(v / PRICE_SCALE);
  const frac = v - whole * PRICE_SCALE;
  pos = integer(buf, pos, whole);
  if (frac === 0) return pos;
  buf[pos++] = 46; // .
  pos = quad(buf, pos, frac);
  while (buf[pos - 1] === ZERO) pos--;
  return pos;
}

function integer(buf: Buffer, pos: number, v: number): number {
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
