// Opening the database: connection settings, the schema migrations, and the one-off block build
// for a database written before the dense block cache existed.
import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';
import { SqliteStore } from './sqlite-store.js';

/** Options for openSqliteStore. */
export interface SqliteStoreOptions {
  /** Open without writing (no migrations run; the schema must exist). */
  readonly?: boolean;
  /** Page cache in MiB (default 64); seed and import benefit from more. */
  cacheMiB?: number;
  /** How long a write waits for another process's write lock before SQLITE_BUSY (default 5000). */
  busyTimeoutMs?: number;
}

/** The migration that added snapshot_blocks. */
const BLOCKS_VERSION = 2;

/** Use to open (and create or migrate) the database the server and the subcommands share. */
export function openSqliteStore(path: string, opts: SqliteStoreOptions = {}): SqliteStore {
  const { db, versionBefore } = openDatabase(path, opts);
  const store = new SqliteStore(db);
  // A database from before the blocks migration holds dense markets without blocks: build them once.
  if (!opts.readonly && versionBefore >= 1 && versionBefore < BLOCKS_VERSION) store.bulk.rebuildBlocks();
  return store;
}

/** The connection openSqliteStore builds its store on, configured and migrated, with the schema version it had. */
export function openDatabase(path: string, opts: SqliteStoreOptions = {}): { db: Database.Database; versionBefore: number } {
  if (!opts.readonly) createPrivate(path);
  const db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  db.pragma(`cache_size = -${Math.round((opts.cacheMiB ?? 64) * 1024)}`);
  db.pragma(`busy_timeout = ${Math.max(0, Math.round(opts.busyTimeoutMs ?? 5000))}`);
  const versionBefore = db.pragma('user_version', { simple: true }) as number;
  if (!opts.readonly) migrate(db);
  return { db, versionBefore };
}

/**
 * A new database file is made readable by its owner only (0600): it holds password and key
 * hashes. SQLite gives its -wal and -shm files the database file's mode.
 */
function createPrivate(path: string): void {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch {
    // Already there (its mode is the operator's), or not creatable: better-sqlite3 reports that.
  }
}

/** Applies every migration the database has not seen, each in its own transaction. */
export function migrate(db: Database.Database): number {
  let version = db.pragma('user_version', { simple: true }) as number;
  const latest = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
  if (version > latest) {
    throw new Error(`database schema version ${version} is newer than this msnap understands (${latest})`);
  }
  for (const m of MIGRATIONS) {
    if (m.version <= version) continue;
    // Re-read the version under the write lock: another process may have opened the same new
    // database at the same moment and applied this migration first.
    version = db.transaction(() => {
      const current = db.pragma('user_version', { simple: true }) as number;
      if (current >= m.version) return current;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
      return m.version;
    }).immediate();
  }
  return version;
}
