// Packing the orderbook rows an older msnap stored as JSON text (serve compact-books), in place:
// rows in (market, t) order, one transaction per batch, so a kill loses at most the batch under
// way and a rerun continues (packed rows are read back as references, text rows packed). A row
// is packed against the row before it exactly as a writer appending it would, so a run killed and
// rerun leaves the very bytes an uninterrupted run leaves. Text the codec cannot reproduce stays.
import type Database from 'better-sqlite3';
import { COMPACT_BATCH_ROWS, type CompactOptions, type CompactProgress } from '../../bulk-store.js';
import { copyPair, decodePair, emptyPair, encodePair, refDt, type BookPair } from '../../core/book-codec.js';
import { parsePair } from '../../core/book-text.js';
import { PACKED_DOWN } from './book-packer.js';
import { BOOK_WINDOW_MS, BookReader, isPacked, type StoredBook } from './book-reader.js';

export { COMPACT_BATCH_ROWS, type CompactOptions, type CompactProgress };

/** Use to pack every text orderbook row of a database, batch by batch (see the file comment). */
export function compactBooks(db: Database.Database, opts: CompactOptions = {}): CompactProgress {
  const batchRows = Math.max(1, opts.batchRows ?? COMPACT_BATCH_ROWS);
  const total = db.prepare("SELECT count(*) FROM orderbooks WHERE typeof(up) = 'text'").pluck().get() as number;
  const next = db.prepare('SELECT market, t, up, down FROM orderbooks WHERE (market, t) > (?, ?) ORDER BY market, t LIMIT ?').raw(true);
  const update = db.prepare('UPDATE orderbooks SET up = ?, down = ? WHERE market = ? AND t = ?');
  const reader = new BookReader(db);
  const progress: CompactProgress = { done: 0, total, packed: 0, kept: 0 };
  let cursor: [number, number] = [-Infinity, -Infinity];
  // The row before, as a writer appending would have it at hand (undefined: text kept, or none).
  let prev: { market: number; t: number; pair: BookPair } | undefined;
  const spare = emptyPair();
  const batch = db.transaction(() => {
    const rows = next.all(cursor[0], cursor[1], batchRows) as [number, number, StoredBook, StoredBook][];
    for (const [market, t, up, down] of rows) {
      const same = prev !== undefined && prev.market === market && prev.t < t && Math.floor(prev.t / BOOK_WINDOW_MS) === Math.floor(t / BOOK_WINDOW_MS);
      let pair: BookPair | undefined;
      if (isPacked(up)) {
        const dt = refDt(up);
        pair = dt > 0 && same && prev!.t === t - dt ? decodePair(up, prev!.pair, spare) : reader.pair(market, t, up);
      } else {
        progress.done++;
        pair = parsePair(up, down as string);
        if (pair) {
          update.run(Buffer.from(same ? encodePair(pair, prev!.pair, t - prev!.t) : encodePair(pair)), PACKED_DOWN, market, t);
          progress.packed++;
        } else {
          progress.kept++;
        }
      }
      prev = pair ? { market, t, pair: copyPair(pair, prev?.pair) } : undefined;
    }
    if (rows.length > 0) cursor = [rows[rows.length - 1]![0], rows[rows.length - 1]![1]];
    return rows.length;
  });
  for (;;) {
    const before = { ...progress };
    let n: number;
    try {
      n = batch.immediate();
    } catch (err) {
      Object.assign(progress, before);
      throw err;
    }
    if (n === 0) return progress;
    opts.onProgress?.({ ...progress });
  }
}
