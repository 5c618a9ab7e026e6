// Using the server's store from the service and the `serve` commands: an SQLite file, or PostgreSQL
// by URL, opened through the injected StoreDeps (src/service/store-deps.ts). A path that cannot be
// opened is the user's input, so it is a one-line usage error, and another process holding the
// write lock is a DatabaseBusyError.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseBusyError, UnreachableError } from '../errors.js';
import type { BulkLoadStore } from '../store/bulk-store.js';
import { isPostgresUrl, storeName } from '../store/db-path.js';
import { diskFullError } from '../store/disk-full.js';
import type { RecordWrites } from '../store/record-writes.js';
import { StoreUnavailableError } from '../store/store.js';
import type { StoreDeps } from './store-deps.js';

/** Use in the `serve` admin commands: awaits the store `opening`, runs `fn`, explains a busy database or a full disk, always closes. */
export async function usingStore<S extends { close(): Promise<void> }, T>(opening: Promise<S>, db: string, fn: (store: S) => T | Promise<T>): Promise<T> {
  const store = await opening;
  try {
    return await fn(store);
  } catch (err) {
    throw explainStoreError(err, db);
  } finally {
    await store.close();
  }
}

/**
 * Use for a real-data import (archive hours, the recorder's raw files): the store's RecordWrites
 * port, SQLite's bulk writer (a large page cache) or PostgreSQL's record writer, each batch one
 * transaction in the store itself; closed after `fn` as usingStore closes.
 */
export async function usingRecordWrites<T>(db: string, deps: Pick<StoreDeps, 'openStore' | 'openBulkStore'>, fn: (writes: RecordWrites) => Promise<T>): Promise<T> {
  if (isPostgresUrl(db)) return usingStore(deps.openStore(db), db, (store) => fn(store.recordWrites()));
  return usingStore(deps.openBulkStore(db, { cacheMiB: 256 }), db, (store) => fn(store.bulk));
}

/**
 * Use for seed into PostgreSQL: `fn` writes a temporary SQLite store with the usual
 * bulk writer, which is then merged into PostgreSQL with COPY in one transaction (all or nothing).
 * Returns fn's result and the merge's counts.
 */
export async function throughStaging<T>(
  url: string,
  deps: Pick<StoreDeps, 'openBulkStore'> & { writeErr(text: string): void },
  fn: (staging: BulkLoadStore) => T | Promise<T>,
) {
  const dir = mkdtempSync(path.join(tmpdir(), 'msnap-staging-'));
  const file = path.join(dir, 'staging.db');
  try {
    const result = await usingStore(deps.openBulkStore(file, { cacheMiB: 256 }), file, fn);
    const { loadSqliteIntoPostgres } = await import('../store/copy/sqlite-to-postgres.js');
    let shown = '';
    const loaded = await loadSqliteIntoPostgres(file, url, {
      onProgress: (p) => {
        // One line per table as it starts: a load of millions of rows is not silent.
        if (p.table !== shown) deps.writeErr(`msnap: loading ${p.table} into ${storeName(url)} (${p.total.toLocaleString('en-US')} rows)\n`);
        shown = p.table;
      },
    });
    return { result, loaded };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Use around a write to the server's database: another process holding the write lock past the
 * busy timeout (a long import or seed), PostgreSQL lost midway, or a full disk, becomes one clear
 * line and its exit code instead of "unexpected error". */
export function explainStoreError(err: unknown, db: string): unknown {
  if (err instanceof StoreUnavailableError) return new UnreachableError(err.message.replace(/\s+/g, ' '));
  if ((err as { code?: string } | null)?.code === 'SQLITE_BUSY') {
    return new DatabaseBusyError(`database ${db} is busy: another msnap process is writing to it (import, seed or keys); try again when it has finished`);
  }
  return diskFullError(err, db) ?? err;
}
