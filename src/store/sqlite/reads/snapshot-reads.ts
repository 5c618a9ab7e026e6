// Snapshot reads for the server: a page as ready JSON text (dense markets from their blocks or
// two plucked columns, others from the rows) and the snapshot nearest a time.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { Snapshot } from '../../../domain/market.js';
import type { SnapshotQuery } from '../../store.js';
import { BookReader, type StoredBook } from '../books/book-reader.js';
import { PageBooks, type PageBookColumns } from '../../core/book-page-bytes.js';
import { PageBookRange } from '../books/book-range.js';
import type { DenseBlocks } from '../dense-blocks.js';
import { SIDE_BITS, writeDensePage, writeDenseRows } from '../../core/dense-page-writer.js';
import { type MarketRow } from '../../core/market-row.js';
import { marketColumns } from './market-columns.js';
import { densePageRange, nearestRecord, offsetRange, pickNearest } from '../../core/page-plan.js';
import { PRICE_SCALE } from '../../core/price-scale.js';
import { patternOf, type PageIds } from '../../core/snapshot-ids.js';
import { writeRawRows } from '../writes/raw-rows-writer.js';
import type { RowLayout } from '../../../domain/row-layout.js';
import { snapshotRowsToJson, writeSnapshotRows, type RawSnapshotRow } from '../../core/snapshot-json.js';
import { denseToSnapshots, packable, rowsToSnapshots } from './snapshot-objects.js';

interface DensePage {
  kind: 'dense';
  /** The page's stored orderbooks in t order, when it was read with them (served JSON only). */
  books?: PageBookColumns;
  m: MarketRow;
  ids: PageIds;
  total: number;
  firstT: number;
  prices: ArrayLike<number>;
  sides: ArrayLike<number>;
  /** The offsets [from, to) the page covers. */
  range: [number, number];
}

/** One page of a market's snapshots before it is written out as JSON or records. */
type PageSource =
  | { kind: 'empty'; total: number }
  | DensePage
  | { kind: 'rows'; m: MarketRow; ids: PageIds; total: number; rows: RawSnapshotRow[] };

/** A dense market's rows [lo, hi) as two plucked columns: prices, and both probabilities packed. */
export interface DenseColumns {
  /** Scaled prices, ordered by t. Bind (market, lo, hi). */
  prices: Statement;
  /** price_up << SIDE_BITS | price_down, or -1 where a value does not fit. Bind (market, lo, hi). */
  sides: Statement;
}

/** Use wherever a dense market's rows are read as block values (pages, block rebuilds). */
export function prepareDenseColumns(db: Database.Database): DenseColumns {
  return {
    prices: db.prepare('SELECT price FROM snapshots WHERE market = ? AND t >= ? AND t < ? ORDER BY t').pluck(),
    sides: db
      .prepare(
        `SELECT CASE WHEN price_up BETWEEN 0 AND ${PRICE_SCALE} AND price_down BETWEEN 0 AND ${PRICE_SCALE}
         THEN price_up * ${1 << SIDE_BITS} + price_down ELSE -1 END
         FROM snapshots WHERE market = ? AND t >= ? AND t < ? ORDER BY t`,
      )
      .pluck(),
  };
}

/** Use for the Store's snapshot methods over one SQLite connection. */
export class SnapshotReads {
  private readonly marketById: Statement;
  private readonly pageRange: Statement;
  private readonly pageRangeOb: Statement;
  private readonly dense: DenseColumns;
  private readonly countRange: Statement;
  private readonly atOrBefore: Statement;
  private readonly after: Statement;
  // Prepared on first use: only markets with stored ids need them, and a read-only database from
  // before the source-ids migration has no snapshot_ids table.
  private exceptionStmts: { range: Statement; at: Statement } | undefined;
  private readonly orderbookAt: Statement;
  private readonly books: BookReader;
  private readonly bookRange: PageBookRange;

  constructor(
    private readonly db: Database.Database,
    private readonly blocks: DenseBlocks,
  ) {
    const pageSql = (ob: boolean) =>
      ob
        ? `SELECT s.t, s.price, s.price_up, s.price_down, o.up, o.down FROM snapshots s
           LEFT JOIN orderbooks o ON o.market = s.market AND o.t = s.t
           WHERE s.market = ? AND s.t >= ? AND s.t < ? ORDER BY s.t LIMIT ? OFFSET ?`
        : `SELECT t, price, price_up, price_down FROM snapshots
           WHERE market = ? AND t >= ? AND t < ? ORDER BY t LIMIT ? OFFSET ?`;
    this.marketById = db.prepare(`SELECT ${marketColumns(db)} FROM markets WHERE market_id = ?`);
    this.orderbookAt = db.prepare('SELECT up, down FROM orderbooks WHERE market = ? AND t = ?').raw(true);
    this.books = new BookReader(db);
    // A packed row's down is empty: not read, so no Buffer is made for it.
    this.bookRange = new PageBookRange(db);
    this.pageRange = db.prepare(pageSql(false)).raw(true);
    this.pageRangeOb = db.prepare(pageSql(true)).raw(true);
    this.dense = prepareDenseColumns(db);
    this.countRange = db.prepare('SELECT count(*) FROM snapshots WHERE market = ? AND t >= ? AND t < ?').pluck();
    this.atOrBefore = db
      .prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? AND t <= ? ORDER BY t DESC LIMIT 1')
      .raw(true);
    this.after = db
      .prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? AND t > ? ORDER BY t ASC LIMIT 1')
      .raw(true);
  }

  /** See Store.snapshotPageJson. */
  snapshotPageJson(marketId: string, q: SnapshotQuery): { json: string; count: number; total: number } {
    const page = this.page(marketId, q, true);
    if (page.kind === 'empty') return { json: '[]', count: 0, total: page.total };
    const { m, ids } = page;
    if (page.kind === 'dense') {
      const books = page.books && new PageBooks(this.books, m.id, page.firstT, page.books);
      const json = writeDensePage(page.prices, page.sides, page.firstT, ids, m.market_id, m.start_time, q.format, books);
      if (json !== undefined) return { json, count: page.prices.length, total: page.total };
    }
    const rows = page.kind === 'rows' ? page.rows : this.rowsOf(page, q);
    return { json: snapshotRowsToJson(rows, ids, m.market_id, m.start_time, q.includeOrderbook, q.format), count: rows.length, total: page.total };
  }

  /**
   * The same page as snapshotPageJson, written in `layout` (a local export's CSV or NDJSON lines,
   * straight from the stored values: no records, no JSON in between); a dense page as bytes.
   */
  snapshotPageText(marketId: string, q: SnapshotQuery, layout: RowLayout): { text: string | Uint8Array; count: number; total: number } {
    const page = this.page(marketId, q);
    if (page.kind === 'empty') return { text: layout.pageOpen + layout.pageClose, count: 0, total: page.total };
    const { m, ids } = page;
    const dense = page.kind === 'dense' ? writeDenseRows({ ...page, ids, marketId: m.market_id, startTime: m.start_time }, layout) : undefined;
    if (dense !== undefined) return { text: dense, count: page.kind === 'dense' ? page.prices.length : 0, total: page.total };
    const rows = page.kind === 'rows' ? page.rows : this.rowsOf(page, q);
    const bytes = q.includeOrderbook ? undefined : writeRawRows(rows, ids, m.market_id, m.start_time, layout);
    return { text: bytes ?? writeSnapshotRows(rows, ids, m.market_id, m.start_time, layout, q.includeOrderbook), count: rows.length, total: page.total };
  }

  /** The same page as snapshotPageJson, as the contract's records (local reads: no JSON in between). */
  snapshotPage(marketId: string, q: SnapshotQuery): { snapshots: Snapshot[]; total: number } {
    const page = this.page(marketId, q);
    if (page.kind === 'empty') return { snapshots: [], total: page.total };
    const { m, ids } = page;
    if (page.kind === 'dense') {
      return { snapshots: denseToSnapshots(page.prices, page.sides, page.firstT, ids, m.market_id, m.start_time), total: page.total };
    }
    return { snapshots: rowsToSnapshots(page.rows, ids, m.market_id, m.start_time, q.includeOrderbook), total: page.total };
  }

  /**
   * Where a page's values come from: a dense market's blocks or two plucked columns (values only,
   * times follow from the grid), else the rows themselves.
   */
  private page(marketId: string, q: SnapshotQuery, denseBooks = false): PageSource {
    const m = this.marketById.get(marketId) as MarketRow | undefined;
    if (!m) return { kind: 'empty', total: 0 };
    const range = offsetRange(m, q);
    if (!range) return { kind: 'empty', total: 0 };
    const { lo, hi } = range;
    const stmt = q.includeOrderbook ? this.pageRangeOb : this.pageRange;
    const ids: PageIds = { pattern: patternOf(m) };
    if (m.id_exceptions > 0) ids.exceptions = this.exceptionsIn(m.id, lo, hi);
    if (m.dense === 1) {
      const { total, first, last, from, to } = densePageRange(m, range, q);
      if (last <= first) return { kind: 'empty', total };
      // A served page with orderbooks takes the dense path too: its books are written from their rows.
      if ((!q.includeOrderbook || denseBooks) && !ids.exceptions) {
        // Each row's t follows from its position, so it is not fetched. Stored rows are never
        // updated or deleted, so the two reads agree whenever both hold every row of the range
        // (a writer elsewhere may have changed the market since it was read: general path then).
        // The market's blocks hold the same values one or two BLOBs per page; without them (not
        // built yet, or a value they cannot pack), two plucked columns.
        const n = last - first;
        const books = q.includeOrderbook ? this.pageBooks(m.id, from, to) : undefined;
        const packed = q.includeOrderbook && !books ? undefined : this.blocks.read(m.id, first, last);
        if (packed && packable(packed.prices, packed.sides)) {
          return { kind: 'dense', m, ids, total, firstT: from, prices: packed.prices, sides: packed.sides, range: [from, to], books };
        }
        const prices = this.dense.prices.all(m.id, from, to) as number[];
        const sides = this.dense.sides.all(m.id, from, to) as number[];
        if ((books || !q.includeOrderbook) && prices.length === n && sides.length === n && packable(prices, sides)) {
          return { kind: 'dense', m, ids, total, firstT: from, prices, sides, range: [from, to], books };
        }
      }
      return { kind: 'rows', m, ids, total, rows: this.bookTexts(m.id, q, stmt.all(m.id, from, to, q.limit, 0) as RawSnapshotRow[]) };
    }
    const total =
      q.from === undefined && q.before === undefined ? m.snapshot_count : (this.countRange.get(m.id, lo, hi) as number);
    return { kind: 'rows', m, ids, total, rows: this.bookTexts(m.id, q, stmt.all(m.id, lo, hi, q.limit, q.offset) as RawSnapshotRow[]) };
  }

  /** A dense page the page writer declined after all: its rows. */
  private rowsOf(page: DensePage, q: SnapshotQuery): RawSnapshotRow[] {
    const stmt = q.includeOrderbook ? this.pageRangeOb : this.pageRange;
    return this.bookTexts(page.m.id, q, stmt.all(page.m.id, page.range[0], page.range[1], page.prices.length, 0) as RawSnapshotRow[]);
  }

  /** A dense page's stored books as columns; undefined when a writer changed them between the reads. */
  private pageBooks(market: number, from: number, to: number): PageBookColumns | undefined {
    return this.bookRange.read(market, from, to);
  }

  /** Rows read with orderbooks get both sides' JSON text in place of packed pairs. */
  private bookTexts(market: number, q: SnapshotQuery, rows: RawSnapshotRow[]): RawSnapshotRow[] {
    if (!q.includeOrderbook) return rows;
    this.books.reset();
    for (const r of rows) {
      const up = r[4] as StoredBook | null | undefined;
      if (up != null && typeof up !== 'string') [r[4], r[5]] = this.books.texts(market, r[0], up, null);
    }
    return rows;
  }

  private exceptions(): { range: Statement; at: Statement } {
    return (this.exceptionStmts ??= {
      range: this.db.prepare('SELECT t, id FROM snapshot_ids WHERE market = ? AND t >= ? AND t < ?').raw(true),
      at: this.db.prepare('SELECT id FROM snapshot_ids WHERE market = ? AND t = ?').pluck(),
    });
  }

  private exceptionsIn(market: number, lo: number, hi: number): Map<number, number> | undefined {
    const rows = this.exceptions().range.all(market, lo, hi) as [number, number][];
    return rows.length === 0 ? undefined : new Map(rows);
  }

  /** See Store.nearestSnapshot. */
  nearestSnapshot(marketId: string, ts: number, includeOrderbook = false): Snapshot | undefined {
    const m = this.marketById.get(marketId) as MarketRow | undefined;
    if (!m || m.snapshot_count === 0) return undefined;
    const t = ts - m.start_time;
    const pick = pickNearest(this.atOrBefore.get(m.id, t) as RawSnapshotRow | undefined, this.after.get(m.id, t) as RawSnapshotRow | undefined, t);
    if (!pick) return undefined;
    const storedId = m.id_exceptions > 0 ? (this.exceptions().at.get(m.id, pick[0]) as number | undefined) : undefined;
    const stored = includeOrderbook ? (this.orderbookAt.get(m.id, pick[0]) as [StoredBook, StoredBook] | undefined) : undefined;
    if (stored) this.books.reset();
    const depth = stored && this.books.texts(m.id, pick[0], stored[0], stored[1]);
    return nearestRecord(m, pick, storedId, depth);
  }
}
