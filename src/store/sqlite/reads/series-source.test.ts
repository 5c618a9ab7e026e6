// The columnar reader gives, number for number, what JSON.parse gives for the served pages of the
// same markets: dense markets from their blocks and from their rows, a gappy market, packed books
// and books stored as text.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MarketSeries, OutcomeSide } from '../../../domain/market-series.js';
import { seedDatabase } from '../../seed/seed.js';
import { openSqliteStore } from '../open.js';
import { sqliteFileSeriesSource, sqliteSeriesSource } from './series-source.js';
import type { SqliteStore } from '../sqlite-store.js';
import { openSql } from '../test-support/sql.js';

const NOW = Date.UTC(2025, 10, 22, 13, 7, 30, 500);
const GAPPY = 'btc-updown-5m-1700000000';
let dir: string;
let store: SqliteStore;
let sql: Database.Database;

type Level = { price: number; size: number };
type ServedSnapshot = { time: number; price: number; price_up: number; price_down: number; orderbook_up?: { bids: Level[]; asks: Level[] } | null; orderbook_down?: { bids: Level[]; asks: Level[] } | null };

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-series-'));
  store = openSqliteStore(path.join(dir, 's.db'));
  seedDatabase(store.bulk, { now: NOW, days: 1, seed: 4, fullMarkets: { '5m': 2, '15m': 1, '1hr': 0, '4hr': 0, '24hr': 0 }, orderbookMs: 8 * 60_000 });
  // A market off the grid (rows path), with packed books, text books and a book the codec declines.
  store.bulk.transaction(() => {
    const { ref } = store.bulk.upsertMarket({ marketId: GAPPY, coin: 'BTC', marketType: '5m', startTime: 1_700_000_000_000, endTime: 1_700_000_300_000, priceStart: null, priceEnd: null, winner: null });
    const book = (p: number, s: number) => `{"bids":[{"price":${p},"size":${s}}],"asks":[{"price":${p + 0.01},"size":12.345678}]}`;
    for (let k = 0; k < 300; k++) {
      const t = k * 250 + (k % 7 === 0 ? 3 : 0);
      store.bulk.insertSnapshot(ref.rowid, t, 37_000.12 + k / 100, 0.4 + (k % 50) / 1000, 0.6 - (k % 50) / 1000);
      if (k % 3 === 0) store.bulk.insertOrderbook(ref.rowid, t, book(0.4, 10 + (k % 5)), book(0.58, 7.5));
      if (k % 3 === 1 && k % 2 === 0) store.bulk.insertOrderbook(ref.rowid, t, '{"asks":[[0.53,"4"]],"bids":[[0.52,100]]}', '{"bids":[],"asks":[]}');
    }
    store.bulk.refreshMarkets([ref.rowid]);
  });
  sql = openSql(path.join(dir, 's.db'));
});

afterEach(() => undefined);

async function served(id: string, includeOrderbook: boolean): Promise<ServedSnapshot[]> {
  const out: ServedSnapshot[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await store.snapshotPageJson(id, { limit: 1000, offset, includeOrderbook });
    out.push(...(JSON.parse(page.json) as ServedSnapshot[]));
    if (offset + 1000 >= page.total) return out;
  }
}

async function seriesOf(ids: string[], orderbooks: boolean): Promise<MarketSeries[]> {
  const out: MarketSeries[] = [];
  for await (const s of sqliteSeriesSource(sql, ids, { orderbooks, now: NOW })) out.push(s);
  return out;
}

function levels(l: { length: number; prices: ArrayLike<number>; sizes: ArrayLike<number> }): Level[] {
  return Array.from({ length: l.length }, (_, k) => ({ price: l.prices[k]!, size: l.sizes[k]! }));
}

/** A served book as the client reads it: [price, size] pairs of old text and numeric strings as {price, size} numbers. */
function asClientReads(book: unknown): { bids: Level[]; asks: Level[] } | undefined {
  if (!book) return undefined;
  const side = (list: unknown[]) => list.map((l) => (Array.isArray(l) ? { price: Number(l[0]), size: Number(l[1]) } : { price: Number((l as Level).price), size: Number((l as Level).size) }));
  const b = book as { bids: unknown[]; asks: unknown[] };
  return { bids: side(b.bids), asks: side(b.asks) };
}

function expectSame(series: MarketSeries, snaps: ServedSnapshot[], withBooks: boolean): number {
  expect(series.length).toBe(snaps.length);
  let books = 0;
  const mismatches: string[] = [];
  snaps.forEach((s, i) => {
    if (series.time[i] !== s.time || series.price[i] !== s.price || series.priceUp[i] !== s.price_up || series.priceDown[i] !== s.price_down) mismatches.push(`values at ${i}`);
    for (const side of ['up', 'down'] as OutcomeSide[]) {
      const want = withBooks ? asClientReads(s[`orderbook_${side}`]) : undefined;
      const got = series.book(i, side);
      const have = got ? { bids: levels(got.bids), asks: levels(got.asks) } : undefined;
      if (JSON.stringify(have) !== JSON.stringify(want ?? undefined)) mismatches.push(`${side} book at ${i}: ${JSON.stringify(have)} vs ${JSON.stringify(want)}`);
      else if (have) books++;
      // The fast path: the served book's first levels, NaN where there is no book or no level.
      const best = series.bestPrices!(side);
      for (const which of ['bids', 'asks'] as const) {
        const first = want?.[which][0]?.price ?? Number.NaN;
        if (!Object.is(best[which][i], first)) mismatches.push(`${side} best ${which} at ${i}: ${best[which][i]} vs ${first}`);
      }
    }
  });
  expect(mismatches.slice(0, 5)).toEqual([]);
  return books;
}

describe('sqliteSeriesSource', () => {
  it('gives the served numbers for every kind of market, with and without books, in the order asked', async () => {
    const markets = (await store.listMarkets({ limit: 1000, offset: 0, window: null, now: NOW })).markets.filter((m) => m.snapshot_count > 0);
    const ids = [GAPPY, ...markets.slice(0, 5).map((m) => m.market_id)];
    for (const withBooks of [false, true]) {
      // Checked as they come: a source reuses one market's columns for the next.
      const seen: string[] = [];
      let books = 0;
      for await (const s of sqliteSeriesSource(sql, [...ids, 'eth-updown-5m-1'], { orderbooks: withBooks, now: NOW })) {
        seen.push(s.market.market_id);
        expect(s.market).toEqual(await store.getMarket(s.market.market_id, NOW));
        books += expectSame(s, await served(s.market.market_id, withBooks), withBooks);
      }
      expect(seen).toEqual(ids);
      expect(books > 0).toBe(withBooks);
    }
    // The same through the file, read-only.
    const tail = async (source: AsyncIterable<MarketSeries>) => {
      const out: [string, number, number][] = [];
      for await (const s of source) out.push([s.market.market_id, s.length, s.price[s.length - 1]!]);
      return out;
    };
    expect(await tail(sqliteFileSeriesSource(path.join(dir, 's.db'), ids, { orderbooks: true, now: NOW }))).toEqual(
      await tail(sqliteSeriesSource(sql, ids, { orderbooks: true, now: NOW })),
    );
  });

  it('reads a dense market from its rows when its blocks are gone, and books in any order', async () => {
    const id = (await store.listMarkets({ coin: 'SOL', marketType: '5m', limit: 1, offset: 0, window: null, now: NOW })).markets[0]!.market_id;
    const want = await served(id, true);
    const blocks = sql.prepare('SELECT market, block, data FROM snapshot_blocks WHERE market = (SELECT id FROM markets WHERE market_id = ?)').raw(true).all(id) as unknown[][];
    sql.prepare('DELETE FROM snapshot_blocks WHERE market = (SELECT id FROM markets WHERE market_id = ?)').run(id);
    try {
      const [series] = await seriesOf([id], true);
      expectSame(series!, want, true);
      // Backwards, so every book is decoded from its window rather than from the one before.
      const order = Array.from({ length: series!.length }, (_, i) => series!.length - 1 - i);
      for (const i of order) {
        const got = series!.book(i, 'down');
        expect(got ? JSON.stringify({ bids: levels(got.bids), asks: levels(got.asks) }) : undefined).toBe(want[i]!.orderbook_down ? JSON.stringify(want[i]!.orderbook_down) : undefined);
      }
      // A book asked again is handed as kept, and one asked between two asks of it does not stay in its place.
      const withBook = order.filter((i) => want[i]!.orderbook_up).slice(0, 3);
      for (const i of [...withBook, withBook[0]!, withBook[1]!, withBook[1]!, withBook[0]!]) {
        const got = series!.book(i, 'up')!;
        expect(JSON.stringify({ bids: levels(got.bids), asks: levels(got.asks) })).toBe(JSON.stringify(want[i]!.orderbook_up));
      }
    } finally {
      const put = sql.prepare('INSERT INTO snapshot_blocks (market, block, data) VALUES (?, ?, ?)');
      for (const b of blocks) put.run(...b);
    }
  });
});
