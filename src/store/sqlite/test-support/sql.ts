// Tests look at (and tamper with) a store's rows with plain SQL; the store keeps its connection
// private, so a test either opens the file a second time or builds the store on its own connection.
import Database from 'better-sqlite3';
import { openDatabase } from '../open.js';
import { SqliteStore } from '../sqlite-store.js';

/** Use in tests to query a store's file over a second connection (committed data only); close it before removing the file. */
export function openSql(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  return db;
}

/** Use in tests that must see a transaction's uncommitted rows: a new store and the very connection it uses. */
export function openStoreWithSql(file: string): { store: SqliteStore; sql: Database.Database } {
  const { db } = openDatabase(file);
  return { store: new SqliteStore(db), sql: db };
}
