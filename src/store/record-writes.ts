// The port real data is written through (the Polymarket import, `msnap record`, serve --record, the
// raw files read back): markets, snapshots with their books and what the reconstruction keeps
// beside them, in batches that begin, commit or roll back as one. SQLite's BulkWriter implements it
// with synchronous calls, PostgreSQL's PgRecordWriter with awaited ones: callers await every call
// but the two per snapshot (add, insertOrderbookPair), which a backend buffers until flush.
import type { BookPair } from './core/book-codec.js';
import type { MarketWrite } from './core/write-records.js';

/** A value now (SQLite) or later (PostgreSQL): callers await it either way. */
export type Awaitable<T> = T | Promise<T>;

/** Where a market lives in the store, for writers converting times to offsets. */
export interface MarketRef {
  rowid: number;
  startTime: number;
  endTime: number;
}

/** A real market's provenance, as the import and the recorder write it. */
export interface RealMarketSource {
  slug: string;
  /** JSON text of the fee schedule, or null when the source gave none. */
  feeSchedule: string | null;
  priceSource: 'binance' | 'chainlink';
}

/** Snapshots of one batch (values scaled, see price-scale.ts); flush() before the markets are refreshed. */
export interface RecordRows {
  add(market: number, t: number, price: number, priceUp: number, priceDown: number): void;
  flush(): Awaitable<void>;
  /** Rows not stored because (market, t) already was. */
  readonly skipped: number;
}

/** What a real-data import or recording keeps beside the snapshots (read outside a batch, written inside one). */
export interface RealdataWrites {
  /** True when this archive hour (epoch ms) was already written for the market. */
  hasHour(marketId: string, hour: number): Awaitable<boolean>;
  addHour(marketId: string, hour: number): Awaitable<void>;
  /** The reconstruction state saved for the market, or undefined. */
  state(marketId: string): Awaitable<string | undefined>;
  saveState(marketId: string, state: string): Awaitable<void>;
  /** Marks a market as real: its slug, fee schedule and price source. */
  setSource(rowid: number, s: RealMarketSource): Awaitable<void>;
  /** Sets start and end prices and the winner as given (null included: a real winner is only ever Gamma's). */
  setOutcome(rowid: number, priceStart: number | null, priceEnd: number | null, winner: 'Up' | 'Down' | null): Awaitable<void>;
  /** Keeps one recorded price (units of 0.0001) of a coin at ts; a second one for the same time is ignored. */
  addPrice(coin: string, ts: number, price: number): Awaitable<void>;
  /** A coin's recorded prices from `from` (epoch ms) on, in time order. */
  prices(coin: string, from: number): Awaitable<[ts: number, price: number][]>;
  /** Records that a source was connected over [from, to) (extending the span begun at `from`). */
  coverSpan(source: string, from: number, to: number): Awaitable<void>;
  /** Markets of a price source that ended by `now` with no winner yet. */
  unresolved(priceSource: 'binance' | 'chainlink', now: number): Awaitable<{ marketId: string; slug: string; startTime: number }[]>;
}

/** Use for real data: one batch at a time, begin() … commit() (or rollback(), which undoes it all). */
export interface RecordWrites {
  readonly realdata: RealdataWrites;
  begin(): Awaitable<void>;
  commit(): Awaitable<void>;
  rollback(): Awaitable<void>;
  /** Insert a market, or fill its metadata; fields given as null keep what is stored. Inside a batch. */
  upsertMarket(m: MarketWrite): Awaitable<{ ref: MarketRef; created: boolean }>;
  /** The market's row and bounds, or undefined when it is not stored. */
  marketRef(marketId: string): Awaitable<MarketRef | undefined>;
  /** The batch's snapshot rows (one per batch). */
  snapshotWriter(): RecordRows;
  /** One snapshot's books as scaled levels, with the batch; false when they were already stored. */
  insertOrderbookPair(rowid: number, t: number, pair: BookPair): boolean;
  /** After writer.flush(): the markets' snapshot counts and dense flags (a real market's prices and winner stay as set). */
  refreshMarkets(rowids: Iterable<number>, writer?: RecordRows): Awaitable<void>;
}
