// Opening the server's database from a `serve` subcommand: a path that cannot be opened (missing
// directory, a directory, not SQLite) is the user's input, so it is a one-line usage error.
// The store (and better-sqlite3) is loaded here, on first use, not when the CLI starts.
import { MsnapError, UsageError } from '../../errors.js';
import type { SqliteStore, SqliteStoreOptions } from '../../store/sqlite/sqlite-store.js';

/** Use in `serve seed|import|keys` instead of openSqliteStore: failures become UsageError (exit 2). */
export async function openServeStore(db: string, opts: SqliteStoreOptions = {}): Promise<SqliteStore> {
  const { openSqliteStore } = await import('../../store/sqlite/sqlite-store.js');
  try {
    return openSqliteStore(db, opts);
  } catch (err) {
    throw new UsageError(`cannot open database ${db}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Use around a write to the server's database: another process holding the write lock past the
 * busy timeout (a long import or seed) becomes one clear line instead of "unexpected error". */
export function explainBusy(err: unknown, db: string): unknown {
  if ((err as { code?: string } | null)?.code === 'SQLITE_BUSY') {
    return new MsnapError(`database ${db} is busy: another msnap process is writing to it (import, seed or keys); try again when it has finished`);
  }
  return err;
}
