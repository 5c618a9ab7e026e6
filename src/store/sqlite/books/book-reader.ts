// Reading stored orderbooks back: a row holds either the two sides' JSON text (written before
// books were packed, or text the codec cannot reproduce) or one packed pair (book-codec.ts) whose
// reference, when it has one, is an earlier row of the same market in the same BOOK_WINDOW_MS.
// Rows read in time order decode each against the one before; a reference not at hand is
// rebuilt from the rows of its window.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { copyPair, decodePair, emptyPair, refDt, type BookPair } from '../../core/book-codec.js';
import { sideText } from '../../core/book-text.js';
import { isPacked, type PairSource, type StoredBook } from '../../core/stored-book.js';

/** A packed pair references only rows of its own window (offsets t / BOOK_WINDOW_MS alike): chains stay short. */
export const BOOK_WINDOW_MS = 4000;

export { isPacked, type StoredBook } from '../../core/stored-book.js';

/** Use to read stored orderbooks over one connection: as text, or as numbers without any JSON. */
export class BookReader implements PairSource {
  private readonly windowRows: Statement;
  private readonly one: Statement;
  private market = -1;
  private t = -1;
  private last = emptyPair();
  private next = emptyPair();

  constructor(db: Database.Database) {
    this.windowRows = db.prepare('SELECT t, up FROM orderbooks WHERE market = ? AND t >= ? AND t <= ? ORDER BY t').raw(true);
    this.one = db.prepare('SELECT up FROM orderbooks WHERE market = ? AND t = ?').pluck();
  }

  /**
   * The pair packed in `blob` (the row of `market` at offset `t`), decoded against its reference.
   * Pairs are decoded into two objects in turn: the result stays intact through the next call and
   * is reused by the one after it: copy what must live longer.
   */
  pair(market: number, t: number, blob: Uint8Array): BookPair {
    const dt = refDt(blob);
    let ref: BookPair | undefined;
    if (dt > 0) ref = this.market === market && this.t === t - dt ? this.last : this.resolve(market, t - dt);
    const out = decodePair(blob, ref, this.next);
    this.next = this.last;
    this.last = out;
    this.market = market;
    this.t = t;
    return out;
  }

  /** Both sides as the JSON text served, from either kind of row. */
  texts(market: number, t: number, up: StoredBook, down: StoredBook | null): [string, string] {
    if (!isPacked(up)) return [up, down as string];
    const pair = this.pair(market, t, up);
    return [sideText(pair, 0), sideText(pair, 1)];
  }

  /** Forget what was decoded (another writer may have changed the rows since). */
  reset(): void {
    this.market = -1;
    this.t = -1;
  }

  /** The pair of the row at `t` of `market`, rebuilt from the rows of its window (a fresh object). */
  private resolve(market: number, t: number): BookPair {
    const from = Math.floor(t / BOOK_WINDOW_MS) * BOOK_WINDOW_MS;
    const rows = this.windowRows.all(market, from, t) as [number, StoredBook][];
    const seen = new Map<number, BookPair>();
    for (const [rt, up] of rows) {
      if (!isPacked(up)) continue;
      const dt = refDt(up);
      const ref = dt > 0 ? seen.get(rt - dt) : undefined;
      if (dt > 0 && !ref) throw new RangeError(`orderbook of market ${market} at ${rt} lost its reference`);
      seen.set(rt, decodePair(up, ref, emptyPair()));
    }
    const found = seen.get(t);
    if (!found) {
      const up = this.one.get(market, t);
      throw new RangeError(`orderbook of market ${market} at ${t} ${up === undefined ? 'is missing' : 'is not packed'}: a packed row refers to it`);
    }
    return copyPair(found);
  }
}
