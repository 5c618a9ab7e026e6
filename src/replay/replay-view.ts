// A store seen at a replay clock's `now` (`serve --replay`): nothing after `now` exists. Every
// read goes through the backend's own bounded queries (start_time < now + 1 on market lists,
// time < now + 1 on snapshot pages), so it holds on every store (SQLite, PostgreSQL, the tests'
// memory store) without a backend knowing about replays. What those bounds cannot say is added
// here: the snapshot_count of an active market, the nearest snapshot when the nearest is still in
// the future, and the builder window, which counts only markets that have started.
import { COINS, type Market, type ServedMarket, type Snapshot } from '../domain/market.js';
import type { DataWindow } from '../domain/plans.js';
import type { AccountAuthStore } from '../store/account-auth-store.js';
import type { PaperLedger } from '../store/paper-ledger.js';
import type { Account, ApiKeyRecord, MarketQuery, SnapshotQuery, Store } from '../store/store.js';

type Series = Pick<Market, 'coin' | 'market_type'>;

/** Use for `serve --replay`: `store` as it stood at `now()` (the callers' own `now` arguments are ignored). */
export class ReplayView implements Store {
  readonly accountAuth: AccountAuthStore;
  /** Paper accounts are the caller's own writes, not history: the inner store's, unbounded. */
  readonly paper: PaperLedger | undefined;

  constructor(
    private readonly inner: Store,
    private readonly now: () => number,
  ) {
    this.accountAuth = inner.accountAuth;
    this.paper = inner.paper;
  }

  async listMarkets(q: MarketQuery): Promise<{ markets: ServedMarket[]; total: number }> {
    const now = this.now();
    const window = q.window === null ? null : await this.startedWindow(q.window, now, q.coin);
    const startBefore = Math.min(q.startBefore ?? Number.MAX_SAFE_INTEGER, now + 1);
    const { markets, total } = await this.inner.listMarkets({ ...q, window, startBefore, now });
    return { markets: await Promise.all(markets.map((m) => this.counted(m, now))), total };
  }

  async getMarket(id: string): Promise<ServedMarket | undefined> {
    const now = this.now();
    const m = await this.inner.getMarket(id, now);
    return m && m.start_time <= now ? this.counted(m, now) : undefined;
  }

  async marketRank(market: Pick<Market, 'coin' | 'market_type' | 'start_time'>): Promise<number> {
    return (await this.inner.marketRank(market)) - (await this.notStarted(market, this.now()));
  }

  snapshotPageJson(marketId: string, q: SnapshotQuery): Promise<{ json: string; count: number; total: number }> {
    return this.inner.snapshotPageJson(marketId, { ...q, before: Math.min(q.before ?? Number.MAX_SAFE_INTEGER, this.now() + 1) });
  }

  async nearestSnapshot(marketId: string, ts: number, includeOrderbook?: boolean): Promise<Snapshot | undefined> {
    const now = this.now();
    const near = await this.inner.nearestSnapshot(marketId, ts, includeOrderbook);
    if (!near || near.time <= now) return near;
    // The nearest is in the future, so none lies in [ts, now]: the answer is the last at or before both.
    const bound = Math.min(ts, now);
    const before = await this.inner.nearestSnapshot(marketId, bound, includeOrderbook);
    if (!before || before.time <= bound) return before;
    const visible = await this.inner.snapshotPageJson(marketId, { limit: 0, offset: 0, before: bound + 1, includeOrderbook: false });
    if (visible.total === 0) return undefined;
    const last = await this.inner.snapshotPageJson(marketId, { limit: 1, offset: visible.total - 1, before: bound + 1, includeOrderbook: false });
    const [row] = JSON.parse(last.json) as { time: number }[];
    return this.inner.nearestSnapshot(marketId, row!.time, includeOrderbook);
  }

  /**
   * The market as known at `now`: an active market's snapshots run past `now` in the store, so only
   * those at or before it count (snapshots lie in [start, end)); row times after `now` are not known
   * yet (resolution lands after the end; `updated_at` is at most `now`).
   */
  private async counted(m: ServedMarket, now: number): Promise<ServedMarket> {
    const known = { ...m, updated_at: m.updated_at === null ? null : Math.min(m.updated_at, now), resolved_at: m.resolved_at !== null && m.resolved_at > now ? null : m.resolved_at };
    if (m.end_time <= now || m.snapshot_count === 0) return known;
    const { total } = await this.inner.snapshotPageJson(m.market_id, { limit: 0, offset: 0, before: now + 1, includeOrderbook: false });
    return { ...known, snapshot_count: total };
  }

  /** How many markets of the series start after `now`: they are not in the window's count yet. */
  private async notStarted(series: Series, now: number): Promise<number> {
    const q: MarketQuery = { coin: series.coin, marketType: series.market_type, startFrom: now + 1, limit: 0, offset: 0, window: null, now };
    return (await this.inner.listMarkets(q)).total;
  }

  /**
   * The window over started markets: each cap grows by the markets not started yet, so the store's
   * cutoff (its cap-th newest) is the cap-th newest started one. One cap serves every coin of a
   * type: the smallest growth, so a coin with more future markets sees fewer, never one too many.
   */
  private async startedWindow(window: Exclude<DataWindow, null>, now: number, coin: MarketQuery['coin']): Promise<DataWindow> {
    const types = Object.keys(window) as (keyof typeof window)[];
    const coins = coin ? [coin] : COINS;
    const counts = await Promise.all(types.map((type) => Promise.all(coins.map((c) => this.notStarted({ coin: c, market_type: type }, now)))));
    const grown = { ...window };
    types.forEach((type, i) => (grown[type] = window[type] + Math.min(...counts[i]!)));
    return grown;
  }

  getAccount(name: string): Promise<Account | undefined> {
    return this.inner.getAccount(name);
  }
  getAccountById(id: number): Promise<Account | undefined> {
    return this.inner.getAccountById(id);
  }
  createAccount(a: Omit<Account, 'id'>): Promise<Account> {
    return this.inner.createAccount(a);
  }
  createKey(accountId: number, keyHash: string, prefix: string, now: number, name: string | null = null): Promise<ApiKeyRecord> {
    return this.inner.createKey(accountId, keyHash, prefix, now, name);
  }

  touchKey(id: number, now: number, minIntervalMs: number): Promise<boolean> {
    return this.inner.touchKey(id, now, minIntervalMs);
  }
  findKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.inner.findKeyByHash(keyHash);
  }
  listKeys(): Promise<(ApiKeyRecord & { account: Account })[]> {
    return this.inner.listKeys();
  }
  revokeKey(id: number, now: number): Promise<boolean> {
    return this.inner.revokeKey(id, now);
  }
  countActiveKeys(accountId: number, now: number): Promise<number> {
    return this.inner.countActiveKeys(accountId, now);
  }
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    return this.inner.transaction((tx) => fn(new ReplayView(tx, this.now)));
  }
  ping(): Promise<void> {
    return this.inner.ping?.() ?? Promise.resolve();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
