import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MsnapError } from '../../errors.js';
import { explainBusy, openServeStore } from './serve-store.js';

describe('explainBusy', () => {
  it('turns a real SQLITE_BUSY from a second writer into one clear line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'msnap-busy-'));
    const db = path.join(dir, 'busy.db');
    const store = await openServeStore(db);
    store.close();
    const holder = new Database(db);
    holder.exec('BEGIN IMMEDIATE');
    const other = await openServeStore(db);
    try {
      other.db.pragma('busy_timeout = 0');
      let caught: unknown;
      try {
        other.transaction(() => undefined);
      } catch (err) {
        caught = explainBusy(err, db);
      }
      expect(caught).toBeInstanceOf(MsnapError);
      expect((caught as Error).message).toBe(`database ${db} is busy: another msnap process is writing to it (import, seed or keys); try again when it has finished`);
    } finally {
      other.close();
      holder.exec('ROLLBACK');
      holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes every other error through unchanged', () => {
    const err = new Error('disk I/O error');
    expect(explainBusy(err, 'x.db')).toBe(err);
  });
});
