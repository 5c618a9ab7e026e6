// A served page's orderbooks written as bytes straight from the packed pairs, into the dense page
// writer's buffer (dense-page-writer.ts RowExtra): the same text sideText and the row layout make,
// without a string per number. Text rows (older stores) are copied as they are.
import { ascii, copy, integer, quad } from './row-bytes.js';
import { emptyPair, type BookPair, type LevelList } from './book-codec.js';
import type { RowExtra } from './dense-page-writer.js';
import { isPacked, type PairSource, type StoredBook } from './stored-book.js';
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';

/** Room per row for its books: 36 levels at the longest numbers; a row needing more declines the page. */
const ROW_BOOK_BYTES = 2400;
const LEVEL_BYTES = 64;
/** Levels a list can have within ROW_BOOK_BYTES. */
const MAX_LIST = Math.ceil(ROW_BOOK_BYTES / LEVEL_BYTES);
const UP = ascii(',"orderbook_up":')!;
const DOWN = ascii(',"orderbook_down":')!;
const END = ascii(']}')!;
const PRICE = ascii('{"price":')!;
const SIZE = ascii(',"size":')!;
/** Before up bids, up asks, down bids, down asks (the closing of the list before included). */
const OPENERS = [ascii(',"orderbook_up":{"bids":[')!, ascii('],"asks":[')!, ascii(']},"orderbook_down":{"bids":[')!, ascii('],"asks":[')!];

/** A page's stored books as columns, in t order (no array per row): t, up, and down where up is text. */
export interface PageBookColumns {
  t: number[];
  up: StoredBook[];
  down: (string | null)[];
}

/** Use for a dense page served with orderbooks: `rows` are the page's stored books. */
export class PageBooks implements RowExtra {
  readonly maxBytes = ROW_BOOK_BYTES;
  private next = 0;
  /** The previous row's pair (the source's own, intact through the next pair() call: see PairSource.pair); a list unchanged since is copied. */
  private prev: BookPair = emptyPair();
  private prevValid = false;
  /** Where each level of the previous row (and of this one) starts and ends: [start per list and level..., end...]. */
  private readonly spans = [new Int32Array(MAX_LIST * 8), new Int32Array(MAX_LIST * 8)];
  private flip = 0;

  constructor(
    private readonly reader: PairSource,
    private readonly market: number,
    private readonly firstT: number,
    private readonly rows: PageBookColumns,
  ) {
    reader.reset();
  }

  write(buf: Buffer, pos: number, i: number): number {
    const t = this.firstT + i * SNAPSHOT_INTERVAL_MS;
    const times = this.rows.t;
    while (this.next < times.length && times[this.next]! < t) this.next++;
    if (this.next >= times.length || times[this.next] !== t) return pos;
    const up = this.rows.up[this.next]!;
    if (!isPacked(up)) {
      const a = ascii(up);
      const b = ascii(this.rows.down[this.next] ?? '');
      if (!a || !b || a.length + b.length + UP.length + DOWN.length > ROW_BOOK_BYTES) return -1;
      return copy(buf, copy(buf, copy(buf, copy(buf, pos, UP), a), DOWN), b);
    }
    const pair = this.reader.pair(this.market, t, up);
    let levels = 0;
    for (let k = 0; k < 4; k++) levels += pair.lists[k]!.n;
    if (100 + levels * LEVEL_BYTES > ROW_BOOK_BYTES) return -1;
    const reuse = this.prevValid && pair.dp === this.prev.dp && pair.ds === this.prev.ds;
    const cur = this.spans[this.flip]!;
    const prev = this.spans[1 - this.flip]!;
    for (let k = 0; k < 4; k++) {
      // What comes before each list, and after the last: one piece each.
      pos = copy(buf, pos, OPENERS[k]!);
      const l = pair.lists[k]!;
      const p = this.prev.lists[k]!;
      const starts = k * MAX_LIST;
      const ends = MAX_LIST * 4 + k * MAX_LIST;
      if (reuse && l.n > 0 && sameLevels(l, p)) {
        // The whole list as the previous row wrote it (most lists, between two 125 ms snapshots).
        const from = prev[starts]!;
        const shift = pos - from;
        pos = within(buf, pos, from, prev[ends + l.n - 1]!);
        for (let i = 0; i < l.n; i++) {
          cur[starts + i] = prev[starts + i]! + shift;
          cur[ends + i] = prev[ends + i]! + shift;
        }
        continue;
      }
      let j = 0;
      // A run of levels the previous row wrote one after another is copied at once, commas included.
      let runFrom = -1;
      let runTo = -1;
      let runAt = 0;
      let lastJ = -2;
      for (let i = 0; i < l.n; i++) {
        const price = l.prices[i]!;
        // The level as the previous row wrote it, when that row held this price with this size.
        let found = -1;
        if (reuse) {
          for (let tries = 0; tries < p.n; tries++, j = j + 1 === p.n ? 0 : j + 1) {
            if (p.prices[j] === price) {
              if (p.sizes[j] === l.sizes[i]) found = j;
              break;
            }
          }
        }
        if (found >= 0 && runFrom >= 0 && found === lastJ + 1) {
          runTo = prev[ends + found]!;
        } else {
          if (runFrom >= 0) pos = within(buf, pos, runFrom, runTo);
          runFrom = -1;
          if (i > 0) buf[pos++] = 44; // ,
          if (found >= 0) {
            runFrom = prev[starts + found]!;
            runTo = prev[ends + found]!;
            runAt = pos;
          } else {
            const start = pos;
            const head = pricePiece(price, pair.dp);
            if (head) pos = copy(buf, pos, head);
            else pos = copy(buf, scaledDigits(buf, copy(buf, pos, PRICE), price, pair.dp), SIZE);
            pos = scaledDigits(buf, pos, l.sizes[i]!, pair.ds);
            buf[pos++] = 125; // }
            cur[starts + i] = start;
            cur[ends + i] = pos;
          }
        }
        if (found >= 0) {
          cur[starts + i] = runAt + prev[starts + found]! - runFrom;
          cur[ends + i] = runAt + prev[ends + found]! - runFrom;
        }
        lastJ = found;
      }
      if (runFrom >= 0) pos = within(buf, pos, runFrom, runTo);
    }
    pos = copy(buf, pos, END);
    this.prev = pair;
    this.prevValid = true;
    this.flip = 1 - this.flip;
    return pos;
  }
}

// `{"price":P,"size":` for a price of up to 4 decimals below 10^5 scaled (every seeded or hosted
// book's cents), made once per price and exponent: a level printed anew then costs its size alone.
const PRICE_PIECES: (Uint8Array | undefined)[][] = [[], [], [], [], []];
const PIECE_LIMIT = 100_000;
const pieceScratch = Buffer.allocUnsafe(64);

function pricePiece(price: number, dp: number): Uint8Array | undefined {
  if (dp >= PRICE_PIECES.length || price >= PIECE_LIMIT || price < 0) return undefined;
  const pieces = PRICE_PIECES[dp]!;
  let piece = pieces[price];
  if (piece === undefined) {
    const end = copy(pieceScratch, scaledDigits(pieceScratch, copy(pieceScratch, 0, PRICE), price, dp), SIZE);
    piece = pieces[price] = Uint8Array.from(pieceScratch.subarray(0, end));
  }
  return piece;
}

// Bytes [from, to) of the page copied to pos (earlier bytes, never overlapping): a loop for the
// short runs most are, where Buffer#copy's checks cost more than the bytes.
function within(buf: Buffer, pos: number, from: number, to: number): number {
  if (to - from > 64) {
    buf.copyWithin(pos, from, to);
    return pos + to - from;
  }
  for (let k = from; k < to; k++) buf[pos++] = buf[k]!;
  return pos;
}

/** 10^(4 - d) for d decimals up to 4: the fraction scaled to four digits (quad prints them). */
const TO_FOUR = [10_000, 1000, 100, 10, 1];

function sameLevels(a: LevelList, b: LevelList): boolean {
  if (a.n !== b.n) return false;
  for (let i = 0; i < a.n; i++) if (a.prices[i] !== b.prices[i] || a.sizes[i] !== b.sizes[i]) return false;
  return true;
}

/** v / 10^d as book-codec's scaledText prints it: whole digits, then the fraction without trailing zeros. */
function scaledDigits(buf: Buffer, pos: number, v: number, d: number): number {
  if (d === 0) return integer(buf, pos, v);
  const unit = 10 ** d;
  const whole = Math.floor(v / unit);
  let frac = v - whole * unit;
  pos = integer(buf, pos, whole);
  if (frac === 0) return pos;
  if (d < TO_FOUR.length) {
    buf[pos++] = 46; // .
    pos = quad(buf, pos, frac * TO_FOUR[d]!);
    while (buf[pos - 1] === 48) pos--;
    return pos;
  }
  buf[pos++] = 46; // .
  for (let k = d - 1; k >= 0; k--) {
    const q = Math.floor(frac / 10);
    buf[pos + k] = 48 + (frac - q * 10);
    frac = q;
  }
  pos += d;
  while (buf[pos - 1] === 48) pos--;
  return pos;
}
