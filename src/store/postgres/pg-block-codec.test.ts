import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../random/prng.js';
import { emptyPair, type BookPair } from '../core/book-codec.js';
import { parsePair, sideText } from '../core/book-text.js';
import { BlockVals, booksText, decodeBlock, emptyRows, encodeBooks, encodeVals, readBooks, type BlockRows, type StoredBooks } from './pg-block-codec.js';
import { pageBooks } from './pg-page-books.js';

/** A random book pair on a 1-cent grid, sizes with two decimals. */
function randomPair(r: () => number): BookPair {
  const up = 0.2 + Math.round(r() * 60) / 100;
  const side = (mid: number) => {
    const bids = Array.from({ length: 1 + Math.floor(r() * 8) }, (_, i) => ({ price: Math.round((mid - 0.01 * (i + 1)) * 100) / 100, size: Math.round(r() * 50_000) / 100 }));
    const asks = Array.from({ length: 1 + Math.floor(r() * 8) }, (_, i) => ({ price: Math.round((mid + 0.01 * i) * 100) / 100, size: Math.round(r() * 50_000) / 100 }));
    return JSON.stringify({ bids, asks });
  };
  return parsePair(side(up), side(Math.round((1 - up) * 100) / 100)) ?? emptyPair();
}

/** Rows at t = t0 + i * step (jittered when `grid` is false), some with books (pairs, repeats and text). */
function rowsOf(n: number, t0: number, grid: boolean, wide: boolean, seed: number): BlockRows {
  const r = mulberry32(seed);
  const rows = emptyRows();
  let last: BookPair | undefined;
  for (let i = 0; i < n; i++) {
    rows.t.push(t0 + i * 125 + (grid ? 0 : Math.floor(r() * 100)));
    rows.price.push(wide && i === 3 ? -5 : Math.floor(r() * 1e9));
    rows.up.push(wide && i === 7 ? 20_000 : Math.floor(r() * 10_001));
    rows.down.push(Math.floor(r() * 10_001));
    const k = r();
    let books: StoredBooks | undefined;
    if (k < 0.1) books = undefined;
    else if (k < 0.15) books = ['{"bids":[[0.5,"1"]],"asks":[]}', '{"asks":[],"bids":[]}'];
    else if (k < 0.6 && last) books = last;
    else books = last = randomPair(r);
    rows.books.push(books);
  }
  return rows;
}

function texts(rows: BlockRows, from: number, to: number): ([string, string] | undefined)[] {
  return rows.books.slice(from, to).map((b) => (b === undefined ? undefined : booksText(b)));
}

describe('PostgreSQL snapshot blocks', () => {
  for (const [name, grid, wide] of [['grid, narrow', true, false], ['times stored, narrow', false, false], ['grid, wide values', true, true]] as const) {
    it(`round-trips every row and book: ${name}`, () => {
      const rows = rowsOf(1024, 3 * 128_000, grid, wide, 7);
      const vals = encodeVals(rows);
      const books = encodeBooks(rows)!;
      const back = decodeBlock(vals, books);
      expect(back.t).toEqual(rows.t);
      expect([back.price, back.up, back.down]).toEqual([rows.price, rows.up, rows.down]);
      expect(texts(back, 0, 1024)).toEqual(texts(rows, 0, 1024));
      const v = new BlockVals(vals);
      expect(v.prices !== undefined).toBe(!wide);
      expect(v.lowerBound(rows.t[500]!)).toBe(500);
      expect(v.lowerBound(rows.t[500]! + 1)).toBe(501);
    });
  }

  it('reads the books of any range, starting mid-window, as the whole block decodes them', () => {
    const rows = rowsOf(700, 0, true, false, 11);
    const vals = new BlockVals(encodeVals(rows));
    const books = encodeBooks(rows)!;
    for (const [from, to] of [[0, 700], [13, 14], [250, 333], [699, 700]] as const) {
      const got: ([string, string] | undefined)[] = Array.from({ length: to - from });
      readBooks(books, vals, from, to, (i, b) => (got[i - from] = booksText(b)));
      expect(got).toEqual(texts(rows, from, to));
      // The page writer's source: the same pairs, decoded in time order from any first row.
      const { columns, pairs } = pageBooks([{ vals, books }], rows.t[from]!, rows.t[to - 1]! + 1);
      const printed = columns.t.map((t, k) => {
        const up = columns.up[k]!;
        if (typeof up === 'string') return [up, columns.down[k]!];
        const pair = pairs.pair(0, t, up);
        return [sideText(pair, 0), sideText(pair, 1)];
      });
      expect(printed).toEqual(texts(rows, from, to).filter((b) => b !== undefined));
    }
  });

  it('stores no books column for a block without any', () => {
    const rows = rowsOf(10, 0, true, false, 3);
    rows.books.fill(undefined);
    expect(encodeBooks(rows)).toBeUndefined();
  });
});
