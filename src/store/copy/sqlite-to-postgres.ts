// The one place that knows both SQL backends: an SQLite file's dump loaded into PostgreSQL, so
// sqlite/ and postgres/ never import each other.
import Database from 'better-sqlite3';
import { loadDumpIntoPostgres, type LoadCounts, type LoadOptions } from '../postgres/pg-load.js';
import type { PgStore } from '../postgres/pg-store.js';
import { StoreDump } from '../sqlite/store-dump.js';

/**
 * Use to copy the SQLite store at `sqlitePath` into a PostgreSQL store (an open PgStore, or a URL:
 * opened, migrated and closed there). All or nothing; throws StoreUnavailableError when the
 * database goes away midway.
 */
export async function loadSqliteIntoPostgres(sqlitePath: string, target: PgStore | string, opts: LoadOptions = {}): Promise<LoadCounts> {
  const db = new Database(sqlitePath, { readonly: true, fileMustExist: true });
  try {
    return await loadDumpIntoPostgres(new StoreDump(db), target, opts);
  } finally {
    db.close();
  }
}
