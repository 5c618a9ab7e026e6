// A page's books read in one statement are the rows the column-by-column reads give, packed or
// text, whole pages, ranges with gaps and empty ones.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../seed/seed.js';
import { PageBookRange } from './book-range.js';
import { openSqliteStore } from '../open.js';

const NOW = Date.UTC(2025, 10, 22, 13, 7, 30, 500);
let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-book-range-'));
  file = path.join(dir, 's.db');
  const store = openSqliteStore(file);
  seedDatabase(store.bulk, { now: NOW, days: 1, fullMarkets: { '5m': 2, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 }, orderbookMs: 86_400_000 });
  store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the columns give, straight from SQLite (the reference). */
function expected(db: Database.Database, market: number, from: number, to: number) {
  const rows = db.prepare('SELECT t, up, down FROM orderbooks WHERE market = ? AND t >= ? AND t < ? ORDER BY t').raw(true).all(market, from, to) as [number, Uint8Array | string, unknown][];
  const anyText = rows.some((r) => typeof r[1] === 'string');
  return { t: rows.map((r) => r[0]), up: rows.map((r) => (typeof r[1] === 'string' ? r[1] : Buffer.from(r[1]))), down: anyText ? rows.map((r) => (typeof r[1] === 'string' ? r[2] : null)) : [] };
}

describe('PageBookRange', () => {
  it('reads packed pages, pages with gaps, empty ranges and pages holding text rows as the columns hold them', () => {
    const db = new Database(file);
    const market = db.prepare('SELECT market FROM orderbooks GROUP BY market ORDER BY count(*) DESC LIMIT 1').pluck().get() as number;
    const range = new PageBookRange(db);
    // Which read ran: the joined one hands out views of one BLOB.
    const check = (from: number, to: number, joined: boolean) => {
      const got = range.read(market, from, to)!;
      expect({ ...got, up: got.up.map((b) => (typeof b === 'string' ? b : Buffer.from(b))) }).toEqual(expected(db, market, from, to));
      const first = got.up[0];
      expect(got.up.length > 1 && got.up.every((b) => typeof b !== 'string' && typeof first !== 'string' && b.buffer === first!.buffer)).toBe(joined);
    };
    for (const [from, to] of [[0, 125_000], [1_000, 1_250], [250_000, 260_000]] as const) check(from, to, true);
    check(9e9, 9e9 + 1, false);
    // A gap, and a text row among the packed ones (an older store's): the column-by-column path.
    db.prepare('DELETE FROM orderbooks WHERE market = ? AND t IN (2000, 2125)').run(market);
    check(0, 125_000, true);
    db.prepare(`UPDATE orderbooks SET up = '{"bids":[],"asks":[]}', down = '{"bids":[],"asks":[]}' WHERE market = ? AND t = 5000`).run(market);
    check(0, 125_000, false);
    expect(typeof range.read(market, 0, 125_000)!.up.find((b) => typeof b === 'string')).toBe('string');
    db.close();
  });
});
