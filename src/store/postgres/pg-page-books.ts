// A dense page's books for the byte writer SQLite uses (core/book-page-bytes.ts): the packed pairs
// and text of the page's blocks as columns, and a PairSource that decodes them in time order. A
// pair refers only within its block and 4-second window, so the packed pairs from the window of
// the page's first row on are all a reference can need.
import { decodePair, emptyPair, refDt, type BookPair } from '../core/book-codec.js';
import type { PageBookColumns } from '../core/book-page-bytes.js';
import type { PairSource } from '../core/stored-book.js';
import { scanBooks, windowStart, type BlockVals } from './pg-block-codec.js';

/** Use for a dense page of offsets [from, to) over its blocks (in order). */
export function pageBooks(blocks: readonly { vals: BlockVals; books: Uint8Array | null }[], from: number, to: number): { columns: PageBookColumns; pairs: PairSource } {
  const columns: PageBookColumns = { t: [], up: [], down: [] };
  const known = new Map<number, Uint8Array>();
  const start = windowStart(from);
  for (const { vals, books } of blocks) {
    if (!books) continue;
    scanBooks(books, vals, vals.lowerBound(to), (_i, t, up, down) => {
      if (typeof up !== 'string' && t >= start) known.set(t, up);
      if (t < from) return;
      columns.t.push(t);
      columns.up.push(up);
      columns.down.push(down);
    });
  }
  return { columns, pairs: new BlockPairs(known) };
}

class BlockPairs implements PairSource {
  private lastT = NaN;
  private last = emptyPair();
  private next = emptyPair();

  constructor(private readonly known: ReadonlyMap<number, Uint8Array>) {}

  pair(_market: number, t: number, blob: Uint8Array): BookPair {
    const dt = refDt(blob);
    let ref: BookPair | undefined;
    if (dt > 0) ref = this.lastT === t - dt ? this.last : this.resolve(t - dt);
    const out = decodePair(blob, ref, this.next);
    this.next = this.last;
    this.last = out;
    this.lastT = t;
    return out;
  }

  reset(): void {
    this.lastT = NaN;
  }

  /** The pair at t, decoded from the start of its window (a fresh object). */
  private resolve(t: number): BookPair {
    const chain = [...this.known.keys()].filter((k) => k >= windowStart(t) && k <= t).sort((a, b) => a - b);
    let prev: BookPair | undefined;
    for (const k of chain) {
      const blob = this.known.get(k)!;
      prev = decodePair(blob, refDt(blob) > 0 ? prev : undefined, emptyPair());
    }
    if (chain[chain.length - 1] !== t) throw new RangeError(`the packed orderbook at offset ${t} is missing: a later pair of its block refers to it`);
    return prev!;
  }
}
