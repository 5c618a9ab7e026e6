import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { marketId, type Coin, type MarketType } from '../../domain/market.js';
import { PLANS } from '../../domain/plans.js';
import { MIGRATIONS } from './migrations.js';
import { openSqliteStore } from './open.js';
import type { SqliteStore } from './sqlite-store.js';
import { openSql, openStoreWithSql } from './test-support/sql.js';
import { scaledToJson, snapshotId, snapshotRowsToJson, type RawSnapshotRow } from '../core/snapshot-json.js';

const H = 3_600_000;
const T0 = Date.UTC(2025, 10, 20); // a 24hr boundary
let dir: string;
let store: SqliteStore;
/** The store's own connection, for reading and editing rows behind its back. */
let sql: Database.Database;

function addMarket(coin: Coin, type: MarketType, start: number, dur: number, priceStart = 100, priceEnd = 101) {
  return store.bulk.upsertMarket({
    marketId: marketId(coin, type, start),
    coin,
    marketType: type,
    startTime: start,
    endTime: start + dur,
    priceStart,
    priceEnd,
    winner: priceEnd >= priceStart ? 'Up' : 'Down',
  }).ref;
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-store-'));
  ({ store, sql } = openStoreWithSql(path.join(dir, 't.db')));
});
afterEach(async () => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('schema', () => {
  it('is migrated once and reopens at the same version', async () => {
    expect(store.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
    store.close();
    store = openSqliteStore(path.join(dir, 't.db'));
    expect(store.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
    const other = openSql(path.join(dir, 't.db'));
    expect(other.pragma('journal_mode', { simple: true })).toBe('wal');
    other.close();
  });
});

describe('listMarkets', () => {
  it('orders newest first, ties by market_id descending, and counts all matches', async () => {
    for (const coin of ['BTC', 'ETH', 'SOL'] as const) addMarket(coin, '1hr', T0, H);
    addMarket('BTC', '1hr', T0 + H, H);
    const r = await store.listMarkets({ limit: 10, offset: 0, window: null, now: T0 + 10 * H });
    expect(r.markets.map((m) => m.market_id)).toEqual([
      marketId('BTC', '1hr', T0 + H),
      marketId('SOL', '1hr', T0),
      marketId('ETH', '1hr', T0),
      marketId('BTC', '1hr', T0),
    ]);
    expect(r.total).toBe(4);
    const page = await store.listMarkets({ limit: 2, offset: 1, window: null, now: T0 + 10 * H });
    expect(page.markets.map((m) => m.coin)).toEqual(['SOL', 'ETH']);
    expect(page.total).toBe(4);
  });

  it('computes status from the clock and hides price_end/winner while active', async () => {
    addMarket('BTC', '1hr', T0, H);
    const during = await store.listMarkets({ limit: 10, offset: 0, window: null, now: T0 + 10 });
    expect(during.markets[0]).toMatchObject({ status: 'active', price_end: null, winner: null });
    const atEnd = (await store.getMarket(marketId('BTC', '1hr', T0), T0 + H))!;
    expect(atEnd).toMatchObject({ status: 'resolved', price_end: 101, winner: 'Up' });
    expect((await store.listMarkets({ status: 'active', limit: 10, offset: 0, window: null, now: T0 + 10 })).total).toBe(1);
    expect((await store.listMarkets({ status: 'resolved', limit: 10, offset: 0, window: null, now: T0 + 10 })).total).toBe(0);
    expect((await store.listMarkets({ status: 'resolved', limit: 10, offset: 0, window: null, now: T0 + H })).total).toBe(1);
  });

  it('leaves price_end and winner null once resolved until the data reaches the final second', async () => {
    // As seed leaves the market active at its `now`: price_start known, the end not yet.
    const ref = store.bulk.upsertMarket({
      marketId: marketId('SOL', '5m', T0),
      coin: 'SOL',
      marketType: '5m',
      startTime: T0,
      endTime: T0 + 300_000,
      priceStart: 200,
      priceEnd: null,
      winner: null,
    }).ref;
    for (let t = 0; t < 60_000; t += 125) store.bulk.insertSnapshot(ref.rowid, t, 200 + t / 1e6, 0.5, 0.5);
    store.bulk.refreshMarkets([ref.rowid]);
    const id = marketId('SOL', '5m', T0);
    // The clock passed the end, the stored data did not: the end price is unknown, not guessed.
    expect((await store.getMarket(id, T0 + 400_000))).toMatchObject({ status: 'resolved', price_end: null, winner: null, snapshot_count: 480 });
    // An import that brings the final second fills both in.
    store.bulk.insertSnapshot(ref.rowid, 299_875, 199.5, 0.1, 0.9);
    store.bulk.refreshMarkets([ref.rowid]);
    expect((await store.getMarket(id, T0 + 400_000))).toMatchObject({ status: 'resolved', price_end: 199.5, winner: 'Down', snapshot_count: 481 });
    expect((await store.getMarket(id, T0 + 10))).toMatchObject({ status: 'active', price_end: null, winner: null });
  });

  it('applies the builder window per coin and type, in rows and total', async () => {
    const cap = PLANS.builder.dataWindow!['24hr'];
    const day = 24 * H;
    for (let i = 0; i < cap + 3; i++) addMarket('ETH', '24hr', T0 - i * day, day);
    addMarket('BTC', '24hr', T0, day);
    const now = T0 + 1;
    const all = await store.listMarkets({ limit: 1000, offset: 0, window: PLANS.builder.dataWindow, now });
    expect(all.total).toBe(cap + 1);
    expect(all.markets).toHaveLength(cap + 1);
    const eth = await store.listMarkets({ coin: 'ETH', marketType: '24hr', limit: 1000, offset: 0, window: PLANS.builder.dataWindow, now });
    expect(eth.total).toBe(cap);
    expect(eth.markets.at(-1)!.start_time).toBe(T0 - (cap - 1) * day);
    expect((await store.listMarkets({ coin: 'ETH', limit: 1000, offset: 0, window: null, now })).total).toBe(cap + 3);
    expect((await store.marketRank({ coin: 'ETH', market_type: '24hr', start_time: T0 - cap * day }))).toBe(cap);
    // A new market shifts the window (the count cache must notice the write).
    addMarket('ETH', '24hr', T0 + day, day);
    expect((await store.listMarkets({ coin: 'ETH', marketType: '24hr', limit: 1, offset: 0, window: PLANS.builder.dataWindow, now })).total).toBe(cap);
    expect((await store.listMarkets({ coin: 'ETH', limit: 1, offset: 0, window: null, now })).total).toBe(cap + 4);
  });

  it('filters by start_time range', async () => {
    for (let i = 0; i < 5; i++) addMarket('SOL', '1hr', T0 + i * H, H);
    const r = await store.listMarkets({ startFrom: T0 + H, startBefore: T0 + 3 * H, limit: 10, offset: 0, window: null, now: T0 });
    expect(r.markets.map((m) => m.start_time)).toEqual([T0 + 2 * H, T0 + H]);
    expect(r.total).toBe(2);
  });

  it('answers empty when there is nothing', async () => {
    expect((await store.listMarkets({ limit: 10, offset: 0, window: PLANS.builder.dataWindow, now: T0 }))).toEqual({ markets: [], total: 0 });
    expect((await store.getMarket('btc-updown-5m-1', T0))).toBeUndefined();
    expect((await store.nearestSnapshot('btc-updown-5m-1', T0))).toBeUndefined();
    expect((await store.snapshotPageJson('nope', { limit: 10, offset: 0, includeOrderbook: false }))).toEqual({ json: '[]', count: 0, total: 0 });
  });
});

describe('snapshots', () => {
  function fill(dense: boolean) {
    const ref = addMarket('BTC', '5m', T0, 300_000);
    const times = dense ? [0, 125, 250, 375, 500] : [0, 125, 300, 1000, 1125];
    for (const t of times) store.bulk.insertSnapshot(ref.rowid, t, 97123.4512 + t, 0.53, 0.48);
    store.bulk.insertOrderbook(ref.rowid, 125, '{"bids":[{"price":0.52,"size":10}],"asks":[{"price":0.53,"size":5}]}', '{"bids":[],"asks":[]}');
    store.bulk.refreshMarkets([ref.rowid]);
    return { ref, times };
  }

  for (const dense of [true, false]) {
    it(`pages oldest first with total and range (${dense ? 'dense' : 'sparse'} market)`, async () => {
      const { ref, times } = fill(dense);
      const id = marketId('BTC', '5m', T0);
      const page = await store.snapshotPageJson(id, { limit: 2, offset: 1, includeOrderbook: false });
      const parsed = JSON.parse(page.json) as { id: number; time: number; price: number }[];
      expect(page.total).toBe(5);
      expect(parsed.map((s) => s.time)).toEqual([T0 + times[1]!, T0 + times[2]!]);
      expect(parsed[0]).toEqual({
        id: snapshotId(ref.rowid, times[1]!),
        market_id: id,
        time: T0 + times[1]!,
        price: 97123.4512 + times[1]!,
        price_up: 0.53,
        price_down: 0.48,
      });
      const ranged = await store.snapshotPageJson(id, { limit: 10, offset: 0, from: T0 + 125, before: T0 + times[3]!, includeOrderbook: false });
      expect(ranged.total).toBe(2);
      expect(ranged.count).toBe(2);
      const past = await store.snapshotPageJson(id, { limit: 10, offset: 5, includeOrderbook: false });
      expect(past).toEqual({ json: '[]', count: 0, total: 5 });
      const ob = JSON.parse((await store.snapshotPageJson(id, { limit: 2, offset: 0, includeOrderbook: true })).json);
      expect(ob[0].orderbook_up).toBeUndefined();
      expect(ob[1].orderbook_up).toEqual({ bids: [{ price: 0.52, size: 10 }], asks: [{ price: 0.53, size: 5 }] });
      expect(ob[1].orderbook_down).toEqual({ bids: [], asks: [] });
      expect((await store.getMarket(id, T0 + 400_000))!.snapshot_count).toBe(5);
    });
  }

  it('finds the nearest snapshot; the earlier wins a tie', async () => {
    fill(false); // t = 0, 125, 300, 1000, 1125
    const id = marketId('BTC', '5m', T0);
    expect((await store.nearestSnapshot(id, T0 + 200))!.time).toBe(T0 + 125);
    expect((await store.nearestSnapshot(id, T0 + 212))!.time).toBe(T0 + 125); // 87 vs 88
    expect((await store.nearestSnapshot(id, T0 + 213))!.time).toBe(T0 + 300);
    expect((await store.nearestSnapshot(id, T0 + 650))!.time).toBe(T0 + 300); // 350 vs 350: tie
    expect((await store.nearestSnapshot(id, T0 - 5000))!.time).toBe(T0);
    expect((await store.nearestSnapshot(id, T0 + 999_999))!.time).toBe(T0 + 1125);
    expect((await store.nearestSnapshot(id, T0 + 1000))).toMatchObject({ price: 97123.4512 + 1000, price_up: 0.53 });
    // Depth only when asked for, and only where stored.
    expect((await store.nearestSnapshot(id, T0 + 125))!.orderbook_up).toBeUndefined();
    expect((await store.nearestSnapshot(id, T0 + 125, true))!.orderbook_up).toEqual({ bids: [{ price: 0.52, size: 10 }], asks: [{ price: 0.53, size: 5 }] });
    expect((await store.nearestSnapshot(id, T0, true))!.orderbook_up).toBeUndefined();
  });

  it('serves a dense page exactly as the general path and JSON.stringify would write it', async () => {
    // start % 1e8 = 99,900,000: times cross a 1e8 boundary 100 s in, which the split printing handles.
    const start = 17_638 * 100_000_000 - 100_000;
    expect(start % 300_000).toBe(0);
    const ref = addMarket('ETH', '5m', start, 300_000);
    const expected: Record<string, unknown>[] = [];
    for (let k = 0; k < 2400; k++) {
      const t = k * 125;
      const [price, up, down] = [(35_000_000 + k + (k % 7) * 10_100) / 1e4, (k % 10_001) / 1e4, (10_000 - (k % 97)) / 1e4];
      store.bulk.insertSnapshot(ref.rowid, t, price, up, down);
      expected.push({ id: snapshotId(ref.rowid, t), market_id: marketId('ETH', '5m', start), time: start + t, price, price_up: up, price_down: down });
    }
    store.bulk.refreshMarkets([ref.rowid]);
    const id = marketId('ETH', '5m', start);
    const raw = sql
      .prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? ORDER BY t')
      .raw(true)
      .all(ref.rowid) as RawSnapshotRow[];
    for (const [offset, limit] of [[0, 2400], [790, 20], [2399, 5]] as const) {
      const page = await store.snapshotPageJson(id, { limit, offset, includeOrderbook: false });
      const want = expected.slice(offset, offset + limit);
      expect(page.json).toBe(JSON.stringify(want));
      expect(page.json).toBe(snapshotRowsToJson(raw.slice(offset, offset + limit), ref.rowid, id, start, false));
      expect(page.json).toBe((await store.snapshotPageJson(id, { limit, offset, includeOrderbook: true })).json);
      // v2's and v4's spellings of the same rows: the coin's price key, ISO or ms times.
      for (const format of [{ priceKey: 'eth_price', times: 'iso' as const }, { priceKey: 'eth_price', times: 'ms' as const }]) {
        const other = (await store.snapshotPageJson(id, { limit, offset, includeOrderbook: false, format })).json;
        const respelled = want.map(({ price, time, ...rest }) => ({
          id: rest.id,
          market_id: rest.market_id,
          time: format.times === 'iso' ? new Date(time as number).toISOString() : time,
          eth_price: price,
          price_up: rest.price_up,
          price_down: rest.price_down,
        }));
        expect(other).toBe(JSON.stringify(respelled));
      }
    }
    // A probability the dense packing cannot hold (not written by msnap, but possible in a file
    // edited by hand) sends the page down the general path.
    // Rows edited behind the store's back need refreshMarkets, which rebuilds the derived blocks.
    sql.prepare('UPDATE snapshots SET price_up = 20000 WHERE market = ? AND t = 1000').run(ref.rowid);
    store.bulk.refreshMarkets([ref.rowid]);
    const patched = (await store.snapshotPageJson(id, { limit: 10, offset: 5, includeOrderbook: false })).json;
    expect(JSON.parse(patched)[3].price_up).toBe(2);
    expect(patched).toBe(snapshotRowsToJson([...raw.slice(5, 8), [1000, raw[8]![1], 20_000, raw[8]![3]], ...raw.slice(9, 15)], ref.rowid, id, start, false));
    // Rowid 0 and odd offsets take plain number printing: still the same text.
    const odd: RawSnapshotRow[] = [[0, 10_000, 1, 0], [99_999_999, 5, 10_000, 2], [-125, 7, 3, 3]];
    const oddWant = odd.map(([t, p, u, d]) => ({ id: t, market_id: 'x', time: 5 + t, price: p / 1e4, price_up: u / 1e4, price_down: d / 1e4 }));
    expect(snapshotRowsToJson(odd, 0, 'x', 5, false)).toBe(JSON.stringify(oddWant));
  });

  it('prints scaled values without float noise', async () => {
    expect(scaledToJson(3)).toBe('0.0003');
    expect(scaledToJson(971234512)).toBe('97123.4512');
    expect(scaledToJson(970000000)).toBe('97000');
    expect(scaledToJson(1001)).toBe('0.1001');
    for (const v of [1, 17, 4100, 9999, 10000, 123456789, 2000000001]) expect(scaledToJson(v)).toBe(String(v / 1e4));
  });
});

describe('accounts and keys', () => {
  it('counts active keys, revoked ones excluded', async () => {
    const a = await store.createAccount({ name: 'x', plan: 'builder', trialEndsAt: null, requestsPerMinute: null, burstPerSecond: null, createdAt: 1 });
    const k1 = await store.createKey(a.id, 'h1', 'msk_aaaa', 10);
    await store.createKey(a.id, 'h2', 'msk_bbbb', 11);
    expect((await store.countActiveKeys(a.id, 20))).toBe(2);
    expect((await store.revokeKey(k1.id, 30))).toBe(true);
    expect((await store.revokeKey(k1.id, 31))).toBe(false);
    expect((await store.countActiveKeys(a.id, 40))).toBe(1);
    expect((await store.findKeyByHash('h1'))).toMatchObject({ id: k1.id, revokedAt: 30 });
    expect((await store.listKeys()).map((k) => k.account.name)).toEqual(['x', 'x']);
    await expect(store.createKey(a.id, 'h2', 'msk_cccc', 50)).rejects.toThrow();
  });
});

describe('the details migration', () => {
  it('rewrites stored [price, size] levels as {price, size} and adds the descriptive fields as null', async () => {
    const file = path.join(dir, 'v2.db');
    const old = new Database(file);
    // The schema just before the details migration (later ones, e.g. source ids, come after it).
    const details = MIGRATIONS.find((m) => m.description.startsWith('markets: the hosted'))!;
    const before = MIGRATIONS.filter((m) => m.version < details.version);
    for (const m of before) old.exec(m.sql);
    old.pragma(`user_version = ${before.at(-1)!.version}`);
    old.exec(`INSERT INTO markets (id, market_id, coin, market_type, start_time, end_time, snapshot_count, dense)
              VALUES (1, '${marketId('BTC', '5m', T0)}', 'BTC', '5m', ${T0}, ${T0 + 300_000}, 1, 1)`);
    old.exec('INSERT INTO snapshots VALUES (1, 0, 10, 1, 2)');
    old.exec(`INSERT INTO orderbooks VALUES (1, 0, '{"bids":[[0.52,120.5],[0.51,3]],"asks":[[0.53,7.25]]}', '{"bids":[],"asks":[[0.48,1]]}')`);
    old.close();
    const migrated = openSqliteStore(file);
    try {
      const page = JSON.parse((await migrated.snapshotPageJson(marketId('BTC', '5m', T0), { limit: 1, offset: 0, includeOrderbook: true })).json);
      expect(page[0].orderbook_up).toEqual({ bids: [{ price: 0.52, size: 120.5 }, { price: 0.51, size: 3 }], asks: [{ price: 0.53, size: 7.25 }] });
      expect(page[0].orderbook_down).toEqual({ bids: [], asks: [{ price: 0.48, size: 1 }] });
      const m = (await migrated.getMarket(marketId('BTC', '5m', T0), T0 + 400_000))!;
      expect(m.event_id).toBeNull();
      expect(m.resolved_at).toBeNull();
      expect(m.winner).toBeNull();
    } finally {
      migrated.close();
    }
  });

  it('stores imported details and keeps them when a later write leaves them out', async () => {
    const details = {
      event_id: '1234567',
      condition_id: `0x${'ab'.repeat(32)}`,
      clob_token_up: '1'.repeat(72),
      clob_token_down: '2'.repeat(72),
      final_volume: 1500.5,
      final_liquidity: 20,
      resolved_at: T0 + 300_500,
      created_at: T0 - H,
      updated_at: T0 + 300_500,
    };
    const base = { marketId: marketId('SOL', '5m', T0), coin: 'SOL' as const, marketType: '5m' as const, startTime: T0, endTime: T0 + 300_000 };
    store.bulk.upsertMarket({ ...base, priceStart: 1, priceEnd: 2, winner: 'Up', details });
    store.bulk.upsertMarket({ ...base, priceStart: null, priceEnd: null, winner: null, details: { final_volume: 1600 } });
    expect((await store.getMarket(base.marketId, T0 + 400_000))).toMatchObject({ ...details, final_volume: 1600 });
    // While the clock says the market is active, what only its end can tell stays null.
    expect((await store.getMarket(base.marketId, T0 + 1000))).toMatchObject({ event_id: '1234567', final_volume: null, resolved_at: null });
  });
});
