// The write side of packed orderbooks (book-codec.ts): each market's last written pair is kept, so
// the next row of the same window is packed against it when that is smaller; a rollback forgets
// them all (a reference must be a committed row). Deleting rows (the live world's prune) first
// re-packs, self-contained, the rows that referred to them.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { copyPair, encodePair, refDt, type BookPair } from '../../core/book-codec.js';
import { BOOK_WINDOW_MS, BookReader, isPacked, type StoredBook } from './book-reader.js';

/** Markets whose last pair is kept (serve --live appends to ~15 at a time; seed and import to one). */
const MAX_MARKETS = 64;

/** Empty `down` of a packed row: the pair in `up` holds both sides. */
export const PACKED_DOWN = Buffer.alloc(0);

/** Use inside a bulk writer for every orderbook it stores as a packed pair. */
export class BookPacker {
  private readonly last = new Map<number, { t: number; pair: BookPair }>();
  private readonly after: Statement;
  private readonly repack: Statement;

  constructor(
    db: Database.Database,
    private readonly reader: BookReader,
  ) {
    this.after = db.prepare('SELECT t, up FROM orderbooks WHERE market = ? AND t >= ? AND t < ? ORDER BY t').raw(true);
    this.repack = db.prepare('UPDATE orderbooks SET up = ? WHERE market = ? AND t = ?');
  }

  /** The bytes to store for `pair` at offset t of `market` (a fresh copy). Call stored() once the row is in. */
  pack(market: number, t: number, pair: BookPair): Buffer {
    const prev = this.last.get(market);
    const usable = prev !== undefined && prev.t < t && Math.floor(prev.t / BOOK_WINDOW_MS) === Math.floor(t / BOOK_WINDOW_MS);
    return Buffer.from(usable ? encodePair(pair, prev.pair, t - prev.t) : encodePair(pair));
  }

  /** Records that `pair` is now stored at t: later rows of its window may refer to it. */
  stored(market: number, t: number, pair: BookPair): void {
    const prev = this.last.get(market);
    if (prev && prev.t >= t) return;
    if (!prev && this.last.size >= MAX_MARKETS) this.last.delete(this.last.keys().next().value!);
    this.last.set(market, { t, pair: copyPair(pair, prev?.pair) });
  }

  /** Call when a transaction rolled back: the kept pairs may name rows that are not there. */
  forget(): void {
    this.last.clear();
    this.reader.reset();
  }

  /**
   * Call before deleting a market's books at offsets below `beforeT`: rows of the window that
   * holds beforeT which refer below it are re-packed without a reference.
   */
  detachBefore(market: number, beforeT: number): void {
    const end = (Math.floor(beforeT / BOOK_WINDOW_MS) + 1) * BOOK_WINDOW_MS;
    const rows = this.after.all(market, beforeT, end) as [number, StoredBook][];
    const fixes: [Buffer, number][] = [];
    this.reader.reset();
    for (const [t, up] of rows) {
      if (!isPacked(up)) continue;
      const pair = this.reader.pair(market, t, up);
      if (refDt(up) > 0 && t - refDt(up) < beforeT) fixes.push([Buffer.from(encodePair(pair)), t]);
    }
    for (const [blob, t] of fixes) this.repack.run(blob, market, t);
    this.forget();
  }
}
