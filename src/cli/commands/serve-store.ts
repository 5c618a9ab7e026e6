// Opening the server's database from a `serve` command: a path that cannot be opened (missing
// directory, a directory, not SQLite) is the user's input, so it is a one-line usage error, and
// another process holding the write lock is a DatabaseBusyError. The store (and better-sqlite3)
// is loaded here, on first use, not when the CLI starts.
import { existsSync } from 'node:fs';
import { DatabaseBusyError, UsageError } from '../../errors.js';
import type { SqliteStoreOptions } from '../../store/sqlite/open.js';
import type { SqliteStore } from '../../store/sqlite/sqlite-store.js';

/** Use in `serve` itself, which keeps the store open while it serves: failures become UsageError (exit 2). */
export async function openServeStore(db: string, opts: SqliteStoreOptions = {}): Promise<SqliteStore> {
  const { openSqliteStore } = await import('../../store/sqlite/open.js');
  try {
    return openSqliteStore(db, opts);
  } catch (err) {
    throw new UsageError(`cannot open database ${db}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Use before a command that only reads or changes what is there: a typo must not create a database. */
export function requireExisting(db: string): void {
  if (!existsSync(db)) {
    throw new UsageError(`no database at ${db}`, 'check --db (or MSNAP_DB); msnap serve seed or msnap serve --demo creates one');
  }
}

/**
 * Use in every `serve` subcommand: opens `db`, runs `fn`, explains a busy database, always closes.
 * `mustExist` for commands that make no sense on a new file (keys list, revoke).
 */
export async function withStore<T>(
  db: string,
  opts: SqliteStoreOptions & { mustExist?: boolean },
  fn: (store: SqliteStore) => T | Promise<T>,
): Promise<T> {
  if (opts.mustExist) requireExisting(db);
  const store = await openServeStore(db, opts);
  try {
    return await fn(store);
  } catch (err) {
    throw explainBusy(err, db);
  } finally {
    store.close();
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
