// Accounts, keys, passwords and sessions on PostgreSQL behave as on SQLite (one scripted sequence
// run on both, every answer compared), and store transactions are atomic and serialised: a failed
// one leaves nothing, and concurrent check-then-create from two instances never passes a key cap.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throwawayDatabase, type ThrowawayDatabase } from '../../../test/support/throwaway-database.js';
import { skipWithoutPostgres } from '../../../test/support/throwaway-postgres.js';
import { openSqliteStore } from '../sqlite/open.js';
import type { SqliteStore } from '../sqlite/sqlite-store.js';
import { openSql } from '../sqlite/test-support/sql.js';
import type { Store } from '../store.js';
import { openPgStore, type PgStore } from '../postgres/pg-store.js';

const NOW = Date.UTC(2025, 10, 22, 12, 0, 0);
const HOUR = 3_600_000;
let dir: string;
let server: ThrowawayDatabase;
let lite: SqliteStore;
let liteSql: Database.Database;
let pg: PgStore;

/** The same calls on a store; every answer (and a raw look at what expiry leaves) goes in the log. */
async function script(s: Store, setExpiry: (keyId: number, at: number) => Promise<void>, sessionCount: () => Promise<number>): Promise<unknown[]> {
  const log: unknown[] = [];
  const note = (v: unknown) => log.push(v === undefined ? 'undefined' : v);
  const names = ['bob_1', 'Zed', 'alice', 'bob-2', 'Émile'];
  const ids: number[] = [];
  for (const [i, name] of names.entries()) {
    const a = await s.createAccount({
      name,
      plan: i === 1 ? 'pro' : i === 2 ? 'enterprise' : 'builder',
      trialEndsAt: i === 0 ? NOW + 72 * HOUR : null,
      requestsPerMinute: i === 2 ? 5000 : null,
      burstPerSecond: i === 2 ? 90 : null,
      createdAt: NOW + i,
    });
    note(a);
    ids.push(a.id);
  }
  note(await s.getAccount('alice'));
  note(await s.getAccount('ALICE'));
  note(await s.getAccountById(ids[3]!));
  note(await s.getAccountById(9999));
  const keys = [];
  for (let i = 0; i < 5; i++) keys.push(await s.createKey(ids[i % 2]!, `hash-${i}`, `msk_${i}`, NOW + i * HOUR, i % 2 ? `bot ${i}` : null));
  note(keys);
  note(await s.findKeyByHash('hash-3'));
  note(await s.findKeyByHash('nope'));
  note(await s.findKeyWithAccount('hash-3'));
  note(await s.findKeyWithAccount('nope'));
  // A key's last use: written, then not again within the interval, then again after it.
  note(await s.touchKey(keys[1]!.id, NOW + 5 * HOUR, 60_000));
  note(await s.touchKey(keys[1]!.id, NOW + 5 * HOUR + 59_999, 60_000));
  note(await s.touchKey(keys[1]!.id, NOW + 5 * HOUR + 60_000, 60_000));
  note(await s.touchKey(9999, NOW, 60_000));
  const touched = await s.findKeyByHash('hash-1');
  if (touched?.lastUsedAt !== NOW + 5 * HOUR + 60_000 || touched.name !== 'bot 1') throw new Error(`touchKey or the key name went wrong: ${JSON.stringify(touched)}`);
  note(touched);
  note(await s.countActiveKeys(ids[0]!, NOW + 10 * HOUR));
  note(await s.revokeKey(keys[0]!.id, NOW + 11 * HOUR));
  note(await s.revokeKey(keys[0]!.id, NOW + 12 * HOUR));
  note(await s.revokeKey(9999, NOW));
  await setExpiry(keys[2]!.id, NOW + 20 * HOUR);
  note(await s.countActiveKeys(ids[0]!, NOW + 20 * HOUR - 1));
  note(await s.countActiveKeys(ids[0]!, NOW + 20 * HOUR));
  note(await s.findKeyByHash('hash-2'));
  // Revoked and expired keys come back with their account, as they are (authenticate refuses them).
  note(await s.findKeyWithAccount('hash-2'));
  note(await s.findKeyWithAccount('hash-0'));
  note(await s.listKeys());

  const auth = s.accountAuth;
  note(await auth.passwordHash(ids[0]!));
  await auth.setPasswordHash(ids[0]!, 'scrypt$1', NOW);
  note(await auth.passwordHash(ids[0]!));
  for (const [i, token] of ['t-live', 't-old', 't-older', 't-other'].entries()) {
    await auth.createSession({ tokenHash: token, accountId: ids[i === 3 ? 1 : 0]!, csrf: `c${i}`, createdAt: NOW, expiresAt: NOW + (i === 0 || i === 3 ? 10 : 1 + i) * HOUR });
  }
  note(await auth.findSession('t-live', NOW + 2 * HOUR));
  note(await sessionCount());
  // An expired session is not found, and every expired one goes with it.
  note(await auth.findSession('t-old', NOW + 5 * HOUR));
  note(await sessionCount());
  note(await auth.findSession('t-older', NOW + 5 * HOUR));
  await auth.deleteSession('t-other');
  note(await sessionCount());
  // A new password ends the account's sessions.
  await auth.setPasswordHash(ids[0]!, 'scrypt$2', NOW + HOUR);
  note(await auth.findSession('t-live', NOW + 2 * HOUR));
  note(await auth.passwordHash(ids[0]!));
  note(await auth.setPlan(ids[0]!, { plan: 'pro', trialEndsAt: null, requestsPerMinute: null, burstPerSecond: null }));
  note(await auth.setPlan(9999, { plan: 'pro', trialEndsAt: null, requestsPerMinute: null, burstPerSecond: null }));
  note(await auth.keysOf(ids[0]!));
  note(await auth.keysOf(9999));
  note(await auth.listAccounts());
  return log;
}

describe.skipIf(skipWithoutPostgres('PostgreSQL accounts and transactions'))('PostgreSQL accounts and transactions', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-pg-acct-'));
    const file = path.join(dir, 'a.db');
    lite = openSqliteStore(file);
    liteSql = openSql(file);
    server = await throwawayDatabase();
    pg = await openPgStore(server.url, { schema: 'accounts_test' });
  }, 60_000);

  afterAll(async () => {
    await pg?.close();
    await server?.destroy();
    liteSql?.close();
    lite?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the scripted account, key, password and session sequence exactly as SQLite', async () => {
    const fromLite = await script(
      lite,
      async (id, at) => void liteSql.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run(at, id),
      async () => liteSql.prepare('SELECT count(*) FROM sessions').pluck().get() as number,
    );
    const fromPg = await script(
      pg,
      async (id, at) => void (await pg.sql`UPDATE api_keys SET expires_at = ${at} WHERE id = ${id}`),
      async () => (await pg.sql<{ n: number }[]>`SELECT count(*) AS n FROM sessions`)[0]!.n,
    );
    expect(fromPg.length).toBeGreaterThan(30);
    for (let i = 0; i < fromLite.length; i++) expect(JSON.stringify(fromPg[i]), `step ${i}`).toBe(JSON.stringify(fromLite[i]));
    expect(fromPg.length).toBe(fromLite.length);
  });

  it('a transaction that throws leaves nothing behind', async () => {
    const before = await pg.counts();
    await expect(
      pg.transaction(async (tx) => {
        const a = await tx.createAccount({ name: 'ghost', plan: 'builder', trialEndsAt: null, requestsPerMinute: null, burstPerSecond: null, createdAt: NOW });
        await tx.createKey(a.id, 'ghost-hash', 'msk_g', NOW);
        await tx.accountAuth.setPasswordHash(a.id, 'scrypt$g', NOW);
        expect(await tx.getAccount('ghost')).toBeDefined();
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await pg.getAccount('ghost')).toBeUndefined();
    expect(await pg.findKeyByHash('ghost-hash')).toBeUndefined();
    expect(await pg.counts()).toEqual(before);
  });

  it('check-then-create transactions from two instances at once never pass the key cap', async () => {
    const other = await openPgStore(server.url, { schema: 'accounts_test' });
    try {
      const account = await pg.createAccount({ name: 'capped', plan: 'builder', trialEndsAt: null, requestsPerMinute: null, burstPerSecond: null, createdAt: NOW });
      const CAP = 3;
      const attempt = (s: PgStore, i: number) =>
        s.transaction(async (tx) => {
          const active = await tx.countActiveKeys(account.id, NOW);
          // Time between the check and the write, in which an unserialised rival would also pass the check.
          await (tx as PgStore).sql`SELECT pg_sleep(0.05)`;
          if (active >= CAP) throw new Error('cap reached');
          return tx.createKey(account.id, `capped-${i}`, `msk_c${i}`, NOW);
        });
      const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => attempt(i % 2 === 0 ? pg : other, i)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(CAP);
      expect(await pg.countActiveKeys(account.id, NOW)).toBe(CAP);
    } finally {
      await other.close();
    }
  });
});
