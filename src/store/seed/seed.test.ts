import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COINS, MARKET_TYPES } from '../../domain/market.js';
import { PLANS } from '../../domain/plans.js';
import { openSqliteStore } from '../sqlite/open.js';
import type Database from 'better-sqlite3';
import type { SqliteStore } from '../sqlite/sqlite-store.js';
import { openSql } from '../sqlite/test-support/sql.js';
import { seedDatabase } from './seed.js';

const NOW = Date.UTC(2025, 10, 22, 13, 7, 30, 500);
const SMALL = { '5m': 2, '15m': 1, '1hr': 0, '4hr': 0, '24hr': 0 } as const;
const dirs: string[] = [];
const stores: SqliteStore[] = [];
/** Each fresh store's file over a second connection, for reading its rows with plain SQL. */
const sqlOf = new Map<SqliteStore, Database.Database>();

function fresh(): SqliteStore {
  const dir = mkdtempSync(path.join(tmpdir(), 'msnap-seed-'));
  dirs.push(dir);
  const s = openSqliteStore(path.join(dir, 's.db'));
  stores.push(s);
  sqlOf.set(s, openSql(path.join(dir, 's.db')));
  return s;
}
afterEach(async () => {
  for (const sql of sqlOf.values()) sql.close();
  sqlOf.clear();
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('seedDatabase', () => {
  it('leaves the dense blocks equal to its rows, also when seeding over a seeded database', async () => {
    const s = fresh();
    const blocks = () => sqlOf.get(s)!.prepare('SELECT market, block, data FROM snapshot_blocks ORDER BY market, block').raw(true).all();
    seedDatabase(s.bulk, { now: NOW, days: 1, fullMarkets: SMALL, orderbookMs: 60_000 });
    const seeded = blocks();
    // 2 x 5m (2400 slots: 3 blocks, one still partial for the active market) and 1 x 15m per coin.
    expect(seeded.length).toBeGreaterThan(COINS.length * 3);
    seedDatabase(s.bulk, { now: NOW, days: 1, seed: 2, fullMarkets: SMALL, orderbookMs: 60_000 });
    expect(blocks()).toEqual(seeded);
    const ids = sqlOf.get(s)!.prepare('SELECT id FROM markets WHERE snapshot_count > 0').pluck().all() as number[];
    s.bulk.transaction(() => s.bulk.refreshMarkets(ids));
    expect(blocks()).toEqual(seeded);
  });

  it('is deterministic: same seed and clock give the same rows; another seed differs', async () => {
    const dump = (seed: number) => {
      const s = fresh();
      seedDatabase(s.bulk, { now: NOW, days: 1, seed, fullMarkets: SMALL, orderbookMs: 60_000 });
      return {
        markets: sqlOf.get(s)!.prepare('SELECT market_id, price_start, price_end, winner, snapshot_count FROM markets ORDER BY id').all(),
        snaps: sqlOf.get(s)!.prepare('SELECT * FROM snapshots ORDER BY market, t').raw(true).all(),
        books: sqlOf.get(s)!.prepare('SELECT * FROM orderbooks ORDER BY market, t').raw(true).all(),
      };
    };
    const a = dump(7);
    expect(a.snaps.length).toBeGreaterThan(2000);
    expect(a.books.length).toBeGreaterThan(0);
    expect(dump(7)).toEqual(a);
    expect(dump(8).snaps).not.toEqual(a.snaps);
  });

  it('makes consistent markets and snapshots', async () => {
    const s = fresh();
    const r = seedDatabase(s.bulk, { now: NOW, days: 2, fullMarkets: SMALL, orderbookMs: 60_000 });
    expect(r.snapshots).toBe(s.bulk.counts().snapshots);
    const markets = (await s.listMarkets({ limit: 1000, offset: 0, window: null, now: NOW })).markets;
    for (const m of markets) {
      if (m.status === 'resolved') expect(m.winner).toBe(m.price_end! >= m.price_start! ? 'Up' : 'Down');
      expect(m.start_time % { '5m': 3e5, '15m': 9e5, '1hr': 36e5, '4hr': 144e5, '24hr': 864e5 }[m.market_type]).toBe(0);
    }
    const active = markets.filter((m) => m.status === 'active');
    expect(active).toHaveLength(COINS.length * MARKET_TYPES.length);
    // Newest 5m market per coin is the active partial one, with snapshots up to now.
    const btc5 = (await s.listMarkets({ coin: 'BTC', marketType: '5m', limit: 3, offset: 0, window: null, now: NOW })).markets;
    expect(btc5[0]!.snapshot_count).toBe(Math.floor((NOW - btc5[0]!.start_time) / 125) + 1);
    expect(btc5[1]!.snapshot_count).toBe(2400);
    expect(btc5[2]!.snapshot_count).toBe(0);
    const snaps = JSON.parse((await s.snapshotPageJson(btc5[1]!.market_id, { limit: 2400, offset: 0, includeOrderbook: false })).json);
    expect(snaps[0].price).toBe(btc5[1]!.price_start);
    for (const x of snaps) {
      expect(x.price_up + x.price_down).toBeGreaterThanOrEqual(0.99);
      expect(x.price_up + x.price_down).toBeLessThanOrEqual(1.03);
      expect(x.price).toBeGreaterThan(50_000);
    }
    // The last snapshot prices the outcome it ends with.
    const last = snaps.at(-1);
    if (last.price > btc5[1]!.price_start!) expect(last.price_up).toBeGreaterThanOrEqual(0.5);
    if (last.price < btc5[1]!.price_start!) expect(last.price_up).toBeLessThanOrEqual(0.5);
    // One path per coin: a 15m and a 5m market starting together share the start price.
    const eth15 = (await s.listMarkets({ coin: 'ETH', marketType: '15m', limit: 5, offset: 0, window: null, now: NOW })).markets[2]!;
    const eth5 = (await s.getMarket(eth15.market_id.replace('-15m-', '-5m-'), NOW))!;
    expect(eth5.price_start).toBe(eth15.price_start);
  });

  it('fills the descriptive fields in their documented shapes, the same for the same seed', async () => {
    const read = async (seed: number) => {
      const s = fresh();
      seedDatabase(s.bulk, { now: NOW, days: 1, seed, fullMarkets: SMALL, orderbookMs: 0 });
      return (await s.listMarkets({ limit: 5000, offset: 0, window: null, now: NOW })).markets;
    };
    const markets = await read(3);
    expect(markets.length).toBeGreaterThan(300);
    for (const m of markets) {
      expect(m.event_id).toMatch(/^[1-9]\d{5,7}$/);
      expect(m.condition_id).toMatch(/^0x[0-9a-f]{64}$/);
      expect(m.clob_token_up).toMatch(/^[1-9]\d{69,77}$/);
      expect(m.clob_token_down).toMatch(/^[1-9]\d{69,77}$/);
      expect(m.clob_token_up).not.toBe(m.clob_token_down);
      expect(m.created_at!).toBeLessThanOrEqual(m.start_time);
      expect(m.updated_at!).toBeGreaterThanOrEqual(m.created_at!);
      if (m.status === 'active') {
        expect([m.final_volume, m.final_liquidity, m.resolved_at]).toEqual([null, null, null]);
      } else if (m.resolved_at === null) {
        // Resolved within 10 minutes after the end: until NOW reaches that time it is not reported.
        expect(NOW - m.end_time).toBeLessThan(10 * 60_000);
        expect(m.updated_at).toBe(m.end_time);
      } else {
        expect(m.resolved_at).toBeLessThanOrEqual(NOW);
        expect(m.resolved_at! - m.end_time).toBeGreaterThanOrEqual(0);
        expect(m.resolved_at! - m.end_time).toBeLessThanOrEqual(10 * 60_000);
        expect(m.final_volume!).toBeGreaterThanOrEqual(0);
        expect(m.final_liquidity!).toBeGreaterThanOrEqual(0);
      }
    }
    expect((await read(3))).toEqual(markets);
    expect((await read(4)).map((m) => m.condition_id)).not.toEqual(markets.map((m) => m.condition_id));
  });

  it('gives every coin and type more than the builder cap with the default 15 days', async () => {
    const s = fresh();
    seedDatabase(s.bulk, { now: NOW, fullMarkets: { '5m': 0, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } });
    for (const coin of COINS) {
      for (const type of MARKET_TYPES) {
        const total = (await s.listMarkets({ coin, marketType: type, limit: 1, offset: 0, window: null, now: NOW })).total;
        expect(total, `${coin} ${type}`).toBeGreaterThan(PLANS.builder.dataWindow![type]);
      }
    }
  });

  it('stores a snapshot in under 40 bytes (orderbooks aside)', async () => {
    const s = fresh();
    seedDatabase(s.bulk, { now: NOW, days: 1, fullMarkets: { '5m': 0, '15m': 0, '1hr': 2, '4hr': 0, '24hr': 0 }, orderbookMs: 0 });
    const rows = s.bulk.counts().snapshots;
    const bytes = sqlOf.get(s)!.prepare("SELECT sum(pgsize) FROM dbstat WHERE name = 'snapshots'").pluck().get() as number;
    expect(rows).toBeGreaterThan(50_000);
    expect(bytes / rows).toBeLessThan(40);
  });
});
