// serve compact-books through the built CLI: a store whose orderbooks an older msnap wrote as JSON
// text is packed in place, serves the very same bytes, and a run SIGKILLed mid-way then run again
// leaves exactly the rows an uninterrupted run leaves.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookReader, type StoredBook } from '../src/store/sqlite/books/book-reader.js';
import { openSqliteStore } from '../src/store/sqlite/open.js';
import { buildIfStale, msnap, seed, killAfterProgress } from './support/msnap-process.js';

const NOW = Date.now();
let dir: string;
let original: string;

/** Rewrites every packed orderbook row as the JSON text an older msnap stored, plus one text the codec declines. */
function unpack(file: string): void {
  const db = new Database(file);
  const reader = new BookReader(db);
  const rows = db.prepare('SELECT market, t, up, down FROM orderbooks ORDER BY market, t').raw(true).all() as [number, number, StoredBook, StoredBook][];
  const texts = rows.map(([m, t, up, down]) => [...reader.texts(m, t, up, down), m, t]);
  const update = db.prepare('UPDATE orderbooks SET up = ?, down = ? WHERE market = ? AND t = ?');
  db.transaction(() => {
    for (const row of texts) update.run(...row);
    update.run('{"asks":[],"bids":[[0.5,"1"]]}', '{"bids":[],"asks":[]}', rows[5]![0], rows[5]![1]);
  })();
  db.close();
}

/** Every page of every market with its books, as served. */
async function servedPages(file: string): Promise<string[]> {
  const store = openSqliteStore(file, { readonly: true });
  try {
    const out: string[] = [];
    const markets = (await store.listMarkets({ limit: 1000, offset: 0, window: null, now: NOW })).markets.filter((m) => m.snapshot_count > 0);
    for (const m of markets) {
      for (let offset = 0; offset < m.snapshot_count; offset += 1000) {
        out.push((await store.snapshotPageJson(m.market_id, { limit: 1000, offset, includeOrderbook: true })).json);
      }
      out.push(JSON.stringify(await store.nearestSnapshot(m.market_id, m.start_time + 4_100, true)));
    }
    return out;
  } finally {
    store.close();
  }
}

function bookRows(file: string): { rows: unknown[][]; text: number } {
  const db = new Database(file, { readonly: true });
  try {
    return {
      rows: db.prepare('SELECT market, t, up, down FROM orderbooks ORDER BY market, t').raw(true).all(),
      text: db.prepare("SELECT count(*) FROM orderbooks WHERE typeof(up) = 'text'").pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-compact-'));
  original = path.join(dir, 'old.db');
  await seed(original, ['--days', '1', '--full', '5m=3,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-days', '1']);
  unpack(original);
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serve compact-books', () => {
  it('packs the text rows in place and serves the same bytes as before', async () => {
    const file = path.join(dir, 'a.db');
    copyFileSync(original, file);
    const before = await servedPages(file);
    const old = bookRows(file);
    expect(old.text).toBe(old.rows.length);
    const r = await msnap(['serve', 'compact-books', '--db', file, '--batch', '1000'], { cwd: dir, timeout: 120_000 });
    expect(r.stderr).toMatch(/compact-books: [\d,]+ \/ [\d,]+ text rows \(\d+%\)/);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${(old.rows.length - 1).toLocaleString('en-US')} orderbook rows packed, 1 kept as text`);
    expect(bookRows(file).text).toBe(1);
    expect(await servedPages(file)).toEqual(before);
    // Again: nothing left to do, nothing changes.
    const rows = bookRows(file).rows;
    expect((await msnap(['serve', 'compact-books', '--db', file], { cwd: dir })).stdout).toContain('0 orderbook rows packed, 1 kept as text');
    expect(bookRows(file).rows).toEqual(rows);
  }, 180_000);

  it('resumes after a SIGKILL mid-way and ends with the rows of an uninterrupted run', async () => {
    const whole = path.join(dir, 'whole.db');
    const killed = path.join(dir, 'killed.db');
    copyFileSync(original, whole);
    copyFileSync(original, killed);
    expect((await msnap(['serve', 'compact-books', '--db', whole, '--batch', '50'], { cwd: dir, timeout: 120_000 })).exitCode).toBe(0);

    const ended = await killAfterProgress(['serve', 'compact-books', '--db', killed, '--batch', '50'], 'compact-books:', 3, { cwd: dir });
    expect(ended.signal).toBe('SIGKILL');
    const partial = bookRows(killed);
    expect(partial.text).toBeGreaterThan(1);
    expect(partial.text).toBeLessThan(partial.rows.length);

    const rerun = await msnap(['serve', 'compact-books', '--db', killed, '--batch', '50'], { cwd: dir, timeout: 120_000 });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(bookRows(killed).rows).toEqual(bookRows(whole).rows);
  }, 180_000);
});
