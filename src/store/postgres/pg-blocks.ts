// Writing the PostgreSQL store's snapshot blocks (pg-block-codec.ts) inside a transaction: rows
// merged into the blocks of their buckets (what is stored wins, as INSERT ... ON CONFLICT DO NOTHING
// did for rows; a stored snapshot without books takes the books that come), and rows of a table
// (the legacy snapshots / orderbooks, or a load's temp tables) folded into blocks chunk by chunk.
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';
import { parsePair } from '../core/book-text.js';
import { BLOCK_MS, bucketOf, decodeBlock, emptyRows, encodeBooks, encodeVals, type BlockRows, type StoredBooks } from './pg-block-codec.js';
import type { Pg } from './pg-connection.js';

/** A stored block as read for a page. */
export interface StoredBlock {
  bucket: number;
  vals: Buffer;
  books: Buffer | null;
}

/** What a merge did: how many snapshots were new (and their offsets when asked), and books added. */
export interface MergeCounts {
  added: number;
  books: number;
  addedTs?: number[];
}

/** Rows per read when folding a table into blocks. */
const FOLD_ROWS = 20_000;

const UPSERT = `INSERT INTO snapshot_blocks (market, bucket, n, t_first, t_last, off_grid, p_first, p_last, n_books, vals, books)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
  ON CONFLICT (market, bucket) DO UPDATE SET n = excluded.n, t_first = excluded.t_first, t_last = excluded.t_last,
    off_grid = excluded.off_grid, p_first = excluded.p_first, p_last = excluded.p_last, n_books = excluded.n_books,
    vals = excluded.vals, books = excluded.books`;

/**
 * The select list of a read of blocks: base64 costs PostgreSQL and the driver less than bytea's hex
 * text on the wire (a page reads 16-80 KB); `books` names the books expression (NULL: none).
 */
export function wireColumns(prefix = '', books = 'NULL::bytea'): string {
  return `${prefix}bucket AS bucket, encode(${prefix}vals, 'base64') AS vals, encode(${books}, 'base64') AS books`;
}

/** A block read with wireColumns, as bytes. */
export function fromWire(row: { bucket: number; vals: unknown; books: unknown }): StoredBlock {
  return {
    bucket: row.bucket,
    vals: Buffer.from(row.vals as string, 'base64'),
    books: row.books === null ? null : Buffer.from(row.books as string, 'base64'),
  };
}

/** Use for a page: the market's blocks in buckets [b0, b1], in order, with their books when asked. */
export async function selectBlocks(sql: Pg, market: number, b0: number, b1: number, books: boolean): Promise<StoredBlock[]> {
  const text = `SELECT ${wireColumns('', books ? 'books' : undefined)} FROM snapshot_blocks
    WHERE market = $1 AND bucket BETWEEN $2 AND $3 ORDER BY bucket`;
  return (await sql.unsafe<StoredBlock[]>(text, [market, b0, b1], { prepare: true })).map(fromWire);
}

/** Use to store the books of a text pair: packed when the text prints back byte for byte, else kept as text. */
export function storedBooks(up: string, down: string): StoredBooks {
  return parsePair(up, down) ?? [up, down];
}

/**
 * Use inside a write transaction: merges `rows` (in t order, one per t) into the market's blocks.
 * `keepTs` returns the offsets of the snapshots that were new.
 */
export async function mergeIntoBlocks(tx: Pg, market: number, rows: BlockRows, keepTs = false): Promise<MergeCounts> {
  const counts: MergeCounts = { added: 0, books: 0, addedTs: keepTs ? [] : undefined };
  if (rows.t.length === 0) return counts;
  const runs: { bucket: number; from: number; to: number }[] = [];
  for (let i = 0; i < rows.t.length; ) {
    const bucket = bucketOf(rows.t[i]!);
    let j = i + 1;
    while (j < rows.t.length && bucketOf(rows.t[j]!) === bucket) j++;
    runs.push({ bucket, from: i, to: j });
    i = j;
  }
  const stored = await tx.unsafe<StoredBlock[]>('SELECT bucket, vals, books FROM snapshot_blocks WHERE market = $1 AND bucket = ANY($2::int[])', [
    market,
    runs.map((r) => r.bucket),
  ]);
  const byBucket = new Map(stored.map((b) => [b.bucket, b]));
  const writes: Promise<unknown>[] = [];
  for (const run of runs) {
    const old = byBucket.get(run.bucket);
    const merged = mergeRows(old ? decodeBlock(old.vals, old.books) : emptyRows(), rows, run.from, run.to, counts);
    if (merged) writes.push(writeBlock(tx, market, run.bucket, merged));
  }
  await Promise.all(writes);
  return counts;
}

/** The block with rows [from, to) of `inc` merged in, or undefined when nothing changed. */
function mergeRows(cur: BlockRows, inc: BlockRows, from: number, to: number, counts: MergeCounts): BlockRows | undefined {
  const out: BlockRows = emptyRows();
  let changed = false;
  let i = 0;
  let j = from;
  const push = (src: BlockRows, k: number, books: StoredBooks | undefined) => {
    out.t.push(src.t[k]!);
    out.price.push(src.price[k]!);
    out.up.push(src.up[k]!);
    out.down.push(src.down[k]!);
    out.books.push(books);
  };
  while (i < cur.t.length || j < to) {
    const a = i < cur.t.length ? cur.t[i]! : Infinity;
    const b = j < to ? inc.t[j]! : Infinity;
    if (a < b) {
      push(cur, i, cur.books[i]);
      i++;
    } else if (b < a) {
      const books = inc.books[j];
      push(inc, j, books);
      counts.added++;
      counts.addedTs?.push(b);
      if (books) counts.books++;
      changed = true;
      j++;
    } else {
      let books = cur.books[i];
      if (books === undefined && inc.books[j] !== undefined) {
        books = inc.books[j];
        counts.books++;
        changed = true;
      }
      push(cur, i, books);
      i++;
      j++;
    }
  }
  return changed ? out : undefined;
}

/** Use to store one block whole (replacing the one stored). */
async function writeBlock(tx: Pg, market: number, bucket: number, rows: BlockRows): Promise<void> {
  const n = rows.t.length;
  let offGrid = 0;
  let books = 0;
  for (let i = 0; i < n; i++) {
    if (rows.t[i]! % SNAPSHOT_INTERVAL_MS !== 0) offGrid++;
    if (rows.books[i] !== undefined) books++;
  }
  await tx.unsafe(
    UPSERT,
    [market, bucket, n, rows.t[0]!, rows.t[n - 1]!, offGrid, rows.price[0]!, rows.price[n - 1]!, books, encodeVals(rows), encodeBooks(rows) ?? null],
    { prepare: true },
  );
}

/** Where a fold reads rows: a snapshots-like and an orderbooks-like table (both keyed by market, t). */
export interface RowTables {
  snapshots: string;
  orderbooks: string;
}

/** The legacy row tables a market of an older store sits in. */
const LEGACY_ROWS: RowTables = { snapshots: 'snapshots', orderbooks: 'orderbooks' };

type FoldRow = [number, number, number, number, string | null, string | null];

/**
 * Use inside a write transaction: every row of `market` in `src` merged into its blocks, read
 * FOLD_ROWS at a time in t order and merged a whole bucket at a time (memory stays flat for a day's
 * market). Books of offsets without a snapshot row are not kept (they were never served).
 */
export async function foldRows(tx: Pg, market: number, src: RowTables, keepTs = false): Promise<MergeCounts & { rows: number }> {
  const total: MergeCounts & { rows: number } = { rows: 0, added: 0, books: 0, addedTs: keepTs ? [] : undefined };
  const text = `SELECT s.t, s.price, s.price_up, s.price_down, o.up, o.down FROM ${src.snapshots} s
    LEFT JOIN ${src.orderbooks} o ON o.market = s.market AND o.t = s.t
    WHERE s.market = $1 AND s.t >= $2 ORDER BY s.t LIMIT $3`;
  let from = -(2 ** 31);
  let limit = FOLD_ROWS;
  for (;;) {
    const got = (await tx.unsafe(text, [market, from, limit]).values()) as unknown as FoldRow[];
    const last = got.length === limit;
    // A full read may end inside a bucket: that bucket is read again whole by the next round.
    const end = last ? bucketOf(got[got.length - 1]![0]) * BLOCK_MS : Infinity;
    const rows = emptyRows();
    for (const r of got) {
      if (r[0] >= end) break;
      rows.t.push(r[0]);
      rows.price.push(r[1]);
      rows.up.push(r[2]);
      rows.down.push(r[3]);
      rows.books.push(r[4] !== null && r[5] !== null ? storedBooks(r[4], r[5]) : undefined);
    }
    if (last && rows.t.length === 0) {
      // One bucket holds more than a read: read more at once.
      limit *= 2;
      continue;
    }
    const c = await mergeIntoBlocks(tx, market, rows, keepTs);
    total.rows += rows.t.length;
    total.added += c.added;
    total.books += c.books;
    if (keepTs) total.addedTs!.push(...c.addedTs!);
    if (!last) return total;
    from = end;
    limit = FOLD_ROWS;
  }
}

/**
 * Use before writing to a market: when it still sits in the legacy row tables, its rows move into
 * blocks (in the caller's transaction) and it is marked as in blocks. Returns the rows moved.
 */
export async function moveMarketToBlocks(tx: Pg, market: number): Promise<number> {
  const [m] = await tx<{ in_rows: boolean }[]>`SELECT in_rows FROM markets WHERE id = ${market} FOR UPDATE`;
  if (!m?.in_rows) return 0;
  const moved = await foldRows(tx, market, LEGACY_ROWS);
  await tx`DELETE FROM snapshots WHERE market = ${market}`;
  await tx`DELETE FROM orderbooks WHERE market = ${market}`;
  await tx`UPDATE markets SET in_rows = false WHERE id = ${market}`;
  return moved.rows;
}
