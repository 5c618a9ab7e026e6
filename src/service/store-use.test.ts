import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DatabaseBusyError, EXIT, UsageError } from '../errors.js';
import { openBulkStore, openSqliteFile } from '../store/open-store.js';
import { explainStoreError, usingStore } from './store-use.js';

const BUSY = (db: string) =>
  `database ${db} is busy: another msnap process is writing to it (import, seed or keys); try again when it has finished`;

describe('explainStoreError', () => {
  it('turns a real SQLITE_BUSY from a second writer into one clear line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'msnap-busy-'));
    const db = path.join(dir, 'busy.db');
    const store = await openSqliteFile(db);
    store.close();
    const holder = new Database(db);
    holder.exec('BEGIN IMMEDIATE');
    const other = await openSqliteFile(db, { busyTimeoutMs: 0 });
    try {
      let caught: unknown;
      try {
        await other.transaction(async () => undefined);
      } catch (err) {
        caught = explainStoreError(err, db);
      }
      expect(caught).toBeInstanceOf(DatabaseBusyError);
      expect((caught as DatabaseBusyError).exitCode).toBe(EXIT.busy);
      expect((caught as Error).message).toBe(BUSY(db));
    } finally {
      other.close();
      holder.exec('ROLLBACK');
      holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes every other error through unchanged', async () => {
    const err = new Error('disk I/O error');
    expect(explainStoreError(err, 'x.db')).toBe(err);
  });
});

describe('usingStore', () => {
  it('closes the store after fn, also when fn throws, and explains a busy database', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'msnap-with-'));
    const db = path.join(dir, 'w.db');
    try {
      expect(await usingStore(openBulkStore(db), db, async (store) => (await store.listKeys()).length)).toBe(0);
      // The last connection closing removes the WAL file: nothing was left open.
      expect(existsSync(`${db}-wal`)).toBe(false);
      const holder = new Database(db);
      holder.exec('BEGIN IMMEDIATE');
      try {
        await expect(usingStore(openBulkStore(db, { busyTimeoutMs: 0 }), db, (store) => store.transaction(async () => 1))).rejects.toThrow(
          new DatabaseBusyError(BUSY(db)),
        );
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      await expect(usingStore(openBulkStore(db), db, () => Promise.reject(new UsageError('nope')))).rejects.toThrow('nope');
      expect(existsSync(`${db}-wal`)).toBe(false);
      await expect(usingStore(openBulkStore(path.join(dir, 'missing', 'x.db')), 'x.db', () => 1)).rejects.toThrow(
        /^cannot open database .*x\.db: Cannot open database because the directory does not exist$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
