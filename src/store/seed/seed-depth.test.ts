// Depth for the whole seeded history (serve seed --orderbook-days): every full snapshot carries
// both books, the same for the same seed, and served pages with include_orderbook hold them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../sqlite/open.js';
import type { SqliteStore } from '../sqlite/sqlite-store.js';
import { openSql } from '../sqlite/test-support/sql.js';
import { seedDatabase } from './seed.js';

const NOW = Date.UTC(2025, 10, 22, 13, 7, 30, 500);
const DAY = 86_400_000;
const SMALL = { '5m': 5, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } as const;
const dirs: string[] = [];
const stores: SqliteStore[] = [];

function seeded(seed: number, orderbookMs: number): { store: SqliteStore; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'msnap-seed-depth-'));
  dirs.push(dir);
  const file = path.join(dir, 's.db');
  const store = openSqliteStore(file);
  stores.push(store);
  seedDatabase(store.bulk, { now: NOW, days: 1, seed, fullMarkets: SMALL, orderbookMs });
  return { store, file };
}

/** Every orderbook as served: market id, time, and both books' JSON, oldest market first. */
async function servedBooks(store: SqliteStore): Promise<string[]> {
  const markets = (await store.listMarkets({ limit: 1000, offset: 0, window: null, now: NOW })).markets.filter((m) => m.snapshot_count > 0);
  const out: string[] = [];
  for (const m of markets.reverse()) {
    for (let offset = 0; offset < m.snapshot_count; offset += 1000) {
      const page = JSON.parse((await store.snapshotPageJson(m.market_id, { limit: 1000, offset, includeOrderbook: true })).json) as Record<string, unknown>[];
      for (const s of page) out.push(`${m.market_id} ${String(s['time'])} ${JSON.stringify(s['orderbook_up'])} ${JSON.stringify(s['orderbook_down'])}`);
    }
  }
  return out;
}

// Seeding a day with full depth costs ~1 s: a store the tests only read is seeded once per file
// (seed 5, a day of books); a test that compares two seeds still seeds its second one itself.
let shared: Promise<{ store: SqliteStore; file: string; books: string[] }> | undefined;
function seedFiveDay(): Promise<{ store: SqliteStore; file: string; books: string[] }> {
  shared ??= (async () => {
    const s = seeded(5, DAY);
    return { ...s, books: await servedBooks(s.store) };
  })();
  return shared;
}

afterAll(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('seedDatabase with an orderbook window of days', () => {
  it('gives every snapshot of every full market both books, served with include_orderbook', async () => {
    const { store, file, books } = await seedFiveDay();
    const counts = store.bulk.counts();
    expect(counts.snapshots).toBeGreaterThan(5000);
    expect(counts.orderbooks).toBe(counts.snapshots);
    expect(books).toHaveLength(counts.snapshots);
    const bad = books.filter((line) => {
      const [, , up, down] = line.split(' ');
      return [up, down].some((side) => {
        const book = JSON.parse(side!) as { bids: { price: number; size: number }[]; asks: { price: number; size: number }[] } | undefined;
        if (!book || book.bids.length + book.asks.length === 0) return true;
        return book.bids.some((l, i) => i > 0 && l.price >= book.bids[i - 1]!.price) || book.asks.some((l, i) => i > 0 && l.price <= book.asks[i - 1]!.price);
      });
    });
    expect(bad).toEqual([]);
    // The oldest full market starts well before the default 10-minute window.
    const sql = openSql(file);
    const oldest = sql.prepare('SELECT min(m.start_time) FROM markets m JOIN orderbooks o ON o.market = m.id').pluck().get() as number;
    sql.close();
    expect(oldest).toBeLessThan(NOW - 20 * 60_000);
  });

  it('is deterministic: the same seed serves the same books; another seed other books', async () => {
    const a = (await seedFiveDay()).books;
    expect(await servedBooks(seeded(5, DAY).store)).toEqual(a);
    const other = await servedBooks(seeded(6, DAY).store);
    expect(other).toHaveLength(a.length);
    expect(other).not.toEqual(a);
  });

  it('agrees with a seed of a shorter window on the books both hold', async () => {
    const all = (await seedFiveDay()).books;
    const recent = (await servedBooks(seeded(5, 10 * 60_000).store)).filter((l) => !l.endsWith('undefined undefined'));
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.length).toBeLessThan(all.length);
    const byKey = new Set(all);
    for (const line of recent) expect(byKey.has(line)).toBe(true);
  });
});
