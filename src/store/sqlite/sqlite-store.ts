// The SQLite implementation of Store (better-sqlite3): one connection shared by the market reads,
// the snapshot reads, the account records and the bulk writer. openSqliteStore (open.ts) makes it.
import type Database from 'better-sqlite3';
import type { Market, ServedMarket, Snapshot } from '../../domain/market.js';
import type { Account, ApiKeyRecord, MarketQuery, SnapshotQuery, Store } from '../store.js';
import { SqliteAccountAuthStore } from './account-auth-sqlite.js';
import { AccountRecords } from './accounts.js';
import { BulkWriter } from './bulk-writer.js';
import { DataVersion } from './data-version.js';
import { DenseBlocks } from './dense-blocks.js';
import { MarketReads } from './market-reads.js';
import type { RowLayout } from './row-layout.js';
import { SnapshotReads } from './snapshot-reads.js';
import { MirrorWriter, originSummary, type Origin, type OriginSummary } from '../mirror/mirror-writer.js';
import { MirrorState } from '../mirror/mirror-state.js';

/** The store the server and the `serve` subcommands use; `bulk` is what seed and import write through. */
export class SqliteStore implements Store {
  /** Bulk writes for seed and import, on the same connection (its writes invalidate the read caches). */
  readonly bulk: BulkWriter;
  /** The dashboard's passwords and sessions, on the same connection (sign-up writes both sides in one transaction). */
  readonly accountAuth: SqliteAccountAuthStore;
  private readonly markets: MarketReads;
  private readonly snapshots: SnapshotReads;
  private readonly accounts: AccountRecords;

  constructor(private readonly db: Database.Database) {
    const version = new DataVersion(db);
    const blocks = new DenseBlocks(db);
    this.markets = new MarketReads(db, version);
    this.snapshots = new SnapshotReads(db, blocks);
    this.accounts = new AccountRecords(db, version);
    this.bulk = new BulkWriter(db, blocks, version);
    this.accountAuth = new SqliteAccountAuthStore(db);
  }

  listMarkets(q: MarketQuery): { markets: ServedMarket[]; total: number } {
    return this.markets.listMarkets(q);
  }

  getMarket(id: string, now: number): ServedMarket | undefined {
    return this.markets.getMarket(id, now);
  }

  marketRank(market: Pick<Market, 'coin' | 'market_type' | 'start_time'>): number {
    return this.markets.marketRank(market);
  }

  snapshotPageJson(marketId: string, q: SnapshotQuery): { json: string; count: number; total: number } {
    return this.snapshots.snapshotPageJson(marketId, q);
  }

  /** A page as snapshotPageJson gives it, as records: for local reads (msnap --db), which skip JSON. */
  snapshotPage(marketId: string, q: SnapshotQuery): { snapshots: Snapshot[]; total: number } {
    return this.snapshots.snapshotPage(marketId, q);
  }

  nearestSnapshot(marketId: string, ts: number, includeOrderbook?: boolean): Snapshot | undefined {
    return this.snapshots.nearestSnapshot(marketId, ts, includeOrderbook);
  }

  getAccount(name: string): Account | undefined {
    return this.accounts.getAccount(name);
  }

  getAccountById(id: number): Account | undefined {
    return this.accounts.getAccountById(id);
  }

  createAccount(a: Omit<Account, 'id'>): Account {
    return this.accounts.createAccount(a);
  }

  createKey(accountId: number, keyHash: string, prefix: string, now: number): ApiKeyRecord {
    return this.accounts.createKey(accountId, keyHash, prefix, now);
  }

  findKeyByHash(keyHash: string): ApiKeyRecord | undefined {
    return this.accounts.findKeyByHash(keyHash);
  }

  listKeys(): (ApiKeyRecord & { account: Account })[] {
    return this.accounts.listKeys();
  }

  revokeKey(id: number, now: number): boolean {
    return this.accounts.revokeKey(id, now);
  }

  countActiveKeys(accountId: number, now: number): number {
    return this.accounts.countActiveKeys(accountId, now);
  }

  transaction<T>(fn: () => T): T {
    return this.bulk.transaction(fn);
  }

  /** The writer msnap pull stores a service's markets and snapshots through, each page committed. */
  mirrorWriter(origin: Origin): MirrorWriter {
    return new MirrorWriter(this.db, this.bulk, origin);
  }

  /** How many snapshots of a market the store holds (0 when it does not know the market). */
  storedSnapshots(marketId: string): number {
    return this.markets.getMarket(marketId, 0)?.snapshot_count ?? 0;
  }

  /** Where pulled markets came from, per source (empty for a store nothing was pulled into). */
  origins(): OriginSummary[] {
    return originSummary(this.db);
  }

  /** The schema version (number of migrations applied). */
  schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** A page as snapshotPageJson gives it, written in `layout` (a local export's lines, from the stored values). */
  snapshotPageText(marketId: string, q: SnapshotQuery, layout: RowLayout): { text: string | Uint8Array; count: number; total: number } {
    return this.snapshots.snapshotPageText(marketId, q, layout);
  }

  /** What the store holds of pulled markets (read-only: a dry run asks it too). */
  mirrorState(): MirrorState {
    return new MirrorState(this.db);
  }
}
