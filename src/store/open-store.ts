// One way to open a store from what the user typed: a postgres:// URL opens PostgreSQL, anything
// else an SQLite file. The backends are loaded on first use, not when the CLI starts.
import { existsSync, rmSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { BulkLoadStore } from './bulk-store.js';
import type { RecordWrites } from './record-writes.js';
import { diskFullError } from './disk-full.js';
import { isPostgresUrl, storeName } from './db-path.js';
import type { MarketSource } from '../domain/market-series.js';
import type { SqliteStoreOptions } from './sqlite/open.js';
import type { SeriesSourceOptions } from './sqlite/reads/series-source.js';
import type { MirrorStore, OriginSummary } from './mirror-store.js';
import type { SqliteStore } from './sqlite/sqlite-store.js';
import type { Snapshot } from '../domain/market.js';
import type { SnapshotQuery } from './store.js';

/**
 * What openStore gives, whichever the backend: the Store with its mirror ports, what the backend
 * declares it can do, and the bulk port where bulk writes go straight in (SQLite). Callers ask the
 * port, never the backend's class.
 */
export interface OpenedStore extends MirrorStore {
  /** The bulk load port when `capabilities().directBulkWrite`; undefined where seed and import go through a staging file (PostgreSQL). */
  directBulk(): BulkLoadStore | undefined;
  /** Where pulled markets came from, per source (empty when nothing was pulled). */
  origins(): OriginSummary[] | Promise<OriginSummary[]>;
  /** The port `msnap record` and serve --record write real data through (SQLite: the bulk writer). */
  recordWrites(): RecordWrites;
  /** A page of snapshot records, for local reads that skip HTTP (LocalApi). */
  snapshotPage(marketId: string, q: SnapshotQuery): { snapshots: Snapshot[]; total: number } | Promise<{ snapshots: Snapshot[]; total: number }>;
}

/** Use where only an SQLite file will do (pull's staging, live): a PostgreSQL URL or a file that cannot be opened is a UsageError. */
export async function openSqliteFile(location: string, opts: SqliteStoreOptions = {}): Promise<SqliteStore> {
  if (isPostgresUrl(location)) throw new UsageError(`${storeName(location)}: this command works on an SQLite file, not PostgreSQL`);
  const { openSqliteStore } = await import('./sqlite/open.js');
  const existed = existsSync(location);
  try {
    return openSqliteStore(location, opts);
  } catch (err) {
    // A file this run created and could not set up (a full disk) is removed, not left half made.
    if (!existed) for (const f of [location, `${location}-wal`, `${location}-shm`, `${location}-journal`]) rmSync(f, { force: true });
    throw diskFullError(err, location) ?? new UsageError(`cannot open database ${location}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Use to read an SQLite file (msnap --db FILE): read-only, with the SQLite store's own export text; not an msnap database is a UsageError. */
export async function openSqliteReader(file: string): Promise<SqliteStore> {
  const { openSqliteStore } = await import('./sqlite/open.js');
  try {
    return openSqliteStore(file, { readonly: true });
  } catch (err) {
    throw new UsageError(`${file} is not an msnap database: ${(err as Error).message}`);
  }
}

/**
 * Use to open the store `location` names: PostgreSQL by URL, else the SQLite file (SQLite options
 * apply to it only, but `readonly`: PostgreSQL then runs every transaction read-only and migrates
 * nothing). `serving`: serve's timeouts, so no request waits on the database for long; bulk loads
 * (pull, import) go without.
 */
export async function openStore(location: string, opts: SqliteStoreOptions & { serving?: boolean } = {}): Promise<OpenedStore> {
  if (!isPostgresUrl(location)) return openSqliteFile(location, opts);
  const [{ openPgStore }, { SERVE_PG_TIMEOUTS, servePoolSize }] = await Promise.all([import('./postgres/pg-store.js'), import('./postgres/pg-connection.js')]);
  // A reader needs few connections: it asks one page at a time.
  const reader = opts.readonly ? { readOnly: true, max: 4 } : {};
  return openPgStore(location, { ...reader, ...(opts.serving ? { ...SERVE_PG_TIMEOUTS, max: servePoolSize() } : {}) });
}

/** Use where a command writes through the bulk writer (seed, import, compact-books): the SQLite file `location`, never PostgreSQL. */
export async function openBulkStore(location: string, opts: { cacheMiB?: number; busyTimeoutMs?: number } = {}): Promise<BulkLoadStore> {
  return openSqliteFile(location, opts);
}

/** Whole markets of a store file as columns, and what releases the file. */
export interface SeriesFile {
  source: MarketSource;
  close(): void;
}

/**
 * Use to read `marketIds` of an SQLite file whole, as columns (backtest --db, the sweep workers):
 * read-only, with a small page cache (each market is read once, front to back). The backend loads
 * on this call, so `msnap/backtest` over the service never loads better-sqlite3. A file that is not
 * an msnap database is a UsageError.
 */
export async function openSeriesFile(file: string, marketIds: readonly string[], opts: SeriesSourceOptions): Promise<SeriesFile> {
  const [{ openDatabase }, { sqliteSeriesSource }] = await Promise.all([import('./sqlite/open.js'), import('./sqlite/reads/series-source.js')]);
  let db;
  try {
    db = openDatabase(file, { readonly: true, cacheMiB: 8 }).db;
  } catch (err) {
    throw new UsageError(`${file} is not an msnap database: ${(err as Error).message}`);
  }
  const handle = db;
  return { source: sqliteSeriesSource(handle, marketIds, opts), close: () => handle.close() };
}
