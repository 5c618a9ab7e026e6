// The PostgreSQL store against the SQLite store on the same data (a mixed SQLite store loaded into a
// throwaway PostgreSQL): every read must give the very same answer, strings byte for byte and
// market objects down to the order of their fields (they are JSON.stringify'd as they come).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COINS, MARKET_STATUSES, MARKET_TYPES, type Coin, type MarketStatus, type MarketType, type ServedMarket } from '../../domain/market.js';
import { PLANS, type DataWindow } from '../../domain/plans.js';
import { coinSnapshotFormat } from '../../server/dialects/v2.js';
import { throwawayDatabase, type ThrowawayDatabase } from '../../../test/support/throwaway-database.js';
import { skipWithoutPostgres } from '../../../test/support/throwaway-postgres.js';
import type { SqliteStore } from '../sqlite/sqlite-store.js';
import { V1_SNAPSHOT_FORMAT, type MarketQuery, type SnapshotFormat, type SnapshotQuery } from '../store.js';
import { loadSqliteIntoPostgres } from '../copy/sqlite-to-postgres.js';
import { openPgStore, type PgStore } from '../postgres/pg-store.js';
import { buildMixedSqliteStore, MIXED_NOW, ODD_MARKET, OLD_MARKET } from './test-support/mixed-sqlite-store.js';

let dir: string;
let server: ThrowawayDatabase;
let lite: SqliteStore;
let pg: PgStore;
let all: ServedMarket[];

/** Calls the same read on both stores and records where the answers differ (as JSON text). */
class Differ {
  readonly diffs: string[] = [];
  calls = 0;
  async same(what: string, read: (s: SqliteStore | PgStore) => unknown): Promise<void> {
    this.calls++;
    const a = JSON.stringify(await read(lite));
    const b = JSON.stringify(await read(pg));
    if (a !== b) this.diffs.push(`${what}\n  sqlite:   ${a?.slice(0, 400)}\n  postgres: ${b?.slice(0, 400)}`);
  }
}

describe.skipIf(skipWithoutPostgres('PostgreSQL store conformance'))('PostgreSQL store answers as the SQLite store', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-pg-conf-'));
    const file = path.join(dir, 'mixed.db');
    lite = await buildMixedSqliteStore(dir, file);
    server = await throwawayDatabase();
    pg = await openPgStore(server.url);
    await loadSqliteIntoPostgres(file, pg);
    all = (await lite.listMarkets({ limit: 100_000, offset: 0, window: null, now: MIXED_NOW })).markets;
  }, 120_000);

  afterAll(async () => {
    await pg?.close();
    await server?.destroy();
    lite?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loads a store worth comparing: every kind of market is there', () => {
    expect(all.length).toBeGreaterThan(1000);
    expect(all.some((m) => m.market_id === ODD_MARKET && m.event_id === 'ev-1')).toBe(true);
    expect(all.some((m) => m.market_id === OLD_MARKET)).toBe(true);
    expect(all.some((m) => m.status === 'active')).toBe(true);
    expect(all.filter((m) => m.snapshot_count >= 28_800).length).toBeGreaterThan(0);
  });

  it('holds ids off their pattern in dense and in other markets, and ids by slot and by ms', async () => {
    const [row] = await pg.sql<{ dense: number; sparse: number; slots: number; perMs: number }[]>`
      SELECT count(*) FILTER (WHERE id_exceptions > 0 AND dense) AS dense, count(*) FILTER (WHERE id_exceptions > 0 AND NOT dense) AS sparse,
             count(*) FILTER (WHERE id_step IS NOT NULL) AS slots, count(*) FILTER (WHERE id_step IS NULL AND snapshot_count > 0) AS "perMs"
      FROM markets`;
    expect(row).toEqual({ dense: 1, sparse: 1, slots: 2, perMs: expect.any(Number) });
    expect(JSON.parse((await pg.snapshotPageJson('btc-updown-5m-1763816400', { limit: 3, offset: 0, includeOrderbook: false })).json).map((s: { id: number }) => s.id)).toEqual([
      42,
      expect.any(Number),
      4242,
    ]);
  });

  it('lists markets alike for every filter, window, page and range', async () => {
    const d = new Differ();
    const small: DataWindow = { '5m': 10, '15m': 3, '1hr': 2, '4hr': 1, '24hr': 0 };
    const windows: DataWindow[] = [null, PLANS.builder.dataWindow, small];
    const pages: [number, number][] = [[100, 0], [5, 3], [1000, 0], [10, 100_000], [1, 287]];
    const coins: (Coin | undefined)[] = [undefined, ...COINS];
    const types: (MarketType | undefined)[] = [undefined, ...MARKET_TYPES];
    const statuses: (MarketStatus | undefined)[] = [undefined, ...MARKET_STATUSES];
    for (const coin of coins) {
      for (const marketType of types) {
        for (const status of statuses) {
          for (const window of windows) {
            for (const [limit, offset] of pages) {
              const q: MarketQuery = { coin, marketType, status, window, limit, offset, now: MIXED_NOW };
              await d.same(`listMarkets ${JSON.stringify(q)}`, (s) => s.listMarkets(q));
            }
          }
        }
      }
    }
    const ranges: [number | undefined, number | undefined][] = [
      [MIXED_NOW - 6 * 3_600_000, undefined],
      [undefined, MIXED_NOW - 6 * 3_600_000],
      [MIXED_NOW - 3 * 3_600_000, MIXED_NOW - 3_600_000],
      [0, 1],
      [MIXED_NOW, MIXED_NOW],
    ];
    for (const [startFrom, startBefore] of ranges) {
      for (const coin of [undefined, 'ETH'] as const) {
        for (const window of windows) {
          const q: MarketQuery = { coin, startFrom, startBefore, window, limit: 50, offset: 2, now: MIXED_NOW };
          await d.same(`listMarkets ${JSON.stringify(q)}`, (s) => s.listMarkets(q));
        }
      }
    }
    // Another clock: other markets are active.
    await d.same('listMarkets active at an earlier now', (s) =>
      s.listMarkets({ status: 'active', window: null, limit: 100, offset: 0, now: MIXED_NOW - 5 * 3_600_000 }),
    );
    expect(d.diffs).toEqual([]);
    expect(d.calls).toBeGreaterThan(50);
  }, 120_000);

  it('gets every market, ranks it, and knows no unknown ones', async () => {
    const d = new Differ();
    for (const m of all) {
      await d.same(`getMarket ${m.market_id}`, (s) => s.getMarket(m.market_id, MIXED_NOW));
      await d.same(`marketRank ${m.market_id}`, (s) => s.marketRank(m));
    }
    for (const id of ['btc-updown-5m-1', 'nope', '', "x' OR '1'='1"]) await d.same(`getMarket ${id}`, (s) => s.getMarket(id, MIXED_NOW));
    await d.same('getMarket at an earlier now', (s) => s.getMarket(all[0]!.market_id, all[0]!.start_time + 1));
    await d.same('marketRank of a start past every market', (s) => s.marketRank({ coin: 'BTC', market_type: '5m', start_time: 0 }));
    expect(d.diffs).toEqual([]);
  }, 120_000);

  it('serves the same snapshot pages, byte for byte, in every format', async () => {
    const d = new Differ();
    const withRows = all.filter((m) => m.snapshot_count > 0);
    const formats: SnapshotFormat[] = [V1_SNAPSHOT_FORMAT, coinSnapshotFormat('iso')('BTC'), coinSnapshotFormat('ms')('SOL')];
    for (const m of [...withRows, all.find((x) => x.snapshot_count === 0)!]) {
      const mid = m.start_time + Math.floor((m.end_time - m.start_time) / 2);
      const shapes: Omit<SnapshotQuery, 'includeOrderbook' | 'format'>[] = [
        { limit: 1000, offset: 0 },
        { limit: 10_000, offset: 0 },
        { limit: 7, offset: 5 },
        { limit: 100, offset: m.snapshot_count - 3 },
        { limit: 10, offset: m.snapshot_count + 10 },
        { limit: 50, offset: 0, from: m.start_time + 1000, before: m.start_time + 9_000 },
        { limit: 50, offset: 3, from: mid },
        { limit: 50, offset: 0, before: m.start_time + 1 },
        { limit: 50, offset: 0, from: m.end_time, before: m.end_time + 1000 },
        { limit: 50, offset: 0, from: m.start_time - 10_000, before: m.start_time + 263 },
      ];
      for (const shape of shapes) {
        for (const includeOrderbook of [false, true]) {
          for (const format of formats) {
            const q: SnapshotQuery = { ...shape, includeOrderbook, format };
            await d.same(`snapshotPageJson ${m.market_id} ${JSON.stringify(q)}`, (s) => s.snapshotPageJson(m.market_id, q));
          }
        }
      }
    }
    // Local reads (msnap --db) take the same pages as records.
    for (const m of withRows.slice(0, 20)) {
      const q: SnapshotQuery = { limit: 500, offset: 7, includeOrderbook: true };
      await d.same(`snapshotPage ${m.market_id}`, (s) => s.snapshotPage(m.market_id, q));
    }
    await d.same('snapshotPageJson unknown', (s) => s.snapshotPageJson('eth-updown-5m-0', { limit: 10, offset: 0, includeOrderbook: true }));
    expect(d.diffs).toEqual([]);
  }, 120_000);

  it('reads a market with its page as getMarket then snapshotPageJson do, and nothing past a refusing admit', async () => {
    const d = new Differ();
    const format = coinSnapshotFormat('iso');
    // SQLite answers the two reads apart (it offers no combined read); PostgreSQL reads them together.
    const both = async (s: SqliteStore | PgStore, id: string, q: Omit<SnapshotQuery, 'format'>, now: number) => {
      if (s === pg) return pg.marketSnapshotPage(id, now, q, async (m) => format(m.coin));
      const market = await s.getMarket(id, now);
      return market && { market, page: await s.snapshotPageJson(id, { ...q, format: format(market.coin) }) };
    };
    for (const m of [...all.filter((x) => x.snapshot_count > 0), all.find((x) => x.snapshot_count === 0)!]) {
      for (const q of [
        { limit: 1000, offset: 0, includeOrderbook: false },
        { limit: 300, offset: 250, includeOrderbook: true },
        { limit: 10, offset: m.snapshot_count + 10, includeOrderbook: false },
        { limit: 50, offset: 3, from: m.start_time + 1000, includeOrderbook: true },
      ]) {
        await d.same(`marketSnapshotPage ${m.market_id} ${JSON.stringify(q)}`, (s) => both(s, m.market_id, q, MIXED_NOW));
      }
    }
    await d.same('marketSnapshotPage at an earlier now', (s) => both(s, all[0]!.market_id, { limit: 5, offset: 0, includeOrderbook: false }, all[0]!.start_time + 1));
    await d.same('marketSnapshotPage unknown', (s) => both(s, 'eth-updown-5m-0', { limit: 10, offset: 0, includeOrderbook: false }, MIXED_NOW));
    expect(d.diffs).toEqual([]);
    expect(d.calls).toBeGreaterThan(50);
    const refused = new Error('refused');
    const seen: string[] = [];
    const admit = async (m: ServedMarket) => {
      seen.push(m.market_id);
      throw refused;
    };
    await expect(pg.marketSnapshotPage(all[0]!.market_id, MIXED_NOW, { limit: 10, offset: 0, includeOrderbook: false }, admit)).rejects.toBe(refused);
    expect(seen).toEqual([all[0]!.market_id]);
  }, 120_000);

  it('finds the same nearest snapshot at, before, after and between rows, ties to the earlier', async () => {
    const d = new Differ();
    const withRows = all.filter((m) => m.snapshot_count > 0);
    for (const m of withRows) {
      const s = m.start_time;
      // 50 lies halfway between the odd market's rows at 0 and 100: a tie, the earlier wins.
      const times = [s, s + 1, s + 50, s + 62, s + 63, s + 125, s + 2_137, s - 1, s - 5_000, m.end_time, m.end_time + 1_500, 1e15, -1e15];
      for (const ts of times) {
        for (const ob of [false, true]) await d.same(`nearestSnapshot ${m.market_id} ${ts} ${ob}`, (x) => x.nearestSnapshot(m.market_id, ts, ob));
      }
    }
    await d.same('nearestSnapshot unknown', (x) => x.nearestSnapshot('nope', MIXED_NOW, true));
    await d.same('nearestSnapshot without rows', (x) => x.nearestSnapshot(OLD_MARKET, 1763424000000));
    expect(d.diffs).toEqual([]);
    const tie = await pg.nearestSnapshot(ODD_MARKET, 1763762400050);
    expect(tie?.time).toBe(1763762400000);
  }, 120_000);
});
