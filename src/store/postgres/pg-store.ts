// The PostgreSQL implementation of Store: one pool per process, any number of processes per
// database. Every read and write answers exactly as the SQLite store does for the same data;
// a lost database surfaces as StoreUnavailableError and the pool reconnects by itself.
import type postgres from 'postgres';
import type { Market, ServedMarket, Snapshot } from '../../domain/market.js';
import { MsnapError, UnreachableError, UsageError } from '../../errors.js';
import type { AccountAuthStore } from '../account-auth-store.js';
import type { Origin, OriginSummary } from '../core/mirror-state.js';
import type { TableCounts } from '../core/write-records.js';
import type { MirrorStore, StoreCapabilities } from '../mirror-store.js';
import type { PaperLedger } from '../paper-ledger.js';
import { V1_SNAPSHOT_FORMAT, type Account, type ApiKeyRecord, type MarketPage, type MarketQuery, type SnapshotFormat, type SnapshotQuery, type Store } from '../store.js';
import type { BlockMoveProgress, BlockMoveResult, RowsToBlocks } from '../block-migration.js';
import { PgAccountAuth } from './pg-account-auth.js';
import { moveRowsToBlocks } from './pg-block-migration.js';
import { PgAccounts } from './pg-accounts.js';
import { PgPaperLedger } from './pg-paper-ledger.js';
import { connectPg, describePgUrl, guarded, withDeadline, isConnectionError, redact, unavailableOr, type Pg, type PgStoreOptions } from './pg-connection.js';
import { pgOriginSummary, PgMirrorState, PgMirrorWriter } from './writes/pg-mirror-writer.js';
import { PgMarketReads } from './pg-market-reads.js';
import { checkSchemaName, migratePg, PG_MIGRATIONS } from './pg-migrations.js';
import { PgSnapshotReads } from './pg-snapshot-reads.js';
import { pgRecordedThrough, PgRecordWriter } from './writes/pg-record-writer.js';
import { inTransaction, type ConnectionState } from './pg-transaction.js';

export type { PgStoreOptions } from './pg-connection.js';

/** Row counts of the data tables, for reports and tests (the same as SQLite's). */
export type PgTableCounts = TableCounts;

/** A health check's ping gives up sooner than a request's call: a load balancer wants an answer. */
const PING_DEADLINE_MS = 2000;

const PG_CAPABILITIES: StoreCapabilities = { backend: 'postgres', directBulkWrite: false, shared: true };

/** Use through openPgStore; a transaction hands fn a PgStore bound to its one connection. */
export class PgStore implements MirrorStore, RowsToBlocks {
  readonly accountAuth: AccountAuthStore;
  /** serve's paper accounts: one transaction per order, the account's row locked. */
  readonly paper: PaperLedger;
  private readonly markets: PgMarketReads;
  private readonly snapshots: PgSnapshotReads;
  private readonly accounts: PgAccounts;
  private readonly pingDeadlineMs: number | undefined;

  /**
   * `pool` is undefined for the store a transaction hands out: it runs on `sql`, the transaction's
   * connection, and marks `connection` lost when a call finds it gone.
   */
  constructor(
    readonly sql: Pg,
    private readonly pool: postgres.Sql | undefined,
    readonly schema: string,
    private readonly connection: ConnectionState = { lost: false },
    /** Calls on the pool fail as unavailable past this many ms (inside a transaction they run to the end). */
    callTimeoutMs?: number,
  ) {
    const deadline = pool ? callTimeoutMs : undefined;
    this.pingDeadlineMs = deadline && Math.min(deadline, PING_DEADLINE_MS);
    this.markets = guard(new PgMarketReads(sql), connection, deadline);
    this.snapshots = guard(new PgSnapshotReads(sql, this.markets), connection, deadline);
    this.accounts = guard(new PgAccounts(sql), connection, deadline);
    this.accountAuth = guard(new PgAccountAuth(sql, (fn) => this.atomically(fn)), connection, deadline);
    this.paper = guard(new PgPaperLedger(sql, pool), connection, deadline);
  }

  /** Shared by any number of instances; seed and import load it from a staging SQLite file. */
  capabilities(): StoreCapabilities {
    return PG_CAPABILITIES;
  }

  /** Bulk writes reach PostgreSQL through a staging SQLite file, never straight in. */
  directBulk(): undefined {
    return undefined;
  }

  listMarkets(q: MarketQuery): Promise<{ markets: ServedMarket[]; total: number }> {
    return this.markets.listMarkets(q);
  }

  getMarket(id: string, now: number): Promise<ServedMarket | undefined> {
    return this.markets.getMarket(id, now);
  }

  marketRank(market: Pick<Market, 'coin' | 'market_type' | 'start_time'>): Promise<number> {
    return this.markets.marketRank(market);
  }

  snapshotPageJson(marketId: string, q: SnapshotQuery): Promise<{ json: string; count: number; total: number }> {
    return this.snapshots.snapshotPageJson(marketId, q);
  }

  marketSnapshotPage(marketId: string, now: number, q: SnapshotQuery, admit: (market: ServedMarket) => Promise<SnapshotFormat | undefined>): Promise<MarketPage | undefined> {
    return this.snapshots.marketSnapshotPage(marketId, now, q, admit);
  }

  /**
   * A page as snapshotPageJson gives it, as records: for local reads (msnap --db). Parsed back from
   * the page's JSON, which gives the very same numbers (see sqlite/snapshot-objects.ts).
   */
  async snapshotPage(marketId: string, q: SnapshotQuery): Promise<{ snapshots: Snapshot[]; total: number }> {
    const page = await this.snapshots.snapshotPageJson(marketId, { ...q, format: V1_SNAPSHOT_FORMAT });
    return { snapshots: JSON.parse(page.json) as Snapshot[], total: page.total };
  }

  nearestSnapshot(marketId: string, ts: number, includeOrderbook?: boolean): Promise<Snapshot | undefined> {
    return this.snapshots.nearestSnapshot(marketId, ts, includeOrderbook);
  }

  getAccount(name: string): Promise<Account | undefined> {
    return this.accounts.getAccount(name);
  }

  getAccountById(id: number): Promise<Account | undefined> {
    return this.accounts.getAccountById(id);
  }

  createAccount(a: Omit<Account, 'id'>): Promise<Account> {
    return this.accounts.createAccount(a);
  }

  createKey(accountId: number, keyHash: string, prefix: string, now: number, name: string | null = null): Promise<ApiKeyRecord> {
    return this.accounts.createKey(accountId, keyHash, prefix, now, name);
  }

  touchKey(id: number, now: number, minIntervalMs: number): Promise<boolean> {
    return this.accounts.touchKey(id, now, minIntervalMs);
  }

  findKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.accounts.findKeyByHash(keyHash);
  }

  findKeyWithAccount(keyHash: string): Promise<(ApiKeyRecord & { account: Account }) | undefined> {
    return this.accounts.findKeyWithAccount(keyHash);
  }

  listKeys(): Promise<(ApiKeyRecord & { account: Account })[]> {
    return this.accounts.listKeys();
  }

  revokeKey(id: number, now: number): Promise<boolean> {
    return this.accounts.revokeKey(id, now);
  }

  countActiveKeys(accountId: number, now: number): Promise<number> {
    return this.accounts.countActiveKeys(accountId, now);
  }

  /**
   * One connection, BEGIN ... COMMIT, and an advisory lock that every store transaction of this
   * schema takes first: transactions run one at a time across all instances, as SQLite's
   * BEGIN IMMEDIATE does, so check-then-create (a key cap) cannot interleave. Inside a
   * transaction, fn runs in the one already open.
   */
  async transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    if (!this.pool) return fn(this);
    const pool = this.pool;
    return guarded(() => inTransaction(pool, `msnap:tx:${this.schema}`, (tx, state) => fn(new PgStore(tx, undefined, this.schema, state))));
  }

  /** The writer msnap pull stores a service's markets and snapshots through, each page committed. */
  mirrorWriter(origin: Origin): PgMirrorWriter {
    return new PgMirrorWriter(this, origin);
  }

  /** The writer `msnap record` and serve --record write through: one transaction per batch, under the bulk-write lock. */
  recordWrites(): PgRecordWriter {
    if (!this.pool) throw new Error('recordWrites needs the store itself, not one bound to a transaction');
    return new PgRecordWriter(this.pool, this.schema);
  }

  /** The end of what a recorder has written (its last covered span), or undefined when nothing was recorded. */
  async recordedThrough(): Promise<number | undefined> {
    return guarded(() => pgRecordedThrough(this.sql));
  }

  /** What pull reads of the stored markets, without writing (its dry run). */
  mirrorState(): PgMirrorState {
    return new PgMirrorState(this);
  }

  /** Where pulled markets came from, per source (empty when nothing was pulled). */
  async origins(): Promise<OriginSummary[]> {
    return guarded(() => pgOriginSummary(this.sql));
  }

  /** How many migrations the schema has had. */
  async schemaVersion(): Promise<number> {
    return guarded(async () => {
      const [row] = await this.sql.unsafe<{ v: number }[]>(`SELECT coalesce(max(version), 0)::int AS v FROM ${this.schema}.schema_migrations`);
      return row!.v;
    });
  }

  /** Counts for reports and tests. */
  async counts(): Promise<PgTableCounts> {
    return guarded(async () => {
      const [row] = await this.sql<PgTableCounts[]>`
        SELECT (SELECT count(*) FROM markets) AS markets,
               ((SELECT count(*) FROM snapshots) + (SELECT coalesce(sum(n), 0) FROM snapshot_blocks))::bigint AS snapshots,
               ((SELECT count(*) FROM orderbooks) + (SELECT coalesce(sum(n_books), 0) FROM snapshot_blocks))::bigint AS orderbooks,
               (SELECT count(*) FROM accounts) AS accounts,
               (SELECT count(*) FROM api_keys) AS keys`;
      return row!;
    });
  }

  /**
   * For bulk writers (load, pull): fn in one transaction on one connection, after the schema's
   * bulk-write lock (one bulk writer at a time across instances; readers are never blocked).
   */
  async bulkTransaction<T>(fn: (tx: postgres.ReservedSql) => Promise<T>): Promise<T> {
    const pool = this.pool;
    if (!pool) throw new Error('bulkTransaction needs the store itself, not one bound to a transaction');
    return guarded(() => inTransaction(pool, `msnap:bulk:${this.schema}`, (tx) => fn(tx)));
  }

  /** Moves markets an older msnap stored as rows into blocks (serve compact-books); see pg-block-migration.ts. */
  async moveRowsToBlocks(opts: { batchRows: number; onProgress?: (p: BlockMoveProgress) => void }): Promise<BlockMoveResult> {
    return guarded(() => moveRowsToBlocks(this, opts));
  }

  /** One round trip; StoreUnavailableError while PostgreSQL cannot be reached (public health reports it). */
  async ping(): Promise<void> {
    await guarded(async () => {
      await withDeadline(this.sql`SELECT 1`.execute(), this.pingDeadlineMs);
    });
  }

  async close(): Promise<void> {
    await this.pool?.end({ timeout: 5 });
  }

  /** fn in one transaction holding the store's write lock (or in the open one, for a bound store). */
  private async atomically<T>(fn: (sql: Pg) => Promise<T>): Promise<T> {
    const pool = this.pool;
    if (!pool) return fn(this.sql);
    return guarded(() => inTransaction(pool, `msnap:tx:${this.schema}`, (tx) => fn(tx)));
  }
}

/** Use to open the store behind `--store postgres://…`: connects, migrates, and fails in one readable line. */
export async function openPgStore(url: string, opts: PgStoreOptions = {}): Promise<PgStore> {
  const schema = checkSchemaName(opts.schema ?? 'msnap');
  const sql = connectPg(url, { ...opts, schema });
  try {
    if (opts.readOnly) await checkMigrated(sql, schema);
    else await migratePg(sql, schema);
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    throw openError(url, err);
  }
  return new PgStore(sql, sql, schema, undefined, opts.callTimeoutMs);
}

/** A read-only opener cannot migrate: the schema must already be this msnap's. */
async function checkMigrated(sql: postgres.Sql, schema: string): Promise<void> {
  const latest = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]?.version ?? 0;
  const [table] = await sql<{ t: string | null }[]>`SELECT to_regclass(${`${schema}.schema_migrations`})::text AS t`;
  const [row] = table?.t ? await sql.unsafe<{ v: number }[]>(`SELECT coalesce(max(version), 0)::int AS v FROM ${schema}.schema_migrations`) : [{ v: 0 }];
  if (row?.v !== latest) {
    throw new UsageError(
      row?.v === 0 ? `schema "${schema}" holds no msnap store` : `schema "${schema}" is at version ${row?.v}, this msnap reads version ${latest}`,
      'open it once with msnap serve --store URL (which migrates it)',
    );
  }
}

/** What went wrong opening the store, as a one-line MsnapError (never the password). */
function openError(url: string, err: unknown): Error {
  if (err instanceof MsnapError) return err;
  const where = describePgUrl(url);
  const e = err as { code?: string; message?: string };
  const reason = redact(e.message ?? String(err)).split('\n')[0];
  if (isConnectionError(err)) return new UnreachableError(`cannot reach PostgreSQL at ${where}: ${reason}`);
  // Login refused (28xxx) or no such database (3D000): the URL is wrong, not the server.
  if (e.code?.startsWith('28') || e.code === '3D000') return new UsageError(`PostgreSQL at ${where} refused: ${reason}`);
  return new MsnapError(`PostgreSQL at ${where}: ${reason}`);
}

/** The object with every method's rejection passed through unavailableOr; a lost connection is noted in `connection`. */
function guard<T extends object>(target: T, connection: ConnectionState, deadlineMs: number | undefined): T {
  return new Proxy(target, {
    get(obj, key, receiver) {
      const value = Reflect.get(obj, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        try {
          return await withDeadline((value as (...a: unknown[]) => Promise<unknown>).apply(obj, args), deadlineMs);
        } catch (err) {
          if (isConnectionError(err)) connection.lost = true;
          throw unavailableOr(err);
        }
      };
    },
  });
}
