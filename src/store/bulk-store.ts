// The port to a store's bulk writer: what seed, import (and PostgreSQL's staging file), live and
// compact-books need beyond the Store port. Only an SQLite file offers it (`directBulkWrite`);
// SqliteStore implements it, and the CLI reaches it through these types, never the SQLite class.
import type { Coin, MarketType } from '../domain/market.js';
import type { BookPair } from './core/book-codec.js';
import type { MarketWrite, TableCounts } from './core/write-records.js';
import type { MirrorStore, OriginSummary } from './mirror-store.js';
import type { MarketRef, RealdataWrites, RecordRows, RecordWrites } from './record-writes.js';

/** Rows per transaction of compact-books unless told: a few MB of text, well under a second. */
export const COMPACT_BATCH_ROWS = 20_000;

/** Where a compaction run stands, after each batch. */
export interface CompactProgress {
  /** Text rows looked at so far, and how many there were at the start. */
  done: number;
  total: number;
  /** Of those, packed; and kept as text (the codec does not reproduce them). */
  packed: number;
  kept: number;
}

/** Options of compactBooks. */
export interface CompactOptions {
  batchRows?: number;
  onProgress?: (p: CompactProgress) => void;
}

/** The synthetic world's parameters and progress: `through` is the clock its data has been written up to. */
export interface WorldState {
  seed: number;
  orderbookMs: number;
  through: number;
}

/** A market the synthetic world owns, as the live world needs it. */
export interface OwnedMarket {
  rowid: number;
  coin: Coin;
  marketType: MarketType;
  startTime: number;
  endTime: number;
  priceEnd: number | null;
  snapshotCount: number;
  dense: boolean;
}

/** The synthetic world's records (seed, serve --live; import releases markets from it). */
export interface WorldRecords {
  state(): WorldState | undefined;
  save(state: WorldState): void;
  setThrough(through: number): void;
  own(rowid: number): void;
  release(rowids: Iterable<number>): void;
  ownedOverlapping(from: number, to: number): OwnedMarket[];
  lastSnapshotOffset(rowid: number): number | undefined;
  /** Drops the market's books before offset beforeT; returns how many. */
  pruneOrderbooks(rowid: number, beforeT: number): number;
}

/** A bulk batch's snapshot rows, written synchronously. */
export interface SnapshotRows extends RecordRows {
  flush(): void;
  /** Rows stored so far. */
  readonly added: number;
  /** Markets that received new rows. */
  readonly touched: ReadonlySet<number>;
  /** The dense block cache following the rows, if any: resume(market, k) continues after a dense market's k stored rows. */
  readonly runs?: { resume(market: number, k: number): void };
}

/** The source snapshot ids kept while a batch writes rows; finish() before commit. */
export interface SourceIdNotes {
  note(market: number, t: number, id: number): void;
  finish(): void;
}

/** The synchronous bulk writer of one SQLite connection: everything RecordWrites does, and seed's, live's and import's own steps. */
export interface BulkWrites extends RecordWrites {
  readonly world: WorldRecords;
  readonly realdata: RealdataWrites;
  /** fn in one transaction (synchronous); rolled back if it throws. */
  transaction<T>(fn: () => T): T;
  /** As transaction, failing at once instead of waiting for another process's write lock. */
  transactionNoWait<T>(fn: () => T): T;
  begin(): void;
  /** `dataChanged` false leaves the read caches valid. */
  commit(dataChanged?: boolean): void;
  rollback(): void;
  upsertMarket(m: MarketWrite): { ref: MarketRef; created: boolean };
  marketRef(marketId: string): MarketRef | undefined;
  insertSnapshot(rowid: number, t: number, price: number, priceUp: number, priceDown: number): boolean;
  snapshotWriter(): SnapshotRows;
  sourceIds(): SourceIdNotes;
  /** One snapshot's depth as the JSON text per side it is served as; false when already stored. */
  insertOrderbook(rowid: number, t: number, upJson: string, downJson: string): boolean;
  insertOrderbookPair(rowid: number, t: number, pair: BookPair): boolean;
  refreshMarkets(rowids: Iterable<number>, writer?: SnapshotRows): void;
  /** After writer.flush() and the summaries: the blocks of the markets the writer added rows to. */
  syncBlocks(writer: SnapshotRows): void;
  rebuildBlocks(): void;
  setMarketSummary(rowid: number, snapshotCount: number, dense: boolean): void;
  compactBooks(opts?: CompactOptions): CompactProgress;
  vacuum(): void;
  counts(): TableCounts;
}

/** A store written through its bulk writer (one transaction per load), with the mirror ports. */
export interface BulkLoadStore extends MirrorStore {
  /** The writer seed, import, live and compact-books write through. */
  readonly bulk: BulkWrites;
  /** Where pulled markets came from (serve's startup notes). */
  origins(): OriginSummary[];
  /** Closes at once (the bulk writer's loads are synchronous). */
  closeSync(): void;
}
