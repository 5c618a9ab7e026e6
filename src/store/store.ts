// The storage interface the server's handlers use. SQLite implements it (sqlite-store.ts);
// another backend (PostgreSQL) would implement the same without touching routes.
import type { Coin, Market, MarketStatus, MarketType, ServedMarket, Snapshot } from '../domain/market.js';
import type { DataWindow } from '../domain/plans.js';
import { type SnapshotFormat } from '../domain/snapshot-format.js';
import type { AccountAuthStore } from './account-auth-store.js';
import type { PaperLedger } from './paper-ledger.js';
import type { Account, ApiKeyRecord } from './records.js';

export type { Account, ApiKeyRecord } from './records.js';

export { V1_SNAPSHOT_FORMAT, type SnapshotFormat } from '../domain/snapshot-format.js';

export interface MarketQuery {
  coin?: Coin;
  marketType?: MarketType;
  status?: MarketStatus;
  /** Inclusive lower / exclusive upper bound on start_time, epoch ms. */
  startFrom?: number;
  startBefore?: number;
  limit: number;
  offset: number;
  /** Builder window: only the `window[type]` newest markets per coin and type are visible. null = all. */
  window: DataWindow;
  /** The clock, to tell active from resolved. */
  now: number;
}

export interface SnapshotQuery {
  limit: number;
  offset: number;
  /** Inclusive lower / exclusive upper bound on time, epoch ms. */
  from?: number;
  before?: number;
  includeOrderbook: boolean;
  /** Default V1_SNAPSHOT_FORMAT. */
  format?: SnapshotFormat;
}

/** A market and a page of its snapshots, read together (Store.marketSnapshotPage). */
export interface MarketPage {
  market: ServedMarket;
  page: { json: string; count: number; total: number };
}

/**
 * The storage interface the server, the dashboard and the `serve` subcommands use. Asynchronous so
 * a network database fits: SQLite (sqlite/sqlite-store.ts) answers at once, PostgreSQL
 * (postgres/pg-store.ts) over its pool. A store that cannot reach its database throws
 * StoreUnavailableError; the server answers 503 and goes on.
 */
export interface Store {
  /** Markets matching the query, newest start_time first (ties: market_id descending), and how many match. */
  listMarkets(q: MarketQuery): Promise<{ markets: ServedMarket[]; total: number }>;
  /** One market by id, status computed at `now`; undefined when unknown. */
  getMarket(id: string, now: number): Promise<ServedMarket | undefined>;
  /** 0 for the newest market of its coin and type, 1 for the next, ... (for the data window). */
  marketRank(market: Pick<Market, 'coin' | 'market_type' | 'start_time'>): Promise<number>;
  /** A page of a market's snapshots, oldest first, already serialised as a JSON array; `total` counts the whole range. */
  snapshotPageJson(marketId: string, q: SnapshotQuery): Promise<{ json: string; count: number; total: number }>;
  /**
   * getMarket, then snapshotPageJson, where reading both at once saves a round trip (PostgreSQL):
   * `admit` sees the market before its page is written, may throw (nothing is answered then) and
   * names the page's format. Undefined when no market has this id. Absent: call the two.
   */
  marketSnapshotPage?(marketId: string, now: number, q: SnapshotQuery, admit: (market: ServedMarket) => Promise<SnapshotFormat | undefined>): Promise<MarketPage | undefined>;
  /** The snapshot nearest `ts` (earlier wins a tie), or undefined when the market has none; depth when asked and stored. */
  nearestSnapshot(marketId: string, ts: number, includeOrderbook?: boolean): Promise<Snapshot | undefined>;

  /** Accounts and keys. Keys are stored only as hashes. The account of this name, compared without regard to case (names are unique that way). */
  getAccount(name: string): Promise<Account | undefined>;
  getAccountById(id: number): Promise<Account | undefined>;
  createAccount(a: Omit<Account, 'id'>): Promise<Account>;
  createKey(accountId: number, keyHash: string, prefix: string, now: number, name?: string | null): Promise<ApiKeyRecord>;
  /** Records a use of key `id` at `now` unless one was recorded less than `minIntervalMs` before; true when written. */
  touchKey(id: number, now: number, minIntervalMs: number): Promise<boolean>;
  findKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** The key of this hash with its account, read together (one round trip where the database is remote); undefined when either is missing. */
  findKeyWithAccount(keyHash: string): Promise<(ApiKeyRecord & { account: Account }) | undefined>;
  listKeys(): Promise<(ApiKeyRecord & { account: Account })[]>;
  revokeKey(id: number, now: number): Promise<boolean>;
  countActiveKeys(accountId: number, now: number): Promise<number>;

  /** The dashboard's passwords and sessions, in the same database (sign-up writes both in one transaction). */
  readonly accountAuth: AccountAuthStore;

  /** serve's paper accounts, in the same database; absent on a store that keeps none (the tests' memory store). */
  readonly paper?: PaperLedger;

  /**
   * Runs fn as one atomic write (all or nothing, no other writer in between), e.g. check-then-create.
   * fn must use `tx` (and `tx.accountAuth`), not the store, and await nothing but them (SQLite runs it on its one
   * connection without yielding to other requests; PostgreSQL on one pooled connection).
   */
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;

  /**
   * How far a recorder writing into this store from another process (`msnap record`) has decided
   * its snapshots: every snapshot before it is committed. Undefined when nothing records into it;
   * absent on stores a recorder cannot write (it writes SQLite).
   */
  recordedThrough?(): Promise<number | undefined>;

  /** Resolves when the database answers; rejects with StoreUnavailableError when not (health uses it). Absent: always reachable. */
  ping?(): Promise<void>;

  close(): Promise<void>;
}

/** Thrown when the store's database cannot be reached (a PostgreSQL restart): the server answers 503 and retries on the next request. */
export class StoreUnavailableError extends Error {
  constructor(message: string, readonly retryAfterSec = 1) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}
