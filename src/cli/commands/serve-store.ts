// Opening the server's store from a `serve` command (through store/open-store.ts): an SQLite file,
// or PostgreSQL by URL. A path that cannot be opened is the user's input, so it is a one-line usage
// error, and another process holding the write lock is a DatabaseBusyError.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseBusyError, UsageError } from '../../errors.js';
import { isPostgresUrl, storeName } from '../../store/db-path.js';
import { isSqliteStore, openSqliteFile, openStore, type AnyStore } from '../../store/open-store.js';
import type { SqliteStoreOptions } from '../../store/sqlite/open.js';
import type { SqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { CliContext } from '../context.js';

/** Either store `serve` runs on. */
export type ServeStore = AnyStore;

/** Use where a command needs an SQLite file (pull, live): a PostgreSQL URL is a usage error. */
export const openServeStore = openSqliteFile;

/** Use in `serve` and the commands that only need the Store interface: SQLite or PostgreSQL. */
export const openAnyStore = openStore;

/** True for the SQLite store (seed, import, live and origins work on it directly). */
export const isSqlite = isSqliteStore;

/** Use before a command that only reads or changes what is there: a typo must not create a database. */
export function requireExisting(db: string): void {
  if (isPostgresUrl(db)) return;
  if (!existsSync(db)) {
    throw new UsageError(`no database at ${db}`, 'check --db (or MSNAP_DB); msnap serve seed or msnap serve --demo creates one');
  }
}

/**
 * Use in the `serve` subcommands that write through SQLite's bulk writer (seed, import): opens
 * `db`, runs `fn`, explains a busy database, always closes.
 */
export async function withStore<T>(db: string, opts: SqliteStoreOptions & { mustExist?: boolean }, fn: (store: SqliteStore) => T | Promise<T>): Promise<T> {
  if (opts.mustExist) requireExisting(db);
  const store = await openServeStore(db, opts);
  try {
    return await fn(store);
  } catch (err) {
    throw explainBusy(err, db);
  } finally {
    store.closeSync();
  }
}

/** Like withStore for commands that need only the Store interface (keys, accounts): SQLite or PostgreSQL. */
export async function withAnyStore<T>(db: string, opts: { mustExist?: boolean }, fn: (store: ServeStore) => T | Promise<T>): Promise<T> {
  if (opts.mustExist) requireExisting(db);
  const store = await openAnyStore(db);
  try {
    return await fn(store);
  } catch (err) {
    throw explainBusy(err, db);
  } finally {
    await store.close();
  }
}

/**
 * Use for seed and import into PostgreSQL: `fn` writes a temporary SQLite store with the usual
 * bulk writer, which is then merged into PostgreSQL with COPY in one transaction (all or nothing).
 * Returns fn's result and the merge's counts.
 */
export async function throughStaging<T>(url: string, ctx: CliContext, fn: (staging: SqliteStore) => T | Promise<T>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'msnap-staging-'));
  const file = path.join(dir, 'staging.db');
  try {
    const result = await withStore(file, { cacheMiB: 256 }, fn);
    const { loadSqliteIntoPostgres } = await import('../../store/copy/sqlite-to-postgres.js');
    let shown = '';
    const loaded = await loadSqliteIntoPostgres(file, url, {
      onProgress: (p) => {
        // One line per table as it starts: a load of millions of rows is not silent.
        if (p.table !== shown) ctx.stderr.write(`msnap: loading ${p.table} into ${storeName(url)} (${p.total.toLocaleString('en-US')} rows)\n`);
        shown = p.table;
      },
    });
    return { result, loaded };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Use around a write to the server's database: another process holding the write lock past the
 * busy timeout (a long import or seed) becomes one clear line instead of "unexpected error". */
export function explainBusy(err: unknown, db: string): unknown {
  if ((err as { code?: string } | null)?.code === 'SQLITE_BUSY') {
    return new DatabaseBusyError(`database ${db} is busy: another msnap process is writing to it (import, seed or keys); try again when it has finished`);
  }
  return err;
}
