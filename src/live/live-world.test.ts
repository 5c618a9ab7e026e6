import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { BookReader, type StoredBook } from '../store/sqlite/books/book-reader.js';
import { afterEach, describe, expect, it } from 'vitest';
import { COINS, MARKET_TYPES, marketId } from '../domain/market.js';
import { seedDatabase } from '../store/seed/seed.js';
import { openSqliteStore } from '../store/sqlite/open.js';
import type { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { openSql } from '../store/sqlite/test-support/sql.js';
import { SIDE_BITS } from '../store/core/dense-page-writer.js';
import { LiveWorld } from './live-world.js';

const NOW = Date.UTC(2025, 10, 22, 13, 7, 30, 500);
const MIN = 60_000;
const SMALL = { '5m': 2, '15m': 1, '1hr': 0, '4hr': 0, '24hr': 0 } as const;
const dirs: string[] = [];
const open: { store: SqliteStore; sql: Database.Database }[] = [];

function fresh(): { store: SqliteStore; sql: Database.Database } {
  const dir = mkdtempSync(path.join(tmpdir(), 'msnap-live-'));
  dirs.push(dir);
  const store = openSqliteStore(path.join(dir, 'w.db'));
  const s = { store, sql: openSql(path.join(dir, 'w.db')) };
  open.push(s);
  return s;
}
afterEach(async () => {
  for (const s of open.splice(0)) {
    s.sql.close();
    s.store.close();
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function seeded(now: number, opts: Partial<Parameters<typeof seedDatabase>[1]> = {}) {
  const s = fresh();
  seedDatabase(s.store.bulk, { now, days: 1, seed: 5, fullMarkets: SMALL, orderbookMs: MIN, ...opts });
  return s;
}

/** Everything a database holds, keyed by market id (rowids differ between databases by design). */
function dump(sql: Database.Database) {
  const markets = new Map<string, unknown>();
  for (const m of sql.prepare('SELECT market_id, price_start, price_end, winner FROM markets').all() as { market_id: string }[]) {
    markets.set(m.market_id, m);
  }
  const rows = (table: string, cols: string) =>
    sql.prepare(`SELECT m.market_id, x.t, ${cols} FROM ${table} x JOIN markets m ON m.id = x.market ORDER BY m.market_id, x.t`).raw(true).all() as unknown[][];
  const byMarket = (list: unknown[][]) => {
    const out = new Map<string, unknown[][]>();
    for (const r of list) {
      const id = r[0] as string;
      if (!out.has(id)) out.set(id, []);
      out.get(id)!.push(r.slice(1));
    }
    return out;
  };
  const reader = new BookReader(sql);
  return {
    markets,
    snapshots: byMarket(rows('snapshots', 'x.price, x.price_up, x.price_down')),
    // Packed rows differ with what the writer had at hand; the books they hold must not.
    books: byMarket(rows('orderbooks', 'x.market, x.up, x.down').map(([id, t, market, up, down]) => [id, t, ...reader.texts(market as number, t as number, up as StoredBook, down as StoredBook)])),
  };
}

/** Rows of `a` and `b` at the times both hold, per market both hold. */
function common(a: Map<string, unknown[][]>, b: Map<string, unknown[][]>) {
  const left: unknown[][] = [];
  const right: unknown[][] = [];
  for (const [id, rowsA] of a) {
    const rowsB = b.get(id);
    if (!rowsB) continue;
    const ts = new Set(rowsB.map((r) => r[0]));
    const inA = new Set(rowsA.map((r) => r[0]));
    left.push(...rowsA.filter((r) => ts.has(r[0])).map((r) => [id, ...r]));
    right.push(...rowsB.filter((r) => inA.has(r[0])).map((r) => [id, ...r]));
  }
  return { left, right };
}

describe('synthetic data is a function of the seed and the market alone', () => {
  it('two seeds run seconds or minutes apart agree on every market and snapshot both hold', async () => {
    // Nine minutes apart: the second seed crosses 5m and 15m boundaries (markets active at the
    // first have ended), and each type's full markets still overlap the first seed's; a gap of
    // the better part of an hour proves no more and needs four times the rows.
    const full = { '5m': 3, '15m': 2, '1hr': 1, '4hr': 0, '24hr': 0 };
    const a = dump(seeded(NOW, { fullMarkets: full }).sql);
    const b = dump(seeded(NOW + 9 * MIN + 375, { fullMarkets: full }).sql);
    let shared = 0;
    for (const [id, m] of a.markets) {
      if (!b.markets.has(id)) continue;
      shared++;
      const other = b.markets.get(id) as { price_end: number | null };
      // The market active at the first seed has ended by the second: only its end is new.
      if (other.price_end !== null && (m as { price_end: number | null }).price_end === null) continue;
      expect(other, id).toEqual(m);
    }
    expect(shared).toBeGreaterThan(400);
    const snaps = common(a.snapshots, b.snapshots);
    expect(snaps.left.length).toBeGreaterThan(20_000);
    expect(snaps.right).toEqual(snaps.left);
    // Orderbook windows (the last minute here) overlap only for seeds run seconds apart.
    const books = common(a.books, dump(seeded(NOW + 20_000, { fullMarkets: SMALL }).sql).books);
    expect(books.left.length).toBeGreaterThan(3 * 300);
    expect(books.right).toEqual(books.left);
  });

  it('two seeds run days apart agree on the markets both hold; another seed does not', async () => {
    const none = { '5m': 0, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 };
    const a = dump(seeded(NOW, { days: 3, fullMarkets: none }).sql).markets;
    const b = dump(seeded(NOW + 2 * 86_400_000 + 13 * MIN, { days: 3, fullMarkets: none }).sql).markets;
    const c = dump(seeded(NOW, { days: 3, seed: 6, fullMarkets: none }).sql).markets;
    const shared = [...a.keys()].filter((id) => b.has(id) && (a.get(id) as { price_end: unknown }).price_end !== null);
    expect(shared.length).toBeGreaterThan(800);
    for (const id of shared) expect(b.get(id), id).toEqual(a.get(id));
    expect(shared.filter((id) => JSON.stringify(c.get(id)) === JSON.stringify(a.get(id)))).toEqual([]);
  });
});

describe('LiveWorld', () => {
  it('appends what a seed made later holds: snapshots, orderbooks, new markets and resolutions', async () => {
    const live = seeded(NOW);
    const world = new LiveWorld(live.store.bulk);
    // Uneven steps across the 13:10 boundary of the 5m markets, as a ticker under load makes them.
    let now = NOW;
    for (const step of [125, 1, 310, 1000, 60_000, 124, 126, 47_000, 125, 250, 210_000, 30_000, 999, 7]) {
      now += step;
      world.advance(now);
    }
    expect(now).toBeGreaterThan(Date.UTC(2025, 10, 22, 13, 12));
    const got = dump(live.sql);
    const want = dump(seeded(now).sql);
    for (const [id, m] of want.markets) expect(got.markets.get(id), id).toEqual(m);
    // Every snapshot and orderbook the later seed holds, live holds alike (it also keeps older
    // markets' rows, and rows of active markets the seed's --full leaves empty).
    for (const [id, rows] of want.snapshots) expect(got.snapshots.get(id), id).toEqual(rows);
    for (const [id, rows] of want.books) expect(got.books.get(id), id).toEqual(rows);
    const books = [...got.books].filter(([id]) => !want.books.has(id) && want.snapshots.has(id));
    expect(books).toEqual([]);
    // The 13:05 market ended and carries its end; 13:10 is active with snapshots.
    const ended = (await live.store.getMarket(marketId('BTC', '5m', Date.UTC(2025, 10, 22, 13, 5)), now))!;
    expect(ended.status).toBe('resolved');
    expect(ended.price_end).not.toBeNull();
    expect(ended.winner).toBe(ended.price_end! >= ended.price_start! ? 'Up' : 'Down');
    expect(ended.snapshot_count).toBe(2400);
    const next = (await live.store.getMarket(marketId('BTC', '5m', Date.UTC(2025, 10, 22, 13, 10)), now))!;
    expect(next.status).toBe('active');
    expect(next.snapshot_count).toBe(Math.floor((now - next.start_time) / 125) + 1);
    // Stored blocks hold exactly the rows' values (a short last block is a valid prefix), and
    // every full block of the appended markets is there.
    const blobs = live.sql.prepare('SELECT market, block, data FROM snapshot_blocks ORDER BY market, block').raw(true).all() as [number, number, Buffer][];
    const column = (market: number, lo: number, hi: number) =>
      live.sql
        .prepare(`SELECT price, price_up * ${2 ** SIDE_BITS} + price_down FROM snapshots WHERE market = ? AND t >= ? AND t < ? ORDER BY t`)
        .raw(true)
        .all(market, lo * 125, hi * 125) as [number, number][];
    for (const [market, block, data] of blobs) {
      const words = new Uint32Array(Uint8Array.from(data).buffer);
      const size = words.length / 2;
      const rows = column(market, block * 1024, block * 1024 + size);
      expect([...words.subarray(0, size)], `market ${market} block ${block}`).toEqual(rows.map((r) => r[0]));
      expect([...words.subarray(size)]).toEqual(rows.map((r) => r[1]));
    }
    const ended5m = live.store.bulk.marketRef(ended.market_id)!.rowid;
    expect(blobs.filter(([m, , d]) => m === ended5m && d.byteLength === 8192).map(([, b]) => b)).toEqual([0, 1]);
    // Pages come from the blocks and from the rows alike.
    const page = JSON.parse((await live.store.snapshotPageJson(next.market_id, { limit: 5000, offset: 0, includeOrderbook: false })).json);
    expect(page.map((s: { price: number }) => s.price)).toEqual(want.snapshots.get(next.market_id)!.map((r) => (r[1] as number) / 1e4));
  });

  it('catches up after a pause: markets in the gap open and resolve, snapshots only within the bound', async () => {
    const live = seeded(NOW);
    const world = new LiveWorld(live.store.bulk, { catchUpMs: 10 * MIN });
    const later = NOW + 5 * 60 * MIN + 4321;
    const r = world.advance(later)!;
    // Every coin and type has one market at each 125 ms step of the bound.
    expect(r.snapshots).toBe(COINS.length * MARKET_TYPES.length * (10 * MIN / 125 + 1));
    expect(r.through).toBe(later);
    const want = dump(seeded(later, { fullMarkets: { '5m': 3, '15m': 1, '1hr': 0, '4hr': 0, '24hr': 0 } }).sql);
    const got = dump(live.sql);
    for (const [id, m] of want.markets) {
      if (got.markets.has(id)) expect(got.markets.get(id), id).toEqual(m);
    }
    const gapMarket = marketId('ETH', '5m', Date.UTC(2025, 10, 22, 15, 0));
    expect(got.markets.get(gapMarket)).toEqual(want.markets.get(gapMarket));
    expect(got.snapshots.has(gapMarket)).toBe(false);
    // Within the bound, live holds every snapshot the later seed holds; before it, none.
    const firstStep = later - (later % 125) - 10 * MIN;
    let compared = 0;
    for (const [id, rows] of want.snapshots) {
      const start = Number(id.split('-').at(-1)) * 1000;
      const recent = rows.filter((r) => start + (r[0] as number) >= firstStep);
      expect(got.snapshots.get(id), id).toEqual(recent);
      compared += recent.length;
    }
    expect(compared).toBeGreaterThan(3 * 4 * 1000);
  });

  it('never touches a market it does not own, and does nothing when the clock goes back', async () => {
    const live = seeded(NOW);
    const next = Date.UTC(2025, 10, 22, 13, 10);
    const foreign = marketId('SOL', '5m', next);
    live.store.bulk.upsertMarket({ marketId: foreign, coin: 'SOL', marketType: '5m', startTime: next, endTime: next + 5 * MIN, priceStart: 1, priceEnd: null, winner: null });
    // An import adding data to a seeded market releases it.
    const released = live.store.bulk.marketRef(marketId('ETH', '5m', Date.UTC(2025, 10, 22, 13, 5)))!;
    live.store.bulk.world.release([released.rowid]);
    const before = (await live.store.getMarket(marketId('ETH', '5m', Date.UTC(2025, 10, 22, 13, 5)), NOW))!;
    const world = new LiveWorld(live.store.bulk);
    expect(world.advance(NOW - 5000)!.snapshots).toBe(0);
    world.advance(NOW + 4 * MIN);
    const after = NOW + 4 * MIN;
    expect((await live.store.getMarket(foreign, after))).toMatchObject({ price_start: 1, snapshot_count: 0 });
    expect(live.store.bulk.world.owns(live.store.bulk.marketRef(foreign)!.rowid)).toBe(false);
    expect((await live.store.getMarket(before.market_id, after))).toEqual({ ...before, status: 'resolved' });
    expect((await live.store.getMarket(marketId('BTC', '5m', next), after))!.snapshot_count).toBe((after - next) / 125 + 1);
  });

  it('says there is no world in a database no seed made', async () => {
    const s = fresh();
    const world = new LiveWorld(s.store.bulk);
    expect(world.state()).toBeUndefined();
    expect(world.advance(NOW)).toBeUndefined();
  });
});
