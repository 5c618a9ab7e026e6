// Account names are unique without regard to case, in a new database and after the migration of
// one that already holds look-alikes; a new database file is private to its owner.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations.js';
import { openSqliteStore } from './open.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-names-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const account = (name: string) => ({ name, plan: 'builder' as const, trialEndsAt: null, requestsPerMinute: null, burstPerSecond: null, createdAt: 1 });

describe('account names', () => {
  it('are found and kept unique without regard to case', async () => {
    const store = openSqliteStore(path.join(dir, 'n.db'));
    try {
      const made = await store.createAccount(account('SecUser1'));
      expect((await store.getAccount('secuser1'))?.id).toBe(made.id);
      await expect(store.createAccount(account('secuser1'))).rejects.toThrow(/UNIQUE/);
    } finally {
      store.close();
    }
  });

  it('the migration renames existing look-alikes after the oldest ("-<id>") and then holds them unique', async () => {
    const file = path.join(dir, 'old.db');
    const old = new Database(file);
    const unique = MIGRATIONS.find((m) => m.description.startsWith('account names unique'))!;
    const before = MIGRATIONS.filter((m) => m.version < unique.version);
    for (const m of before) old.exec(m.sql);
    old.pragma(`user_version = ${before.at(-1)!.version}`);
    const insert = old.prepare("INSERT INTO accounts (name, plan, created_at) VALUES (?, 'builder', 1)");
    for (const name of ['Bob', 'bob', 'BOB', 'alice']) insert.run(name);
    old.close();
    const store = openSqliteStore(file);
    try {
      const raw = new Database(file, { readonly: true });
      const names = (raw.prepare('SELECT name FROM accounts ORDER BY id').all() as { name: string }[]).map((r) => r.name);
      raw.close();
      expect(names).toEqual(['Bob', 'bob-2', 'BOB-3', 'alice']);
      expect((await store.getAccount('BOB'))?.name).toBe('Bob');
      await expect(store.createAccount(account('ALICE'))).rejects.toThrow(/UNIQUE/);
    } finally {
      store.close();
    }
  });

  it('a new database file (and its WAL) is readable by its owner only', () => {
    const file = path.join(dir, 'private.db');
    openSqliteStore(file).close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
