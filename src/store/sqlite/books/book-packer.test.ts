// Deleting a market's older books (the live world's prune) first re-packs the rows that referred to
// them: every book left serves exactly as before, whichever offset the prune cuts at.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../seed/seed.js';
import { openSqliteStore } from '../open.js';
import type { SqliteStore } from '../sqlite-store.js';
import { openSql } from '../test-support/sql.js';

const NOW = Date.UTC(2025, 10, 22, 13, 7, 30, 500);
let dir: string;
let store: SqliteStore;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-packer-'));
  store = openSqliteStore(path.join(dir, 's.db'));
  seedDatabase(store.bulk, { now: NOW, days: 1, fullMarkets: { '5m': 2, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 }, orderbookMs: 86_400_000 });
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function booksOf(id: string): Promise<Map<number, string>> {
  const page = JSON.parse((await store.snapshotPageJson(id, { limit: 10_000, offset: 0, includeOrderbook: true })).json) as Record<string, unknown>[];
  return new Map(page.filter((s) => s['orderbook_up']).map((s) => [s['time'] as number, JSON.stringify([s['orderbook_up'], s['orderbook_down']])]));
}

describe('BookPacker.detachBefore (through the live world prune)', () => {
  it('leaves every remaining book as it was served, for cuts inside and on the edge of a window', async () => {
    const markets = (await store.listMarkets({ coin: 'BTC', marketType: '5m', limit: 2, offset: 0, window: null, now: NOW })).markets;
    const m = markets[1]!;
    const sql = openSql(path.join(dir, 's.db'));
    const rowid = sql.prepare('SELECT id FROM markets WHERE market_id = ?').pluck().get(m.market_id) as number;
    const deltas = () => sql.prepare("SELECT count(*) FROM orderbooks WHERE market = ? AND hex(substr(up, 1, 1)) = '01'").pluck().get(rowid) as number;
    const before = await booksOf(m.market_id);
    expect(deltas()).toBeGreaterThan(100);
    for (const cut of [2_625, 4_000, 61_125, 150_000]) {
      store.bulk.transaction(() => store.bulk.world.pruneOrderbooks(rowid, cut));
      const after = await booksOf(m.market_id);
      const kept = [...before].filter(([time]) => time - m.start_time >= cut);
      expect(after.size).toBe(kept.length);
      expect([...after]).toEqual(kept);
    }
    sql.close();
  });
});
