import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../store/seed/seed.js';
import { openSqliteStore } from '../store/sqlite/open.js';
import type { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { marketSeries } from './series.js';

const NOW = Date.UTC(2026, 10, 23, 12, 30);
let dir: string;
let store: SqliteStore;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-series-'));
  store = openSqliteStore(path.join(dir, 's.db'));
  seedDatabase(store.bulk, { now: NOW, days: 1, fullMarkets: { '5m': 2, '15m': 0, '1hr': 2, '4hr': 0, '24hr': 0 } });
});
afterAll(async () => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function market(type: '5m' | '1hr') {
  // The older of the two full markets: resolved, with every snapshot of its life.
  return (await store.listMarkets({ coin: 'BTC', marketType: type, limit: 2, offset: 0, window: null, now: NOW })).markets[1]!;
}

describe('chart series', () => {
  it('holds every snapshot of a short market, oldest first, the same values the API serves', async () => {
    const m = await market('5m');
    const s = await marketSeries(store, m, 2400);
    expect(s.t).toHaveLength(m.snapshot_count);
    expect(s.t[0]).toBe(m.start_time);
    expect(s.t[s.t.length - 1]).toBe(m.end_time - 125);
    const first = (await store.nearestSnapshot(m.market_id, m.start_time))!;
    expect([s.price[0], s.up[0], s.down[0]]).toEqual([first.price, first.price_up, first.price_down]);
  });

  it('samples a long market at even steps over its whole life, never more points than asked', async () => {
    const m = await market('1hr');
    expect(m.snapshot_count).toBe(28_800);
    const s = await marketSeries(store, m, 100);
    expect(s.t).toHaveLength(100);
    for (let i = 1; i < s.t.length; i++) expect(s.t[i]! - s.t[i - 1]!).toBe(36_000);
    expect(s.t[0]).toBe(m.start_time);
    expect(s.t[99]).toBe(m.end_time - 36_000);
    const at = (await store.nearestSnapshot(m.market_id, s.t[50]!))!;
    expect([s.price[50], s.up[50], s.down[50]]).toEqual([at.price, at.price_up, at.price_down]);
  });
});
