import { mkdtempSync, readFileSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { ENTERPRISE_DEFAULT_LIMITS, KEY_ROTATION_MS, PLANS, TRIAL_LENGTH_MS } from '../domain/plans.js';
import { openSqliteStore } from '../store/sqlite/open.js';
import type { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { openSql } from '../store/sqlite/test-support/sql.js';
import { generateApiKey, hashApiKey, keyPrefix } from './api-key.js';
import { createApiKey } from './create-key.js';
import { keyStatus, needsRotation } from './key-status.js';

const NOW = Date.UTC(2025, 10, 22);
let dir: string;
let store: SqliteStore;
beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-keys-'));
  store = openSqliteStore(path.join(dir, 'k.db'));
});
afterEach(async () => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('api keys', () => {
  it('look like msk_ + 40 base62 characters and differ every time', async () => {
    const a = generateApiKey();
    expect(a).toMatch(/^msk_[0-9A-Za-z]{40}$/);
    expect(generateApiKey()).not.toBe(a);
    expect(hashApiKey(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(keyPrefix(a)).toBe(a.slice(0, 8));
  });

  it('creates the account on first use and needs a plan or trial for it', async () => {
    await expect(createApiKey(store, { account: 'bob', now: NOW })).rejects.toThrow(UsageError);
    const k = await createApiKey(store, { account: 'bob', plan: 'pro', now: NOW });
    expect(k.accountCreated).toBe(true);
    expect((await store.findKeyByHash(hashApiKey(k.key)))).toMatchObject({ id: k.record.id, accountId: k.account.id });
    const k2 = await createApiKey(store, { account: 'bob', now: NOW + 1 });
    expect(k2.accountCreated).toBe(false);
    await expect(createApiKey(store, { account: 'bob', plan: 'builder', now: NOW })).rejects.toThrow(/is on the pro plan/);
  });

  it('refuses a key beyond the plan limit; revoked keys do not count', async () => {
    const max = PLANS.builder.maxActiveKeys!;
    const made = [];
    for (let i = 0; i < max; i++) made.push((await createApiKey(store, { account: 'a', plan: 'builder', now: NOW + i })));
    await expect(createApiKey(store, { account: 'a', now: NOW + 10 })).rejects.toThrow(/already has 3 active keys, the most the builder plan allows \(3\)/);
    await store.revokeKey(made[0]!.record.id, NOW + 11);
    expect((await createApiKey(store, { account: 'a', now: NOW + 12 })).record.id).toBeGreaterThan(0);
    for (let i = 0; i < 12; i++) (await createApiKey(store, { account: 'e', plan: 'enterprise', now: NOW }));
    expect((await store.countActiveKeys((await store.getAccount('e'))!.id, NOW))).toBe(12);
  });

  it('makes trials builder accounts that end after 3 days, and enterprise limits', async () => {
    const t = await createApiKey(store, { account: 't', trial: true, now: NOW });
    expect(t.account).toMatchObject({ plan: 'builder', trialEndsAt: NOW + TRIAL_LENGTH_MS });
    expect(keyStatus(t.record, t.account, NOW + TRIAL_LENGTH_MS - 1)).toBe('active');
    expect(keyStatus(t.record, t.account, NOW + TRIAL_LENGTH_MS)).toBe('trial ended');
    await expect(createApiKey(store, { account: 'x', trial: true, plan: 'pro', now: NOW })).rejects.toThrow(UsageError);
    await expect(createApiKey(store, { account: 'y', plan: 'pro', rpm: 10, now: NOW })).rejects.toThrow(/enterprise/);
    const e = await createApiKey(store, { account: 'e', plan: 'enterprise', now: NOW });
    expect(e.account).toMatchObject({ requestsPerMinute: ENTERPRISE_DEFAULT_LIMITS.requestsPerMinute, burstPerSecond: ENTERPRISE_DEFAULT_LIMITS.burstPerSecond });
    const c = await createApiKey(store, { account: 'c', plan: 'enterprise', rpm: 100, burst: 7, now: NOW });
    expect((await store.getAccount('c'))).toMatchObject({ requestsPerMinute: 100, burstPerSecond: 7 });
    expect(needsRotation(c.record, NOW + KEY_ROTATION_MS - 1)).toBe(false);
    expect(needsRotation(c.record, NOW + KEY_ROTATION_MS)).toBe(true);
  });

  it('never writes the key itself to the database files', async () => {
    const keys: string[] = [];
    for (const i of [1, 2, 3]) keys.push((await createApiKey(store, { account: `u${i}`, plan: 'pro', now: NOW })).key);
    const sql = openSql(path.join(dir, 'k.db'));
    sql.pragma('wal_checkpoint(TRUNCATE)');
    sql.close();
    const bytes = readdirSync(dir).map((f) => readFileSync(path.join(dir, f)).toString('latin1')).join('');
    for (const k of keys) {
      expect(bytes).not.toContain(k);
      expect(bytes).not.toContain(k.slice(4));
      expect(bytes).toContain(hashApiKey(k));
    }
  });
});
