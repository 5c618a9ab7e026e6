// An in-memory Store for route tests: the same semantics as the SQLite store, small data sets only.
import { createHash } from 'node:crypto';
import { dialectTime } from '../../domain/dialect-records.js';
import {
  MARKET_DURATION_MS,
  marketId,
  NO_DETAILS,
  type Coin,
  type Market,
  type MarketType,
  type ServedMarket,
  type Snapshot,
} from '../../domain/market.js';
import type { AccountAuthStore } from '../../store/account-auth-store.js';
import { MemoryAccountAuth } from './memory-account-auth.js';
import { toMarket } from '../../store/core/market-row.js';
import { V1_SNAPSHOT_FORMAT, type Account, type ApiKeyRecord, type MarketQuery, type SnapshotQuery, type Store } from '../../store/store.js';

type StoredMarket = Omit<ServedMarket, 'status'>;

/** What MemoryStore.contents gives: the raw data set. */
export interface MemoryContents {
  markets: (StoredMarket & { snapshots: Snapshot[] })[];
  accounts: Account[];
  keys: (ApiKeyRecord & { keyHash: string })[];
}

/** Use in tests that need a Store without a database; fill it with `addMarkets` / `addAccountWithKey`. */
export class MemoryStore implements Store {
  private readonly markets = new Map<string, StoredMarket>();
  private readonly snapshots = new Map<string, Snapshot[]>();
  private readonly accounts: Account[] = [];
  private readonly keys: (ApiKeyRecord & { keyHash: string })[] = [];
  private readonly startsByGroup = new Map<string, number[]>();
  private nextSnapshotId = 1;
  closed = false;
  /** Passwords and sessions in memory, over this store's accounts and keys. */
  readonly accountAuth: AccountAuthStore = new MemoryAccountAuth(
    () => this.accounts,
    () => this.keys,
  );

  /** `count` consecutive markets of `coin`/`type`, the newest starting at `newestStart`, each with `snapshotsEach` snapshots. */
  addMarkets(coin: Coin, type: MarketType, newestStart: number, count: number, snapshotsEach = 0): ServedMarket[] {
    const d = MARKET_DURATION_MS[type];
    this.startsByGroup.clear();
    const made: StoredMarket[] = [];
    for (let i = 0; i < count; i++) {
      const start = newestStart - i * d;
      const id = marketId(coin, type, start);
      const m: StoredMarket = {
        market_id: id,
        slug: id,
        coin,
        market_type: type,
        start_time: start,
        end_time: start + d,
        price_start: 100,
        price_end: 101,
        winner: 'Up',
        snapshot_count: snapshotsEach,
        ...NO_DETAILS,
      };
      this.markets.set(id, m);
      const snaps: Snapshot[] = [];
      for (let k = 0; k < snapshotsEach; k++) {
        snaps.push({ id: this.nextSnapshotId++, market_id: id, time: start + k * 125, price: 100 + k, price_up: 0.5, price_down: 0.5 });
      }
      this.snapshots.set(id, snaps);
      made.push(m);
    }
    return made.map((m) => this.withStatus(m, 0));
  }

  /** An account (created when new) and one key for it; returns the key in clear. */
  addAccountWithKey(a: Partial<Omit<Account, 'id'>> & { name: string }, key: string, now = 0): { account: Account; record: ApiKeyRecord } {
    const account =
      this.accountNamed(a.name) ??
      this.insertAccount({
        name: a.name,
        plan: a.plan ?? 'builder',
        trialEndsAt: a.trialEndsAt ?? null,
        requestsPerMinute: a.requestsPerMinute ?? null,
        burstPerSecond: a.burstPerSecond ?? null,
        createdAt: a.createdAt ?? now,
      });
    const record = this.insertKey(account.id, createHash('sha256').update(key).digest('hex'), key.slice(0, 8), now);
    return { account, record };
  }

  /** Set a key's expiry (the Store interface has no such write; tests need it). */
  expireKey(id: number, at: number): void {
    const k = this.keys.find((x) => x.id === id);
    if (k) k.expiresAt = at;
  }

  /** Give one market descriptive fields (import and seed do this in the SQLite store). */
  setDetails(id: string, details: Partial<ServedMarket>): void {
    const m = this.markets.get(id);
    if (m) Object.assign(m, details);
  }

  /** Give one snapshot depth (levels as the contract prints them). */
  setOrderbook(id: string, time: number, up: Snapshot['orderbook_up'], down: Snapshot['orderbook_down']): void {
    const s = this.snapshots.get(id)?.find((x) => x.time === time);
    if (s) Object.assign(s, { orderbook_up: up, orderbook_down: down });
  }

  /**
   * Everything stored, as stored (markets oldest insertion first, keys with their hashes): for
   * copying this data set into a real store (sqlite-copy.ts) so every backend serves the same.
   */
  contents(): MemoryContents {
    return {
      markets: [...this.markets.values()].map((m) => ({ ...m, snapshots: (this.snapshots.get(m.market_id) ?? []).map((s) => ({ ...s })) })),
      accounts: this.accounts.map((a) => ({ ...a })),
      keys: this.keys.map((k) => ({ ...k })),
    };
  }

  // The real stores' own conversion, so status and what an active market hides (price_end, winner,
  // final figures) follow the same rule; the row fields only they use do not matter here.
  private withStatus(m: StoredMarket, now: number): ServedMarket {
    const { fee_schedule: fees, ...rest } = m;
    return toMarket({ ...rest, id: 0, dense: 0, id_base: null, id_step: null, id_exceptions: 0, fee_schedule: fees ? JSON.stringify(fees) : null }, now);
  }

  private sorted(): StoredMarket[] {
    return [...this.markets.values()].sort((a, b) => b.start_time - a.start_time || (a.market_id < b.market_id ? 1 : -1));
  }

  async listMarkets(q: MarketQuery): Promise<{ markets: ServedMarket[]; total: number }> {
    const all = this.sorted()
      .filter((m) => !q.window || this.rankOf(m) < q.window[m.market_type])
      .map((m) => this.withStatus(m, q.now))
      .filter(
        (m) =>
          (!q.coin || m.coin === q.coin) &&
          (!q.marketType || m.market_type === q.marketType) &&
          (!q.status || m.status === q.status) &&
          (q.startFrom === undefined || m.start_time >= q.startFrom) &&
          (q.startBefore === undefined || m.start_time < q.startBefore),
      );
    return { markets: all.slice(q.offset, q.offset + q.limit), total: all.length };
  }

  async getMarket(id: string, now: number): Promise<ServedMarket | undefined> {
    const m = this.markets.get(id);
    return m && this.withStatus(m, now);
  }

  async marketRank(market: Pick<Market, 'coin' | 'market_type' | 'start_time'>): Promise<number> {
    return this.rankOf(market);
  }

  private rankOf(market: Pick<Market, 'coin' | 'market_type' | 'start_time'>): number {
    const group = `${market.coin}/${market.market_type}`;
    let starts = this.startsByGroup.get(group);
    if (!starts) {
      starts = [...this.markets.values()]
        .filter((m) => m.coin === market.coin && m.market_type === market.market_type)
        .map((m) => m.start_time)
        .sort((a, b) => b - a);
      this.startsByGroup.set(group, starts);
    }
    // Newest first: the rank is how many start later.
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! > market.start_time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  async snapshotPageJson(id: string, q: SnapshotQuery): Promise<{ json: string; count: number; total: number }> {
    const all = (this.snapshots.get(id) ?? []).filter(
      (s) => (q.from === undefined || s.time >= q.from) && (q.before === undefined || s.time < q.before),
    );
    const format = q.format ?? V1_SNAPSHOT_FORMAT;
    const page = all.slice(q.offset, q.offset + q.limit).map((s) => {
      const { orderbook_up, orderbook_down, ...row } = s;
      const out: Record<string, unknown> = {
        id: row.id,
        market_id: row.market_id,
        time: dialectTime(format.times, row.time),
        [format.priceKey]: row.price,
        price_up: row.price_up,
        price_down: row.price_down,
      };
      if (q.includeOrderbook && orderbook_up && orderbook_down) Object.assign(out, { orderbook_up, orderbook_down });
      return out;
    });
    return { json: JSON.stringify(page), count: page.length, total: all.length };
  }

  async nearestSnapshot(id: string, ts: number, includeOrderbook = false): Promise<Snapshot | undefined> {
    let best: Snapshot | undefined;
    for (const s of this.snapshots.get(id) ?? []) {
      if (!best || Math.abs(s.time - ts) < Math.abs(best.time - ts)) best = s;
    }
    if (!best) return undefined;
    const { orderbook_up, orderbook_down, ...plain } = best;
    return includeOrderbook && orderbook_up && orderbook_down ? { ...plain, orderbook_up, orderbook_down } : plain;
  }

  async getAccount(name: string): Promise<Account | undefined> {
    return this.accountNamed(name);
  }

  private accountNamed(name: string): Account | undefined {
    return this.accounts.find((a) => a.name.toLowerCase() === name.toLowerCase());
  }

  async getAccountById(id: number): Promise<Account | undefined> {
    return this.accountWithId(id);
  }

  private accountWithId(id: number): Account | undefined {
    return this.accounts.find((a) => a.id === id);
  }

  async createAccount(a: Omit<Account, 'id'>): Promise<Account> {
    return this.insertAccount(a);
  }

  private insertAccount(a: Omit<Account, 'id'>): Account {
    const account = { ...a, id: this.accounts.length + 1 };
    this.accounts.push(account);
    return account;
  }

  async createKey(accountId: number, keyHash: string, prefix: string, now: number, name: string | null = null): Promise<ApiKeyRecord> {
    return this.insertKey(accountId, keyHash, prefix, now, name);
  }

  async touchKey(id: number, now: number, minIntervalMs: number): Promise<boolean> {
    const k = this.keys.find((x) => x.id === id);
    if (!k || (k.lastUsedAt !== null && k.lastUsedAt > now - minIntervalMs)) return false;
    k.lastUsedAt = now;
    return true;
  }

  private insertKey(accountId: number, keyHash: string, prefix: string, now: number, name: string | null = null): ApiKeyRecord {
    const record: ApiKeyRecord & { keyHash: string } = { id: this.keys.length + 1, accountId, prefix, createdAt: now, revokedAt: null, expiresAt: null, name, lastUsedAt: null, keyHash };
    this.keys.push(record);
    return { ...record };
  }

  async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const k = this.keys.find((x) => x.keyHash === keyHash);
    return k && { ...k };
  }

  async findKeyWithAccount(keyHash: string): Promise<(ApiKeyRecord & { account: Account }) | undefined> {
    const k = this.keys.find((x) => x.keyHash === keyHash);
    const account = k && this.accountWithId(k.accountId);
    return account && { ...k, account };
  }

  async listKeys(): Promise<(ApiKeyRecord & { account: Account })[]> {
    return this.keys.map((k) => ({ ...k, account: this.accountWithId(k.accountId)! }));
  }

  async revokeKey(id: number, now: number): Promise<boolean> {
    const k = this.keys.find((x) => x.id === id);
    if (!k || k.revokedAt !== null) return false;
    k.revokedAt = now;
    return true;
  }

  async countActiveKeys(accountId: number, now: number): Promise<number> {
    return this.keys.filter((k) => k.accountId === accountId && k.revokedAt === null && (k.expiresAt === null || k.expiresAt > now)).length;
  }

  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    // Single-threaded memory whose calls resolve at once: fn already runs without interleaving.
    return fn(this);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
