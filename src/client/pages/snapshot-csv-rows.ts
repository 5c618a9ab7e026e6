// The rows of a page's ready CSV (written by snapshot-page-scan.ts) back as the contract's raw
// records, for every reader but a CSV export (JSON, Parquet, pull, bars). Numbers are read from
// the bytes without making a string of each: the scan let through only numbers of at most 15
// significant digits, no exponent, so each is an integer below 2^53 over a power of ten up to
// 10^20, and that one IEEE division is correctly rounded: the very double JSON.parse would give.
import type { Snapshot } from '../../domain/market.js';

const COMMA = 0x2c;
const LF = 0x0a;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;

const POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

// Where readNumber stopped (the byte after the number): its second result, without an object per number.
let numberEnd = 0;

/** The number whose text starts at `i` in `b` (see the file's comment for why it is exact). */
function readNumber(b: Uint8Array, i: number): number {
  const negative = b[i] === MINUS;
  if (negative) i++;
  let mantissa = 0;
  let scale = 0;
  let c = b[i]!;
  for (; c !== COMMA && c !== LF && c !== DOT; c = b[++i]!) mantissa = mantissa * 10 + (c - ZERO);
  if (c === DOT) {
    for (c = b[++i]!; c !== COMMA && c !== LF; c = b[++i]!, scale++) mantissa = mantissa * 10 + (c - ZERO);
  }
  numberEnd = i;
  const value = scale === 0 ? mantissa : mantissa / POW10[scale]!;
  return negative ? -value : value;
}

/**
 * Use on a page's ready CSV (`count` lines of id,market_id,time,price,price_up,price_down): each
 * line as the raw record `{id, market_id, time, price, price_up, price_down}` passed through
 * `row`, the dialect's own normaliser, as a parsed JSON row would be.
 */
export function rowsFromReadyCsv(csv: Buffer, count: number, row: (raw: unknown) => Snapshot): Snapshot[] {
  const out = new Array<Snapshot>(count);
  let marketId = '';
  let at = 0;
  for (let r = 0; r < count; r++) {
    const id = readNumber(csv, at);
    const idStart = numberEnd + 1;
    const idEnd = csv.indexOf(COMMA, idStart);
    // Every row of a page names the same market: one string for all of them (read once more
    // only where the bytes differ), a copy, so that no row keeps the page's bytes alive.
    if (idEnd - idStart !== marketId.length || !sameText(csv, idStart, marketId)) marketId = csv.toString('latin1', idStart, idEnd);
    const time = readNumber(csv, idEnd + 1);
    const price = readNumber(csv, numberEnd + 1);
    const up = readNumber(csv, numberEnd + 1);
    const down = readNumber(csv, numberEnd + 1);
    out[r] = row({ id, market_id: marketId, time, price, price_up: up, price_down: down });
    at = numberEnd + 1;
  }
  return out;
}

/** Where readyCsvColumns puts each row's values: one slot per row from `at` on. */
export interface SnapshotColumns {
  id: Float64Array;
  time: Float64Array;
  price: Float64Array;
  up: Float64Array;
  down: Float64Array;
  /** Told where a row's market id starts in `csv` (it ends at the next comma); keeps what it needs, returns that comma's index. */
  marketId(csv: Uint8Array, start: number, row: number): number;
}

/**
 * Use on a page's ready CSV instead of rowsFromReadyCsv where the values go into columns (a
 * Parquet export): rows `from` to `to` (exclusive; `byteAt` is where row `from` starts) into slots
 * `at`... of `into`, the very numbers rowsFromReadyCsv gives (the normalisers pass such rows on
 * unchanged). Returns where the next row starts.
 */
export function readyCsvColumns(csv: Uint8Array, byteAt: number, rows: number, into: SnapshotColumns, at: number): number {
  for (let r = 0; r < rows; r++, at++) {
    into.id[at] = readNumber(csv, byteAt);
    const idEnd = into.marketId(csv, numberEnd + 1, at);
    into.time[at] = readNumber(csv, idEnd + 1);
    into.price[at] = readNumber(csv, numberEnd + 1);
    into.up[at] = readNumber(csv, numberEnd + 1);
    into.down[at] = readNumber(csv, numberEnd + 1);
    byteAt = numberEnd + 1;
  }
  return byteAt;
}

function sameText(b: Uint8Array, at: number, text: string): boolean {
  for (let k = 0; k < text.length; k++) if (b[at + k] !== text.charCodeAt(k)) return false;
  return true;
}
