// msnap's own Parquet exports read back for `serve import`: one row group at a time (memory stays
// one group), each row as the record a CSV line would have given. Times come back from their
// TIMESTAMP columns as epoch ms, integers as numbers, and the flat orderbook columns
// (`up_bid_px_0` …, see cli/output/orderbook-columns.ts) as the nested books they were cut from.
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';

const FLAT_BOOK = /^(up|down)_(bid|ask)_(px|sz)_(\d+)$/;

/** Use to read a Parquet file row by row as import records (see parseImportRecord). */
export async function* parquetRecords(path: string): AsyncGenerator<Record<string, unknown>> {
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file);
  let start = 0;
  for (const group of metadata.row_groups) {
    const end = start + Number(group.num_rows);
    const rows = await parquetReadObjects({ file, metadata, rowStart: start, rowEnd: end });
    for (const row of rows) yield toRecord(row);
    start = end;
  }
}

function plain(v: unknown): unknown {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'bigint') return Number(v);
  return v;
}

function toRecord(row: Record<string, unknown>): Record<string, unknown> {
  const rec: Record<string, unknown> = {};
  const books: Record<string, { bids: { price: number; size: number }[]; asks: { price: number; size: number }[] }> = {};
  for (const [name, value] of Object.entries(row)) {
    const m = FLAT_BOOK.exec(name);
    if (!m) {
      rec[name] = plain(value);
      continue;
    }
    const [, side, kind, field, level] = m;
    const book = (books[`orderbook_${side}`] ??= { bids: [], asks: [] });
    const levels = kind === 'bid' ? book.bids : book.asks;
    if (value === null || value === undefined) continue;
    const at = (levels[Number(level)] ??= { price: NaN, size: NaN });
    if (field === 'px') at.price = Number(plain(value));
    else at.size = Number(plain(value));
  }
  // A snapshot without depth has every flat cell null: no book, as in the CSV it came from.
  for (const [field, book] of Object.entries(books)) {
    const levels = [...book.bids, ...book.asks];
    if (levels.length === 0) continue;
    rec[field] = { bids: book.bids.filter(Boolean), asks: book.asks.filter(Boolean) };
  }
  return rec;
}
