// Writes a dense market's page of snapshots as JSON bytes into one reused buffer, then makes one
// flat string of it. Building the same text from string pieces allocates a dozen small strings per
// row, and collecting them was a third of the time of a 10,000-row page.
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';
import type { SnapshotFormat } from '../store.js';
import { PRICE_SCALE } from './price-scale.js';
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

const ROW_OPEN = ascii('{"id":')!;
const DAY_MS = 86_400_000;
/** 10000-01-01: later times print a six-digit year, which the ISO writer does not. */
const ISO_END_MS = 253_402_300_800_000;
const priceKeys = new Map<string, Uint8Array | undefined>();

function priceKeyBytes(key: string): Uint8Array | undefined {
  let bytes = priceKeys.get(key);
  if (bytes === undefined && !priceKeys.has(key)) {
    bytes = ascii(`,${JSON.stringify(key)}:`);
    priceKeys.set(key, bytes);
  }
  return bytes;
}
const UP_KEY = ascii(',"price_up":')!;
const DOWN_KEY = ascii(',"price_down":')!;

/**
 * Use for a page of a dense market (rows at t = firstT, firstT + 125, ...), as prices and
 * probabilities packed by SIDE_BITS (-1 where a probability is out of range), read from the
 * market's blocks or plucked from its rows. Gives the
 * text snapshotRowsToJson gives for the same rows, or undefined when a value is outside what this
 * writer prints (negative or fractional stored values, a non-ASCII market id, huge or negative
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
  const ids = pageIds(idsOrRowid);
  if (ids.exceptions && ids.exceptions.size > 0) return undefined;
  const { base, step } = ids.pattern;
  const n = prices.length;
  if (n === 0) return '[]';
  const lastT = firstT + (n - 1) * SNAPSHOT_INTERVAL_MS;
  if (!(Number.isSafeInteger(idAt(ids.pattern, firstT)) && idAt(ids.pattern, firstT) >= 0)) return undefined;
  if (!(Number.isSafeInteger(idAt(ids.pattern, lastT)) && idAt(ids.pattern, lastT) >= 0)) return undefined;
  // msnap's own ids (a per-ms pattern on a multiple of 1e8) print as a head plus 8 digits of t.
  const headed = step === null && base >= SNAPSHOT_ID_STRIDE && base % SNAPSHOT_ID_STRIDE === 0 && base / SNAPSHOT_ID_STRIDE < SNAPSHOT_ID_STRIDE;
  // Times below 1e8 (1970-01-02) would print a leading zero after their empty head.
  if (!(Number.isSafeInteger(startTime) && startTime >= SNAPSHOT_ID_STRIDE && firstT >= 0 && lastT < SNAPSHOT_ID_STRIDE)) return undefined;
  if (!Number.isSafeInteger(startTime + lastT)) return undefined;
  const idToTime = ascii(`,"market_id":${JSON.stringify(marketId)},"time":`);
  if (!idToTime) return undefined;
  const priceKey = priceKeyBytes(format?.priceKey ?? 'price');
  if (!priceKey) return undefined;
  const iso = format?.times === 'iso';
  if (iso && startTime + lastT >= ISO_END_MS) return undefined;
  const idHead = ascii(String(base / SNAPSHOT_ID_STRIDE))!;
  const slotStep = step ?? 0;
  const need = 2 + n * (ROW_BYTES_BESIDES_ID + idToTime.length);
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
  let pos = 0;
  buf[pos++] = 91; // [
  for (let i = 0; i < n; i++) {
    const price = prices[i]!;
    const ud = sides[i]!;
    if (ud < 0 || !(price >= 0) || price !== Math.floor(price) || price > Number.MAX_SAFE_INTEGER) return undefined;
    if (i > 0) buf[pos++] = 44; // ,
    pos = copy(buf, pos, ROW_OPEN);
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
    pos = copy(buf, pos, UP_KEY);
    pos = scaled(buf, pos, ud >> SIDE_BITS);
    pos = copy(buf, pos, DOWN_KEY);
    pos = scaled(buf, pos, ud & SIDE_MASK);
    buf[pos++] = 125; // }
    t += SNAPSHOT_INTERVAL_MS;
    timeLow += SNAPSHOT_INTERVAL_MS;
    if (timeLow >= SNAPSHOT_ID_STRIDE) {
      timeLow -= SNAPSHOT_ID_STRIDE;
      timeHead = ascii(String(Math.floor((startTime + t) / SNAPSHOT_ID_STRIDE)))!;
    }
  }
  buf[pos++] = 93; // ]
  return buf.toString('latin1', 0, pos);
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

/** v (0 <= v < 1e8) as exactly 8 digits. */
function digits8(buf: Buffer, pos: number, v: number): number {
  for (let j = 7; j >= 0; j--) {
    const q = (v / 10) | 0; // v < 2^31: integer division
    buf[pos + j] = ZERO + (v - q * 10);
    v = q;
  }
  return pos + 8;
}

/** A non-negative integer v as JSON prints v / 1e4: integer digits, then up to 4 decimals, trailing zeros dropped. */
function scaled(buf: Buffer, pos: number, v: number): number {
  const whole = Math.floor(v / PRICE_SCALE);
  let frac = v - whole * PRICE_SCALE;
  pos = integer(buf, pos, whole);
  if (frac === 0) return pos;
  buf[pos++] = 46; // .
  let width = 4;
  while (frac % 10 === 0) {
    frac /= 10;
    width--;
  }
  for (let j = width - 1; j >= 0; j--) {
    const q = (frac / 10) | 0;
    buf[pos + j] = ZERO + (frac - q * 10);
    frac = q;
  }
  return pos + width;
}

function integer(buf: Buffer, pos: number, v: number): number {
  if (v < 10) {
    buf[pos] = ZERO + v;
    return pos + 1;
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
