// Snapshot reads over the PostgreSQL store's blocks (pg-block-codec.ts): a page is a key range of
// buckets (a dense market's one or two blocks straight into the dense page writer; any other
// market's by the blocks' row counts, no OFFSET walk), written with the very renderers the SQLite
// store uses, so the bytes are the same.
import { SNAPSHOT_INTERVAL_MS, type Snapshot } from '../../domain/market.js';
import { booksText, bucketOf, BlockVals, readBooks, type StoredBooks } from './pg-block-codec.js';
import { fromWire, selectBlocks, wireColumns, type StoredBlock } from './pg-blocks.js';
import type { Pg } from './pg-connection.js';
import { MARKET_COLUMNS } from './pg-market-reads.js';
import { PageBooks } from '../core/book-page-bytes.js';
import { writeDensePage } from '../core/dense-page-writer.js';
import { pageBooks } from './pg-page-books.js';
import type { MarketRow } from '../core/market-row.js';
import { densePageRange, nearestRecord, pickNearest, type OffsetRange } from '../core/page-plan.js';
import type { PageIds } from '../core/snapshot-ids.js';
import { snapshotRowsToJson, type RawSnapshotRow } from '../core/snapshot-json.js';
import type { SnapshotQuery } from '../store.js';

/** A page as Store.snapshotPageJson answers it. */
export interface JsonPage {
  json: string;
  count: number;
  total: number;
}

/** A market row as a page reads it, with where its snapshots sit. */
export type PageMarket = MarketRow & { in_rows: boolean };

interface Header {
  bucket: number;
  n: number;
  t_first: number;
  t_last: number;
}

/** A decoded block and the index its first row has among the blocks read. */
interface Held {
  block: StoredBlock;
  vals: BlockVals;
}

const NEAREST = `(SELECT ${wireColumns()} FROM snapshot_blocks WHERE market = $1 AND bucket <= $2 ORDER BY bucket DESC LIMIT 2)
  UNION ALL
  (SELECT ${wireColumns()} FROM snapshot_blocks WHERE market = $1 AND bucket > $2 ORDER BY bucket ASC LIMIT 1)`;

/** Use for the snapshot reads of markets held in blocks. */
export class PgBlockReads {
  constructor(private readonly sql: Pg) {}

  /**
   * The market row and, when it is dense and in blocks, the blocks a page from q.offset (no from /
   * before) reads: one round trip. Undefined market: no such market.
   */
  async marketWithBlocks(marketId: string, q: SnapshotQuery): Promise<{ market: PageMarket | undefined; blocks: StoredBlock[] }> {
    const b0 = bucketOf(q.offset * SNAPSHOT_INTERVAL_MS);
    const b1 = bucketOf((q.offset + Math.max(1, q.limit) - 1) * SNAPSHOT_INTERVAL_MS);
    const rows = await this.sql.unsafe<(PageMarket & { bucket: number | null; vals: string | null; books: string | null })[]>(
      `SELECT ${MARKET_COLUMNS}, m.in_rows, b.bucket, b.vals, b.books FROM markets m LEFT JOIN LATERAL (
        SELECT ${wireColumns('', 'CASE WHEN $4 THEN books END')} FROM snapshot_blocks
        WHERE m.dense AND NOT m.in_rows AND market = m.id AND bucket BETWEEN $2 AND $3 ORDER BY bucket) b ON true
      WHERE m.market_id = $1`,
      [marketId, clampInt(b0), clampInt(b1), q.includeOrderbook === true],
      { prepare: true },
    );
    const blocks = rows.flatMap((r) => (r.bucket === null ? [] : [fromWire({ bucket: r.bucket, vals: r.vals, books: r.books })]));
    for (const r of rows) {
      delete (r as Partial<typeof r>).bucket;
      delete (r as Partial<typeof r>).vals;
      delete (r as Partial<typeof r>).books;
    }
    return { market: rows[0], blocks };
  }

  /** A dense market's page: the buckets of its offsets [from, to) (`fetched`: some of them, read already). */
  async densePage(
    m: MarketRow,
    range: OffsetRange,
    q: SnapshotQuery,
    ids: PageIds,
    exceptions: Promise<Map<number, number> | undefined>,
    fetched: StoredBlock[] = [],
  ): Promise<JsonPage> {
    const { total, first, last, from, to } = densePageRange(m, range, q);
    if (last <= first) return { json: '[]', count: 0, total };
    const books = q.includeOrderbook === true;
    const b0 = bucketOf(from);
    const b1 = bucketOf(to - 1);
    const have = fetched.filter((b) => b.bucket >= b0 && b.bucket <= b1);
    const read = have.length === b1 - b0 + 1 ? Promise.resolve(have) : selectBlocks(this.sql, m.id, b0, b1, books);
    const [blocks, exc] = await Promise.all([read, exceptions]);
    if (exc) ids.exceptions = exc;
    const held = blocks.map((block) => ({ block, vals: new BlockVals(block.vals) }));
    const n = last - first;
    if (!exc && held.every((h) => h.vals.prices !== undefined)) {
      // Values straight from the blocks, books straight from their packed pairs: no row objects, no strings per number.
      const prices = new Uint32Array(n);
      const sides = new Uint32Array(n);
      let at = 0;
      for (const { vals } of held) {
        const a = vals.lowerBound(from);
        const b = vals.lowerBound(to);
        prices.set(vals.prices!.subarray(a, b), at);
        sides.set(vals.sides!.subarray(a, b), at);
        at += b - a;
      }
      if (at === n) {
        const extra = books ? pageBooks(held.map((h) => ({ vals: h.vals, books: h.block.books })), from, to) : undefined;
        const writer = extra && new PageBooks(extra.pairs, m.id, from, extra.columns);
        const json = writeDensePage(prices, sides, from, ids, m.market_id, m.start_time, q.format, writer);
        if (json !== undefined) return { json, count: n, total };
      }
    }
    const rows: RawSnapshotRow[] = [];
    for (const h of held) collect(h, h.vals.lowerBound(from), h.vals.lowerBound(to), books, rows);
    return { json: snapshotRowsToJson(rows, ids, m.market_id, m.start_time, q.includeOrderbook, q.format), count: rows.length, total };
  }

  /** Any other market's page: rows [offset, offset + limit) of those with offsets in [lo, hi). */
  async page(m: MarketRow, range: OffsetRange, q: SnapshotQuery, ids: PageIds, exceptions: Promise<Map<number, number> | undefined>): Promise<JsonPage> {
    const { lo, hi } = range;
    const books = q.includeOrderbook === true;
    const all = await this.sql.unsafe<Header[]>(
      'SELECT bucket, n, t_first, t_last FROM snapshot_blocks WHERE market = $1 AND bucket BETWEEN $2 AND $3 ORDER BY bucket',
      [m.id, bucketOf(lo), bucketOf(hi - 1)],
      { prepare: true },
    );
    const headers = all.filter((h) => h.t_last >= lo && h.t_first < hi);
    const exc = await exceptions;
    if (exc) ids.exceptions = exc;
    if (headers.length === 0) return { json: '[]', count: 0, total: 0 };
    const head = headers[0]!;
    const tail = headers[headers.length - 1]!;
    // Rows of the first block before lo are counted once it is read; until then the page may start up to its n rows later.
    const headCut = head.t_first < lo;
    const tailCut = tail.t_last >= hi;
    const want = new Set<number>();
    if (headCut) want.add(head.bucket);
    if (tailCut) want.add(tail.bucket);
    const reach = q.offset + q.limit + (headCut ? head.n : 0);
    let start = 0;
    for (const h of headers) {
      if (start + h.n > q.offset && start < reach) want.add(h.bucket);
      start += h.n;
    }
    const got = await this.sql.unsafe<StoredBlock[]>(
      `SELECT ${wireColumns('', books ? 'books' : undefined)} FROM snapshot_blocks WHERE market = $1 AND bucket = ANY($2::int[]) ORDER BY bucket`,
      [m.id, [...want]],
    ).then((r) => r.map(fromWire));
    const byBucket = new Map(got.map((b) => [b.bucket, b]));
    const vals = new Map(got.map((b) => [b.bucket, new BlockVals(b.vals)]));
    const skip = headCut ? vals.get(head.bucket)!.lowerBound(lo) : 0;
    const after = tailCut ? tail.n - vals.get(tail.bucket)!.lowerBound(hi) : 0;
    const inRange = start - skip - after;
    const total = q.from === undefined && q.before === undefined ? m.snapshot_count : inRange;
    const first = skip + q.offset;
    const last = skip + Math.min(inRange, q.offset + q.limit);
    const rows: RawSnapshotRow[] = [];
    start = 0;
    for (const h of headers) {
      const a = Math.max(first - start, 0);
      const b = Math.min(last - start, h.n);
      if (a < b) collect({ block: byBucket.get(h.bucket)!, vals: vals.get(h.bucket)! }, a, b, books, rows);
      start += h.n;
    }
    return { json: snapshotRowsToJson(rows, ids, m.market_id, m.start_time, q.includeOrderbook, q.format), count: rows.length, total };
  }

  /** See Store.nearestSnapshot, for a market in blocks. */
  async nearest(m: MarketRow, t: number, includeOrderbook: boolean): Promise<Snapshot | undefined> {
    const blocks = (await this.sql.unsafe<StoredBlock[]>(NEAREST, [m.id, clampInt(bucketOf(t))], { prepare: true })).map(fromWire);
    blocks.sort((a, b) => a.bucket - b.bucket);
    let before: { bucket: number; i: number; row: RawSnapshotRow } | undefined;
    let after: typeof before;
    for (const block of blocks) {
      const v = new BlockVals(block.vals);
      const k = v.lowerBound(t + 1);
      if (k > 0) before = { bucket: block.bucket, i: k - 1, row: rowOf(v, k - 1) };
      if (k < v.n && !after) after = { bucket: block.bucket, i: k, row: rowOf(v, k) };
    }
    const pick = pickNearest(before?.row, after?.row, t);
    if (!pick) return undefined;
    const at = pick === before?.row ? before : after!;
    const [id, depth] = await Promise.all([
      m.id_exceptions > 0 ? this.sql<{ id: number }[]>`SELECT id FROM snapshot_ids WHERE market = ${m.id} AND t = ${pick[0]}`.then((r) => r[0]?.id) : undefined,
      includeOrderbook ? this.booksAt(m.id, at.bucket, at.i) : undefined,
    ]);
    return nearestRecord(m, pick, id, depth);
  }

  private async booksAt(market: number, bucket: number, i: number): Promise<[string, string] | undefined> {
    const [block] = await selectBlocks(this.sql, market, bucket, bucket, true);
    if (!block?.books) return undefined;
    let found: [string, string] | undefined;
    readBooks(block.books, new BlockVals(block.vals), i, i + 1, (_, b) => (found = booksText(b)));
    return found;
  }
}

/** A bucket number as an int4 parameter (offsets far outside any market ask for none). */
function clampInt(v: number): number {
  return Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, v));
}

function rowOf(v: BlockVals, i: number): RawSnapshotRow {
  return [v.t(i), v.price(i), v.up(i), v.down(i)];
}

/** Rows [a, b) of a block as raw rows (with both books' text, or nulls, when asked). */
function collect({ block, vals }: Held, a: number, b: number, books: boolean, rows: RawSnapshotRow[]): void {
  const base = rows.length;
  for (let i = a; i < b; i++) rows.push(books ? [vals.t(i), vals.price(i), vals.up(i), vals.down(i), null, null] : rowOf(vals, i));
  if (!books || !block.books) return;
  readBooks(block.books, vals, a, b, (i, stored: StoredBooks) => {
    const row = rows[base + i - a]!;
    [row[4], row[5]] = booksText(stored);
  });
}
