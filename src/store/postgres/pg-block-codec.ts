// The bytes of one snapshot block of the PostgreSQL store: a market's rows with t in one
// BLOCK_MS bucket, as two bytea values. `vals`: a 16-byte head (flags, n, first t), the times
// unless they are first t + i * 125, then either prices and both probabilities packed by SIDE_BITS
// as little-endian uint32 (narrow, the rule) or price, up and down as float64 (wide: any stored
// integer). `books`: per row a varint tag (0 none, 1 packed pair, 2 text) and its bytes; a packed
// pair refers at most to the previous packed pair of its block and 4-second window, so a page
// decodes from its first row's window start and every block stands alone.
import { endianness } from 'node:os';
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';
import { copyPair, decodePair, emptyPair, encodePair, refDt, type BookPair } from '../core/book-codec.js';
import { sideText } from '../core/book-text.js';
import { ByteReader, ByteWriter } from '../core/byte-stream.js';
import { SIDE_BITS } from '../core/dense-page-writer.js';
import { PRICE_SCALE } from '../core/price-scale.js';

/** Slots of 125 ms per block: a dense market's 1,000-row page reads one or two blocks. */
const BLOCK_SLOTS = 1024;
export const BLOCK_MS = BLOCK_SLOTS * SNAPSHOT_INTERVAL_MS;
/** Packed pairs refer only within one window of this many ms (as the SQLite store's rows). */
const BOOK_WINDOW_MS = 4000;
const GRID = 1;
const WIDE = 2;
const HEAD = 16;
const LE = endianness() === 'LE';

/** A snapshot's stored books: a pair of numbers, or the two sides' text kept verbatim. */
export type StoredBooks = BookPair | readonly [string, string];

/** A block's rows as columns, in t order. */
export interface BlockRows {
  t: number[];
  price: number[];
  up: number[];
  down: number[];
  books: (StoredBooks | undefined)[];
}

/** Use for an empty block to fill. */
export function emptyRows(): BlockRows {
  return { t: [], price: [], up: [], down: [], books: [] };
}

/** The bucket of offset t. */
export function bucketOf(t: number): number {
  return Math.floor(t / BLOCK_MS);
}

/** Use to write a block's values. */
export function encodeVals(rows: BlockRows): Buffer {
  const n = rows.t.length;
  const t0 = n > 0 ? rows.t[0]! : 0;
  let grid = true;
  let narrow = true;
  for (let i = 0; i < n; i++) {
    if (rows.t[i] !== t0 + i * SNAPSHOT_INTERVAL_MS) grid = false;
    const p = rows.price[i]!;
    const u = rows.up[i]!;
    const d = rows.down[i]!;
    if (p >>> 0 !== p || u >>> 0 !== u || u > PRICE_SCALE || d >>> 0 !== d || d > PRICE_SCALE) narrow = false;
  }
  const size = HEAD + (grid ? 0 : 4 * n) + (narrow ? 8 * n : 24 * n);
  const buf = Buffer.alloc(size);
  buf[0] = (grid ? GRID : 0) | (narrow ? 0 : WIDE);
  buf.writeInt32LE(n, 4);
  buf.writeInt32LE(t0, 8);
  let at = HEAD;
  if (!grid) for (let i = 0; i < n; i++, at += 4) buf.writeInt32LE(rows.t[i]!, at);
  if (narrow) {
    for (let i = 0; i < n; i++, at += 4) buf.writeUInt32LE(rows.price[i]!, at);
    for (let i = 0; i < n; i++, at += 4) buf.writeUInt32LE(rows.up[i]! * 2 ** SIDE_BITS + rows.down[i]!, at);
  } else {
    for (const col of [rows.price, rows.up, rows.down]) for (let i = 0; i < n; i++, at += 8) buf.writeDoubleLE(col[i]!, at);
  }
  return buf;
}

/** A block's values as read: times by index, and either narrow arrays (the dense page writer's input) or wide columns. */
export class BlockVals {
  readonly n: number;
  readonly grid: boolean;
  readonly t0: number;
  private readonly times: Int32Array | undefined;
  /** Narrow blocks: prices and up << SIDE_BITS | down. */
  readonly prices: Uint32Array | undefined;
  readonly sides: Uint32Array | undefined;
  private readonly wide: Float64Array | undefined;

  constructor(buf: Uint8Array) {
    const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    this.n = b.readInt32LE(4);
    this.t0 = b.readInt32LE(8);
    this.grid = (b[0]! & GRID) !== 0;
    let at = HEAD;
    const n = this.n;
    if (!this.grid) {
      this.times = ints(b, at, n, Int32Array) as Int32Array;
      at += 4 * n;
    }
    if ((b[0]! & WIDE) === 0) {
      this.prices = ints(b, at, n, Uint32Array) as Uint32Array;
      this.sides = ints(b, at + 4 * n, n, Uint32Array) as Uint32Array;
    } else {
      this.wide = new Float64Array(3 * n);
      for (let i = 0; i < 3 * n; i++) this.wide[i] = b.readDoubleLE(at + 8 * i);
    }
  }

  t(i: number): number {
    return this.times ? this.times[i]! : this.t0 + i * SNAPSHOT_INTERVAL_MS;
  }

  price(i: number): number {
    return this.wide ? this.wide[i]! : this.prices![i]!;
  }

  up(i: number): number {
    return this.wide ? this.wide[this.n + i]! : this.sides![i]! >>> SIDE_BITS;
  }

  down(i: number): number {
    return this.wide ? this.wide[2 * this.n + i]! : this.sides![i]! & ((1 << SIDE_BITS) - 1);
  }

  /** The first index with t >= target (n when none). */
  lowerBound(target: number): number {
    if (this.grid) return Math.max(0, Math.min(this.n, Math.ceil((target - this.t0) / SNAPSHOT_INTERVAL_MS)));
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times![mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** n 32-bit integers at `at`, as a view when aligned on a little-endian machine, else a copy. */
function ints(b: Buffer, at: number, n: number, Kind: typeof Int32Array | typeof Uint32Array): Int32Array | Uint32Array {
  if (LE && ((b.byteOffset + at) & 3) === 0) return new Kind(b.buffer as ArrayBuffer, b.byteOffset + at, n);
  const out = new Kind(n);
  for (let i = 0; i < n; i++) out[i] = Kind === Int32Array ? b.readInt32LE(at + 4 * i) : b.readUInt32LE(at + 4 * i);
  return out;
}

/** Use to write a block's books; undefined when no row of the block has any. */
export function encodeBooks(rows: BlockRows): Buffer | undefined {
  if (!rows.books.some((b) => b !== undefined)) return undefined;
  const w = new ByteWriter();
  let prev: BookPair | undefined;
  let prevT = 0;
  for (let i = 0; i < rows.t.length; i++) {
    const b = rows.books[i];
    const t = rows.t[i]!;
    if (b === undefined) {
      w.varint(0);
    } else if (isText(b)) {
      w.varint(2);
      for (const side of b) {
        const bytes = Buffer.from(side, 'utf8');
        w.varint(bytes.length);
        for (const x of bytes) w.byte(x);
      }
    } else {
      const usable = prev !== undefined && Math.floor(prevT / BOOK_WINDOW_MS) === Math.floor(t / BOOK_WINDOW_MS);
      const bytes = usable ? encodePair(b, prev, t - prevT) : encodePair(b);
      w.varint(1);
      w.varint(bytes.length);
      for (const x of bytes) w.byte(x);
      prev = b;
      prevT = t;
    }
  }
  return Buffer.from(w.buf.subarray(0, w.pos));
}

/** True for books kept as text. */
function isText(b: StoredBooks): b is readonly [string, string] {
  return Array.isArray(b);
}

/** Calls `each` for every row below `to` that has books: packed (the pair's bytes, a view) or text (both sides). */
export function scanBooks(buf: Uint8Array, vals: BlockVals, to: number, each: (i: number, t: number, up: Uint8Array | string, down: string | null) => void): void {
  const r = new ByteReader(buf);
  for (let i = 0; i < Math.min(to, vals.n); i++) {
    const tag = r.varint();
    if (tag === 0) continue;
    if (tag === 2) {
      const up = text(buf, r);
      each(i, vals.t(i), up, text(buf, r));
      continue;
    }
    const len = r.varint();
    const at = r.pos;
    r.pos += len;
    each(i, vals.t(i), buf.subarray(at, at + len), null);
  }
}

/**
 * Use to read a block's books for rows [from, to) (times from `vals`): calls `each(i, books)` for
 * every row of the range that has any, pairs decoded against their reference. A pair handed to
 * `each` is reused by a later call: copy what must outlive it.
 */
export function readBooks(buf: Uint8Array, vals: BlockVals, from: number, to: number, each: (i: number, books: StoredBooks) => void): void {
  // Pairs are decoded from the window of row `from` on: no reference reaches further back.
  const start = from < vals.n ? windowStart(vals.t(from)) : Infinity;
  let prev: BookPair | undefined;
  let spare = emptyPair();
  scanBooks(buf, vals, to, (i, t, up, down) => {
    if (typeof up === 'string') {
      if (i >= from) each(i, [up, down!]);
      return;
    }
    if (t < start) return;
    const out = decodePair(up, refDt(up) > 0 ? prev : undefined, spare);
    spare = prev ?? emptyPair();
    prev = out;
    if (i >= from) each(i, out);
  });
}

/** The start of the reference window holding offset t. */
export function windowStart(t: number): number {
  return Math.floor(t / BOOK_WINDOW_MS) * BOOK_WINDOW_MS;
}

function text(buf: Uint8Array, r: ByteReader): string {
  const len = r.varint();
  const s = Buffer.from(buf.buffer, buf.byteOffset + r.pos, len).toString('utf8');
  r.pos += len;
  return s;
}

/** Use to read a whole block back as rows (writers merging into it); books are fresh copies. */
export function decodeBlock(vals: Uint8Array, books: Uint8Array | null): BlockRows {
  const v = new BlockVals(vals);
  const rows = emptyRows();
  for (let i = 0; i < v.n; i++) {
    rows.t.push(v.t(i));
    rows.price.push(v.price(i));
    rows.up.push(v.up(i));
    rows.down.push(v.down(i));
    rows.books.push(undefined);
  }
  if (books) readBooks(books, v, 0, v.n, (i, b) => (rows.books[i] = isText(b) ? b : copyPair(b)));
  return rows;
}

/** Both sides' served text of stored books. */
export function booksText(b: StoredBooks): [string, string] {
  return isText(b) ? [b[0], b[1]] : [sideText(b, 0), sideText(b, 1)];
}
