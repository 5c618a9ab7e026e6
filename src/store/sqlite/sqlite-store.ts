// The SQLite implementation of Store (better-sqlite3): one connection shared by the market reads,
// the snapshot reads, the account records and the bulk writer. openSqliteStore (open.ts) makes it.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { Market, ServedMarket, Snapshot } from '../../domain/market.js';
import type { MirrorStore, StoreCapabilities } from '../mirror-store.js';
import type { Account, ApiKeyRecord, MarketQuery, SnapshotQuery, Store } from '../store.js';
import { SqliteAccountAuthStore } from './accounts/account-auth-sqlite.js';
import { AccountRecords } from './accounts/accounts.js';
import { BulkWriter } from './writes/bulk-writer.js';
import { DataVersion } from './data-version.js';
import { DenseBlocks } from './dense-blocks.js';
import { MarketReads } from './reads/market-reads.js';
import type { RowLayout } from '../../domain/row-layout.js';
import { SnapshotReads } from './reads/snapshot-reads.js';
import { SqlitePaperLedger } from './accounts/paper-ledger-sqlite.js';
import type { Origin, OriginSummary } from '../core/mirror-state.js';
import { MirrorWriter, originSummary } from './writes/mirror-writer.js';
import { MirrorState } from './reads/mirror-state.js';

const SQLITE_CAPABILITIES: StoreCapabilities = { backend: 'sqlite', directBulkWrite: true, shared: false };

/** The store the server and the `serve` subcommands use; `bulk` is what seed and import write through. */
export class SqliteStore implements MirrorStore {
  /** Bulk writes for seed and import, on the same connection (its writes invalidate the read caches). */
  readonly bulk: BulkWriter;
  /** The dashboard's passwords and sessions, on the same connection (sign-up writes both sides in one transaction). */
  readonly accountAuth: SqliteAccountAuthStore;
  /** serve's paper accounts, written in the store's own transactions. */
  readonly paper: SqlitePaperLedger;
  private readonly markets: MarketReads;
  private readonly snapshots: SnapshotReads;
  private readonly accounts: AccountRecords;
  private txQueue: Promise<void> = Promise.resolve();
  private recordedThroughStmt: Statement | undefined;

  constructor(private readonly db: Database.Database) {
    const version = new DataVersion(db);
    const blocks = new DenseBlocks(db);
    this.markets = new MarketReads(db, version);
    this.snapshots = new SnapshotReads(db, blocks);
    this.accounts = new AccountRecords(db, version);
    this.bulk = new BulkWriter(db, blocks, version);
    this.accountAuth = new SqliteAccountAuthStore(db);
    this.paper = new SqlitePaperLedger(db, (fn) => this.queued(fn, false));
  }

  /** The recorder writes through the bulk writer, one transaction per batch. */
  recordWrites(): BulkWriter {
    return this.bulk;
  }

  /** One file, one writer: seed, import and live write into it directly. */
  capabilities(): StoreCapabilities {
    return SQLITE_CAPABILITIES;
  }

  /** SQLite takes seed, import and live writes straight through its bulk writer. */
  directBulk(): this {
    return this;
  }

  async listMarkets(q: MarketQuery): Promise<{ markets: ServedMarket[]; total: number }> {
    return this.markets.listMarkets(q);
  }

  async getMarket(id: string, now: number): Promise<ServedMarket | undefined> {
    return this.markets.getMarket(id, now);
  }

  async marketRank(market: Pick<Market, 'coin' | 'market_type' | 'start_time'>): Promise<number> {
    return this.markets.marketRank(market);
  }

  async snapshotPageJson(marketId: string, q: SnapshotQuery): Promise<{ json: string; count: number; total: number }> {
    return this.snapshots.snapshotPageJson(marketId, q);
  }

  /** A page as snapshotPageJson gives it, as records: for local reads (msnap --db), which skip JSON. */
  snapshotPage(marketId: string, q: SnapshotQuery): { snapshots: Snapshot[]; total: number } {
    return this.snapshots.snapshotPage(marketId, q);
  }

  async nearestSnapshot(marketId: string, ts: number, includeOrderbook?: boolean): Promise<Snapshot | undefined> {
    return this.snapshots.nearestSnapshot(marketId, ts, includeOrderbook);
  }

  async getAccount(name: string): Promise<Account | undefined> {
    return this.accounts.getAccount(name);
  }

  async getAccountById(id: number): Promise<Account | undefined> {
    return this.accounts.getAccountById(id);
  }

  async createAccount(a: Omit<Account, 'id'>): Promise<Account> {
    return this.accounts.createAccount(a);
  }

  async createKey(accountId: number, keyHash: string, prefix: string, now: number, name: string | null = null): Promise<ApiKeyRecord> {
    return this.accounts.createKey(accountId, keyHash, prefix, now, name);
  }

  async touchKey(id: number, now: number, minIntervalMs: number): Promise<boolean> {
    return this.accounts.touchKey(id, now, minIntervalMs);
  }

  async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.accounts.findKeyByHash(keyHash);
  }

  async findKeyWithAccount(keyHash: string): Promise<(ApiKeyRecord & { account: Account }) | undefined> {
    return this.accounts.findKeyWithAccount(keyHash);
  }

  async listKeys(): Promise<(ApiKeyRecord & { account: Account })[]> {
    return this.accounts.listKeys();
  }

  async revokeKey(id: number, now: number): Promise<boolean> {
    return this.accounts.revokeKey(id, now);
  }

  async countActiveKeys(accountId: number, now: number): Promise<number> {
    return this.accounts.countActiveKeys(accountId, now);
  }

  /**
   * One write transaction on the single connection. Every store call resolves at once, so fn runs
   * to its end in microtasks: no other request's I/O callback can slip a statement in between.
   * Transactions still queue behind each other, in case fn awaits something slower.
   */
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    return this.queued(() => fn(this), true);
  }

  /** One transaction in the queue; `dataChanged` false: it writes nothing a read cache derives from (paper accounts). */
  private queued<T>(fn: () => Promise<T>, dataChanged: boolean): Promise<T> {
    const run = this.txQueue.then(async () => {
      this.bulk.begin();
      try {
        const result = await fn();
        this.bulk.commit(dataChanged);
        return result;
      } catch (err) {
        this.bulk.rollback();
        throw err;
      }
    });
    this.txQueue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** The writer msnap pull stores a service's markets and snapshots through, each page committed. */
  mirrorWriter(origin: Origin): MirrorWriter {
    return new MirrorWriter(this.db, this.bulk, origin);
  }

  /** Where pulled markets came from, per source (empty for a store nothing was pulled into). */
  origins(): OriginSummary[] {
    return originSummary(this.db);
  }

  async recordedThrough(): Promise<number | undefined> {
    // The recorder commits each span's end with the snapshots decided up to it (migration 14).
    this.recordedThroughStmt ??= this.db.prepare('SELECT max(to_ms) FROM realdata_spans').pluck();
    return (this.recordedThroughStmt.get() as number | null) ?? undefined;
  }

  /** The schema version (number of migrations applied). */
  schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  async close(): Promise<void> {
    this.closeSync();
  }

  /** For the CLI's synchronous exits (signals) and read-only local use. */
  closeSync(): void {
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
