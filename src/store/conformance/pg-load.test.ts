// Loading an SQLite store into PostgreSQL: all or nothing (a bad row or a connection killed midway
// leaves the target exactly as it was), idempotent (a second load adds nothing), and a merge that
// keeps what PostgreSQL holds while adding rows, details, accounts and keys it lacks.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throwawayDatabase, type ThrowawayDatabase } from '../../../test/support/throwaway-database.js';
import { skipWithoutPostgres } from '../../../test/support/throwaway-postgres.js';
import { marketId, marketStartCovering } from '../../domain/market.js';
import { seedDatabase } from '../seed/seed.js';
import { openSqliteStore } from '../sqlite/open.js';
import { openSql } from '../sqlite/test-support/sql.js';
import { StoreUnavailableError } from '../store.js';
import { loadSqliteIntoPostgres } from '../copy/sqlite-to-postgres.js';
import { openPgStore, type PgStore } from '../postgres/pg-store.js';
import { buildMixedSqliteStore, MIXED_NOW, OLD_MARKET } from './test-support/mixed-sqlite-store.js';

const NOW = MIXED_NOW;
const SMALL = { '5m': 2, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } as const;
const EARLY = NOW - 100_000;

/** Everything a reader sees of a store: counts and the whole market list. */
async function picture(s: PgStore): Promise<string> {
  const list = await s.listMarkets({ limit: 100_000, offset: 0, window: null, now: NOW });
  return JSON.stringify([await s.counts(), list, await s.listKeys()]);
}

describe.skipIf(skipWithoutPostgres('PostgreSQL load'))('loading an SQLite store into PostgreSQL', () => {
  let dir: string;
  let server: ThrowawayDatabase;
  let mixed: string;
  let seeded: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-pg-load-'));
    mixed = path.join(dir, 'mixed.db');
    (await buildMixedSqliteStore(dir, mixed)).close();
    seeded = path.join(dir, 'seeded.db');
    const s = openSqliteStore(seeded);
    await seedDatabase(s.bulk, { now: NOW - 3_600_000, days: 1, seed: 9, fullMarkets: SMALL, orderbookMs: 0 });
    s.close();
    server = await throwawayDatabase();
  }, 120_000);

  afterAll(async () => {
    await server?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a second load of the same file adds nothing', async () => {
    const store = await openPgStore(server.url, { schema: 'twice' });
    try {
      const first = await loadSqliteIntoPostgres(mixed, store);
      expect(first.marketsAdded).toBeGreaterThan(1000);
      expect(first.snapshotsAdded).toBeGreaterThan(100_000);
      const after = await picture(store);
      const again = await loadSqliteIntoPostgres(mixed, store);
      expect(again).toMatchObject({ marketsAdded: 0, marketsUpdated: first.marketsAdded, snapshotsAdded: 0, snapshotsSkipped: first.snapshotsAdded, orderbooksAdded: 0 });
      expect(await picture(store)).toBe(after);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('a bad row midway leaves the target exactly as it was', async () => {
    const store = await openPgStore(server.url, { schema: 'bad_row' });
    const broken = path.join(dir, 'broken.db');
    copyFileSync(mixed, broken);
    const db = openSql(broken);
    // A price that is no integer: the COPY of the last market's rows fails, long after the first ones went in.
    db.prepare('UPDATE snapshots SET price = 1.5 WHERE market = (SELECT max(market) FROM snapshots) AND t = 0').run();
    db.close();
    try {
      await loadSqliteIntoPostgres(seeded, store);
      const before = await picture(store);
      await expect(loadSqliteIntoPostgres(broken, store)).rejects.toThrow(/bigint|refused a row copied into load_snapshots/);
      expect(await picture(store)).toBe(before);
      expect(await store.getMarket(OLD_MARKET, NOW)).toBeUndefined();
    } finally {
      await store.close();
    }
  }, 120_000);

  it('a connection killed midway fails as unavailable, leaves nothing, and the store goes on', async () => {
    const store = await openPgStore(server.url, { schema: 'killed' });
    const admin = postgres(server.url, { max: 1, onnotice: () => undefined });
    try {
      await loadSqliteIntoPostgres(seeded, store);
      const before = await picture(store);
      let killed = 0;
      const load = loadSqliteIntoPostgres(mixed, store, {
        onProgress: async (p) => {
          if (p.table !== 'snapshots' || killed > 0) return;
          const rows = await admin`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'COPY load_snapshots%'`;
          killed = rows.length;
        },
      });
      await expect(load).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(killed).toBe(1);
      expect(await picture(store)).toBe(before);
    } finally {
      await admin.end();
      await store.close();
    }
  }, 120_000);

  it('merges: rows, details, accounts and keys it lacks are added; what it holds stays', async () => {
    const store = await openPgStore(server.url, { schema: 'merge' });
    // The earlier world: 100 s before NOW, its active market only partly written.
    const early = path.join(dir, 'early.db');
    const e = openSqliteStore(early);
    await seedDatabase(e.bulk, { now: EARLY, days: 1, seed: 9, fullMarkets: SMALL, orderbookMs: 0 });
    const acme = await e.createAccount({ name: 'acme', plan: 'pro', trialEndsAt: null, requestsPerMinute: null, burstPerSecond: null, createdAt: 1 });
    await e.createKey(acme.id, 'hash-k1', 'msk_k1', 2);
    e.close();
    // The later world: the same markets complete, acme on another plan with a second key, and a new account.
    const late = path.join(dir, 'late.db');
    const l = openSqliteStore(late);
    await seedDatabase(l.bulk, { now: NOW, days: 1, seed: 9, fullMarkets: SMALL, orderbookMs: 0 });
    const acme2 = await l.createAccount({ name: 'acme', plan: 'builder', trialEndsAt: 5, requestsPerMinute: null, burstPerSecond: null, createdAt: 3 });
    await l.createKey(acme2.id, 'hash-k1', 'msk_k1', 4);
    await l.createKey(acme2.id, 'hash-k2', 'msk_k2', 5);
    const newco = await l.createAccount({ name: 'newco', plan: 'pro', trialEndsAt: null, requestsPerMinute: null, burstPerSecond: null, createdAt: 6 });
    await l.createKey(newco.id, 'hash-k3', 'msk_k3', 7);
    await l.accountAuth.setPasswordHash(newco.id, 'scrypt$n', 8);
    await l.accountAuth.createSession({ tokenHash: 'tok', accountId: newco.id, csrf: 'c', createdAt: 8, expiresAt: NOW * 2 });
    try {
      await loadSqliteIntoPostgres(early, store);
      const halfId = marketId('BTC', '5m', marketStartCovering('5m', EARLY));
      const half = await store.getMarket(halfId, NOW);
      const lateMarket = await l.getMarket(halfId, NOW);
      expect(half!.snapshot_count).toBeLessThan(lateMarket!.snapshot_count);
      const earlyIds = JSON.parse((await store.snapshotPageJson(halfId, { limit: 10_000, offset: 0, includeOrderbook: false })).json) as { id: number }[];

      const earlyRows = (await store.counts()).snapshots;
      const all = { limit: 100_000, offset: 0, window: null, now: NOW };
      const held = new Map((await store.listMarkets(all)).markets.map((m) => [m.market_id, m.snapshot_count]));
      const counts = await loadSqliteIntoPostgres(late, store);
      // Both worlds hold the same rows where they overlap (a seed's values depend on the market
      // alone, and the earlier world's rows of a market are a prefix of the later one's).
      const lacking = (await l.listMarkets(all)).markets.reduce((n, m) => n + Math.max(0, m.snapshot_count - (held.get(m.market_id) ?? 0)), 0);
      expect(lacking).toBeGreaterThan(0);
      expect(counts.snapshotsAdded).toBe(lacking);
      expect((await store.counts()).snapshots).toBe(earlyRows + lacking);
      expect(counts).toMatchObject({ accountsAdded: 1, keysAdded: 2, sessionsAdded: 1 });

      // The market now answers as the later store does, its rows' values and summary alike.
      expect(JSON.stringify(await store.getMarket(halfId, NOW))).toBe(JSON.stringify(lateMarket));
      const strip = (json: string) => (JSON.parse(json) as { id: number }[]).map(({ id: _id, ...rest }) => rest);
      const page = { limit: 10_000, offset: 0, includeOrderbook: false };
      const mine = (await store.snapshotPageJson(halfId, page)).json;
      const theirs = (await l.snapshotPageJson(halfId, page)).json;
      expect(strip(mine)).toEqual(strip(theirs));
      // Rows it held keep their ids; rows it gained keep the ids the file gave them.
      const ids = (JSON.parse(mine) as { id: number }[]).map((s) => s.id);
      const lateIds = (JSON.parse(theirs) as { id: number }[]).map((s) => s.id);
      expect(ids.slice(0, earlyIds.length)).toEqual(earlyIds.map((s) => s.id));
      expect(ids.slice(earlyIds.length)).toEqual(lateIds.slice(earlyIds.length));
      expect(await store.nearestSnapshot(halfId, lateMarket!.end_time - 1)).toEqual(await l.nearestSnapshot(halfId, lateMarket!.end_time - 1));

      // acme keeps its plan and gains only the key it lacked; newco comes whole.
      expect((await store.getAccount('acme'))!.plan).toBe('pro');
      const acmeId = (await store.getAccount('acme'))!.id;
      expect((await store.accountAuth.keysOf(acmeId)).map((k) => k.prefix)).toEqual(['msk_k1', 'msk_k2']);
      const n = (await store.getAccount('newco'))!;
      expect((await store.findKeyByHash('hash-k3'))!.accountId).toBe(n.id);
      expect(await store.accountAuth.passwordHash(n.id)).toBe('scrypt$n');
      expect((await store.accountAuth.findSession('tok', NOW))!.accountId).toBe(n.id);
    } finally {
      l.close();
      await store.close();
    }
  }, 120_000);
});
