// The storage interface the server's handlers use. SQLite implements it (sqlite-store.ts);
// another backend (PostgreSQL) would implement the same without touching routes.
import type { TimeStyle } from '../domain/dialect-records.js';
import type { Coin, Market, MarketStatus, MarketType, ServedMarket, Snapshot } from '../domain/market.js';
import type { DataWindow, PlanName } from '../domain/plans.js';

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

/** How a page prints each snapshot: the key of the coin price and the style of `time`. */
export interface SnapshotFormat {
  /** `price` (v1) or the coin's own (`btc_price`). */
  priceKey: string;
  times: TimeStyle;
}

/** The contract's v1 snapshot: `price` and epoch ms. */
export const V1_SNAPSHOT_FORMAT: SnapshotFormat = { priceKey: 'price', times: 'ms' };

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

export interface Account {
  id: number;
  name: string;
  plan: PlanName;
  /** Epoch ms when the trial ends; null for a paid account. */
  trialEndsAt: number | null;
  /** Per-account limits (enterprise); null = the plan's. */
  requestsPerMinute: number | null;
  burstPerSecond: number | null;
  createdAt: number;
}

export interface ApiKeyRecord {
  id: number;
  accountId: number;
  /** A short non-secret prefix for display, e.g. `msk_3f9a`. */
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
  expiresAt: number | null;
  /** sha256 hex of the key, when the backend returns it: the server re-checks it in constant time. */
  keyHash?: string;
}

export interface Store {
  /** Markets matching the query, newest start_time first (ties: market_id descending), and how many match. */
  listMarkets(q: MarketQuery): { markets: ServedMarket[]; total: number };
  /** One market by id, status computed at `now`; undefined when unknown. */
  getMarket(id: string, now: number): ServedMarket | undefined;
  /** 0 for the newest market of its coin and type, 1 for the next, ... (for the data window). */
  marketRank(market: Pick<Market, 'coin' | 'market_type' | 'start_time'>): number;
  /** A page of a market's snapshots, oldest first, already serialised as a JSON array; `total` counts the whole range. */
  snapshotPageJson(marketId: string, q: SnapshotQuery): { json: string; count: number; total: number };
  /** The snapshot nearest `ts` (earlier wins a tie), or undefined when the market has none; depth when asked and stored. */
  nearestSnapshot(marketId: string, ts: number, includeOrderbook?: boolean): Snapshot | undefined;

  /** Accounts and keys. Keys are stored only as hashes. */
  getAccount(name: string): Account | undefined;
  getAccountById(id: number): Account | undefined;
  createAccount(a: Omit<Account, 'id'>): Account;
  createKey(accountId: number, keyHash: string, prefix: string, now: number): ApiKeyRecord;
  findKeyByHash(keyHash: string): ApiKeyRecord | undefined;
  listKeys(): (ApiKeyRecord & { account: Account })[];
  revokeKey(id: number, now: number): boolean;
  countActiveKeys(accountId: number, now: number): number;

  /** Runs fn as one atomic write (all or nothing, no other writer in between), e.g. check-then-create. */
  transaction<T>(fn: () => T): T;

  close(): void;
}
