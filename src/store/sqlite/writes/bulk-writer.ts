// The write side seed and import use: markets, snapshots and orderbooks in bulk inside one
// transaction, then the summaries and dense blocks that derive from the rows.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { MARKET_DETAIL_FIELDS, SNAPSHOT_INTERVAL_MS } from '../../../domain/market.js';
import { type BookPair } from '../../core/book-codec.js';
import { parsePair } from '../../core/book-text.js';
import { compactBooks, type CompactOptions, type CompactProgress } from '../books/book-compaction.js';
import { BookPacker, PACKED_DOWN } from '../books/book-packer.js';
import { BookReader } from '../books/book-reader.js';
import type { DataVersion } from '../data-version.js';
import { BlockRuns, type BlockScan, type DenseBlocks } from '../dense-blocks.js';
import { type MarketRow } from '../../core/market-row.js';
import { marketColumns } from '../reads/market-columns.js';
import { fromScaled, toScaled } from '../../core/price-scale.js';
import { SnapshotBatchWriter } from './snapshot-batch.js';
import { SourceIds } from './source-ids.js';
import { RealdataRecords } from './realdata-records.js';
import type { RawSnapshotRow } from '../../core/snapshot-json.js';
import { prepareDenseColumns, type DenseColumns } from '../reads/snapshot-reads.js';
import { SyntheticWorldRecords } from './synthetic-world.js';
import type { MarketWrite, TableCounts } from '../../core/write-records.js';
import type { MarketRef, RecordWrites } from '../../record-writes.js';
import type { BulkWrites } from '../../bulk-store.js';

export type { MarketWrite, TableCounts };

export type { MarketRef };

// Prepared on first write: a read-only connection to a database from before the details
// migration could not prepare them.
function prepareMarketWrites(db: Database.Database): { insert: Statement; update: Statement } {
  return {
    insert: db.prepare(
      `INSERT INTO markets (market_id, coin, market_type, start_time, end_time, price_start, price_end, winner,
       ${MARKET_DETAIL_FIELDS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${MARKET_DETAIL_FIELDS.map(() => '?').join(', ')})`,
    ),
    update: db.prepare(
      `UPDATE markets SET price_start = coalesce(?, price_start), price_end = coalesce(?, price_end),
       winner = coalesce(?, winner), ${MARKET_DETAIL_FIELDS.map((c) => `${c} = coalesce(?, ${c})`).join(', ')} WHERE id = ?`,
    ),
  };
}

/** Use in seed and import (and nowhere the server reads): bulk writes over one SQLite connection. */
export class BulkWriter implements BulkWrites, RecordWrites {
  /** The synthetic world (seed, progress, owned markets), written in the same transactions. */
  readonly world: SyntheticWorldRecords;
  /** Packs orderbooks against the market's previous one; the world's prune detaches through it. */
  readonly books: BookPacker;
  private readonly marketRowById: Statement;
  private readonly marketRefById: Statement;
  private marketWrites: { insert: Statement; update: Statement } | undefined;
  private realdataRecords: RealdataRecords | undefined;
  private realSource: Statement | undefined;
  private readonly refreshMarket: Statement;
  private readonly setSummary: Statement;
  private readonly insertOne: Statement;
  private readonly insertBook: Statement;
  private readonly snapshotStats: Statement;
  private readonly firstSnapshot: Statement;
  private readonly lastSnapshot: Statement;
  private readonly dense: DenseColumns;
  private readonly tableCounts: Statement;
  private readonly beginStmt: Statement;
  private readonly commitStmt: Statement;
  private readonly rollbackStmt: Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly blocks: DenseBlocks,
    private readonly version: DataVersion,
  ) {
    const edge = (order: 'ASC' | 'DESC') =>
      db.prepare(`SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? ORDER BY t ${order} LIMIT 1`).raw(true);
    this.marketRowById = db.prepare(`SELECT ${marketColumns(db)} FROM markets WHERE id = ?`);
    this.marketRefById = db.prepare('SELECT id, start_time, end_time FROM markets WHERE market_id = ?');
    this.refreshMarket = db.prepare(
      'UPDATE markets SET snapshot_count = ?, dense = ?, price_start = ?, price_end = ?, winner = ? WHERE id = ?',
    );
    this.setSummary = db.prepare('UPDATE markets SET snapshot_count = ?, dense = ? WHERE id = ?');
    this.insertOne = db.prepare(
      'INSERT OR IGNORE INTO snapshots (market, t, price, price_up, price_down) VALUES (?, ?, ?, ?, ?)',
    );
    this.insertBook = db.prepare('INSERT OR IGNORE INTO orderbooks (market, t, up, down) VALUES (?, ?, ?, ?)');
    this.snapshotStats = db.prepare(
      `SELECT count(*) AS n, min(t) AS lo, max(t) AS hi, sum(t % ${SNAPSHOT_INTERVAL_MS} != 0) AS off
       FROM snapshots WHERE market = ?`,
    );
    this.firstSnapshot = edge('ASC');
    this.lastSnapshot = edge('DESC');
    this.dense = prepareDenseColumns(db);
    this.tableCounts = db.prepare(
      `SELECT (SELECT count(*) FROM markets) AS markets, (SELECT count(*) FROM snapshots) AS snapshots,
              (SELECT count(*) FROM orderbooks) AS orderbooks, (SELECT count(*) FROM accounts) AS accounts,
              (SELECT count(*) FROM api_keys) AS keys`,
    );
    this.beginStmt = db.prepare('BEGIN IMMEDIATE');
    this.commitStmt = db.prepare('COMMIT');
    this.rollbackStmt = db.prepare('ROLLBACK');
    this.books = new BookPacker(db, new BookReader(db));
    this.world = new SyntheticWorldRecords(db, this.books);
  }

  /** Runs fn in one transaction (synchronous); rolls back if it throws. */
  transaction<T>(fn: () => T): T {
    // IMMEDIATE takes the write lock first: a deferred transaction that reads and then writes
    // fails at once with "database is locked" when another process committed in between (WAL).
    try {
      return this.db.transaction(fn).immediate();
    } catch (err) {
      this.books.forget();
      throw err;
    }
  }

  /**
   * Like transaction, but fails at once with SQLITE_BUSY instead of waiting for another process's
   * write lock: for writers on the server's event loop, which must never stall requests.
   */
  transactionNoWait<T>(fn: () => T): T {
    const before = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    try {
      return this.transaction(fn);
    } finally {
      this.db.pragma(`busy_timeout = ${before}`);
    }
  }

  /** For writers that await between rows (import streams a file): BEGIN now, then commit or roll back. */
  begin(): void {
    this.beginStmt.run();
  }

  /** Ends what begin() started; `dataChanged` false (paper accounts) leaves the read caches valid. */
  commit(dataChanged = true): void {
    this.commitStmt.run();
    if (dataChanged) this.version.bump();
  }

  /** Undoes everything since begin(); the database is exactly as before. */
  rollback(): void {
    if (this.db.inTransaction) this.rollbackStmt.run();
    this.books.forget();
  }

  /** Insert a market, or fill its metadata; fields given as null keep what is stored. */
  upsertMarket(m: MarketWrite): { ref: MarketRef; created: boolean } {
    const existing = this.marketRef(m.marketId);
    const writes = (this.marketWrites ??= prepareMarketWrites(this.db));
    const details = MARKET_DETAIL_FIELDS.map((c) => m.details?.[c] ?? null);
    if (existing) {
      writes.update.run(m.priceStart, m.priceEnd, m.winner, ...details, existing.rowid);
      return { ref: existing, created: false };
    }
    const info = writes.insert.run(m.marketId, m.coin, m.marketType, m.startTime, m.endTime, m.priceStart, m.priceEnd, m.winner, ...details);
    this.version.bump();
    return { ref: { rowid: Number(info.lastInsertRowid), startTime: m.startTime, endTime: m.endTime }, created: true };
  }

  /** The market's row and bounds, or undefined when it is not stored. */
  marketRef(marketId: string): MarketRef | undefined {
    const r = this.marketRefById.get(marketId) as { id: number; start_time: number; end_time: number } | undefined;
    return r ? { rowid: r.id, startTime: r.start_time, endTime: r.end_time } : undefined;
  }

  /** What a real-data import keeps beside the rows (prepared on first use: migration 12's tables). */
  get realdata(): RealdataRecords {
    return (this.realdataRecords ??= new RealdataRecords(this.db));
  }

  /** Stores one snapshot (values as decimals, t = time - start_time); false when it was already stored. */
  insertSnapshot(rowid: number, t: number, price: number, priceUp: number, priceDown: number): boolean {
    return this.insertOne.run(rowid, t, toScaled(price), toScaled(priceUp), toScaled(priceDown)).changes > 0;
  }

  /** A buffered writer for many snapshots (scaled values) inside one transaction; flush() before commit. */
  snapshotWriter(): SnapshotBatchWriter {
    return new SnapshotBatchWriter(this.db, new BlockRuns(this.blocks, this.scanBlock));
  }

  /** Keeps the snapshot ids a source gives (import, pull) inside one transaction; finish() before commit. */
  sourceIds(): SourceIds {
    return new SourceIds(this.db);
  }

  /**
   * Stores one snapshot's depth, given as the JSON text per side it is served as: packed when the
   * codec reproduces that text exactly, else as the text; false when it was already stored.
   */
  insertOrderbook(rowid: number, t: number, upJson: string, downJson: string): boolean {
    const pair = parsePair(upJson, downJson);
    if (pair) return this.insertOrderbookPair(rowid, t, pair);
    return this.insertBook.run(rowid, t, upJson, downJson).changes > 0;
  }

  /** Stores one snapshot's depth given as scaled levels (seed, live world); false when it was already stored. */
  insertOrderbookPair(rowid: number, t: number, pair: BookPair): boolean {
    if (this.insertBook.run(rowid, t, this.books.pack(rowid, t, pair), PACKED_DOWN).changes === 0) return false;
    this.books.stored(rowid, t, pair);
    return true;
  }

  /**
   * Recomputes what depends on a market's stored snapshots: snapshot_count, the dense flag, and
   * price_start / price_end / winner where they are still unknown (first snapshot; last snapshot
   * when the data reaches the final second of the market), and the market's blocks. Pass the
   * writer that added the rows (flushed) so only its markets' blocks are rebuilt, and cheaply;
   * without it every given market's blocks are rebuilt from its rows.
   */
  refreshMarkets(rowids: Iterable<number>, writer?: SnapshotBatchWriter): void {
    for (const id of rowids) {
      const s = this.snapshotStats.get(id) as { n: number; lo: number | null; hi: number | null; off: number | null };
      const m = this.marketRowById.get(id) as MarketRow | undefined;
      if (!m) continue;
      const n = s.n;
      const dense = n > 0 && s.lo === 0 && s.off === 0 && s.hi === (n - 1) * SNAPSHOT_INTERVAL_MS ? 1 : 0;
      let priceStart = m.price_start;
      let priceEnd = m.price_end;
      // A real market's edge prices come from its price source and its winner only from Gamma:
      // nothing is derived from its snapshots (REALDATA.md).
      const real = this.isRealMarket(id);
      if (n > 0 && priceStart === null && !real) {
        const first = this.firstSnapshot.get(id) as RawSnapshotRow;
        if (first[0] < 1000) priceStart = fromScaled(first[1]);
      }
      if (n > 0 && priceEnd === null && !real) {
        const last = this.lastSnapshot.get(id) as RawSnapshotRow;
        if (last[0] >= m.end_time - m.start_time - 1000) priceEnd = fromScaled(last[1]);
      }
      let winner = m.winner;
      if (winner === null && !real && priceStart !== null && priceEnd !== null) winner = priceEnd >= priceStart ? 'Up' : 'Down';
      this.refreshMarket.run(n, dense, priceStart, priceEnd, winner, id);
      if (!writer) this.blocks.sync(id, dense === 1, n, undefined, this.scanBlock);
    }
    if (writer) this.syncBlocks(writer);
    this.version.bump();
  }

  /**
   * Call after writer.flush() and after the markets' summaries are stored (refreshMarkets or
   * setMarketSummary), in the same transaction: makes the blocks of every market the writer added
   * rows to match those rows.
   */
  syncBlocks(writer: SnapshotBatchWriter): void {
    if (!writer.runs) return;
    for (const [id, run] of writer.runs.entries()) {
      const m = this.marketRowById.get(id) as MarketRow | undefined;
      if (!m) continue;
      // Nothing stored and nothing inserted: the blocks still describe the rows.
      if (run.stored === 0 && !writer.touched.has(id)) continue;
      this.blocks.sync(id, m.dense === 1, m.snapshot_count, run, this.scanBlock);
    }
    this.version.bump();
  }

  /** Builds every dense market's blocks from its rows (one ordered read of them), in one transaction. */
  rebuildBlocks(): void {
    this.transaction(() => {
      const dense = this.db.prepare('SELECT id, snapshot_count FROM markets WHERE dense = 1').raw(true).all() as [number, number][];
      for (const [id, n] of dense) this.blocks.sync(id, true, n, undefined, this.scanBlock);
    });
    this.version.bump();
  }

  /** Writes one market's computed summary directly (seed knows it already; saves re-reading rows). */
  setMarketSummary(rowid: number, snapshotCount: number, dense: boolean): void {
    this.setSummary.run(snapshotCount, dense ? 1 : 0, rowid);
  }

  /** Packs the orderbook rows stored as JSON text, in place, one transaction per batch (serve compact-books). */
  compactBooks(opts: CompactOptions = {}): CompactProgress {
    const done = compactBooks(this.db, opts);
    this.version.bump();
    return done;
  }

  /** Rewrites the file without its free pages (after compactBooks): SQLite's VACUUM, needs room for a copy. */
  vacuum(): void {
    this.db.exec('VACUUM');
  }

  /** Counts for reports and tests. */
  counts(): TableCounts {
    return this.tableCounts.get() as TableCounts;
  }

  private isRealMarket(rowid: number): boolean {
    this.realSource ??= this.db.prepare('SELECT price_source FROM markets WHERE id = ?').pluck();
    return this.realSource.get(rowid) != null;
  }

  /** Rows [lo, hi) of a dense market as block values, read back from the table. */
  private readonly scanBlock: BlockScan = (market, lo, hi) => {
    const prices = this.dense.prices.all(market, lo, hi) as number[];
    const sides = this.dense.sides.all(market, lo, hi) as number[];
    const n = (hi - lo) / SNAPSHOT_INTERVAL_MS;
    if (prices.length !== n || sides.length !== n) return undefined;
    for (let i = 0; i < n; i++) if (prices[i]! >>> 0 !== prices[i] || sides[i]! < 0) return undefined;
    return { prices: Uint32Array.from(prices), sides: Uint32Array.from(sides) };
  };
}
