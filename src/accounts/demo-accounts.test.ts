import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite/open.js';
import type { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { hashApiKey } from './api-key.js';
import { DEMO_ACCOUNTS, ensureDemoKeys } from './demo-accounts.js';

const NOW = Date.UTC(2025, 10, 22, 12);
let dir: string;
let store: SqliteStore;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-demo-'));
  store = openSqliteStore(path.join(dir, 'd.db'));
});
afterEach(async () => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ensureDemoKeys', () => {
  it('gives each demo account one working key, and none while it still has an active one', async () => {
    const first = await ensureDemoKeys(store, NOW);
    expect(first.map((d) => [d.account, d.plan])).toEqual([
      ['demo-builder', 'builder'],
      ['demo-pro', 'pro'],
    ]);
    for (const d of first) {
      expect(d.key).toMatch(/^msk_[0-9A-Za-z]{40}$/);
      const record = await store.findKeyByHash(hashApiKey(d.key!));
      expect((await store.getAccountById(record!.accountId))).toMatchObject({ name: d.account, plan: d.plan, trialEndsAt: null });
    }
    expect((await ensureDemoKeys(store, NOW + 1))).toEqual(DEMO_ACCOUNTS.map((a) => ({ ...a, key: undefined })));
    // Once its key is revoked, the account gets a new one; the other keeps what it has.
    const pro = (await store.listKeys()).find((k) => k.account.name === 'demo-pro')!;
    await store.revokeKey(pro.id, NOW + 2);
    const third = await ensureDemoKeys(store, NOW + 3);
    expect(third[0]!.key).toBeUndefined();
    expect(third[1]!.key).toMatch(/^msk_[0-9A-Za-z]{40}$/);
    expect(third[1]!.key).not.toBe(first[1]!.key);
    expect((await store.listKeys())).toHaveLength(3);
  });
});
