// serve compact-books --db postgres://… through the built CLI: a PostgreSQL store in the row layout
// an older msnap wrote (one row per snapshot and orderbook) is moved into blocks in place, serves
// the very same bytes before, during and after, and a run SIGKILLed mid-way then run again leaves
// exactly the blocks of an uninterrupted run (and of a store loaded into blocks directly).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSqliteIntoPostgres } from '../src/store/copy/sqlite-to-postgres.js';
import { buildMixedSqliteStore, MIXED_NOW } from '../src/store/conformance/test-support/mixed-sqlite-store.js';
import { moveBlocksToRows } from '../src/store/postgres/pg-legacy-layout.js';
import { openPgStore, type PgStore } from '../src/store/postgres/pg-store.js';
import { buildIfStale, msnap, killAfterProgress } from './support/msnap-process.js';
import { skipWithoutPostgres, startThrowawayPostgres, type ThrowawayPostgres } from './support/throwaway-postgres.js';

let dir: string;
let file: string;
let server: ThrowawayPostgres;
let admin: postgres.Sql;
let reference: string[];

function urlOf(db: string): string {
  const u = new URL(server.url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** A fresh database holding the mixed store: in blocks, or moved back into the legacy rows. */
async function makeStore(db: string, rows: boolean): Promise<string> {
  await admin.unsafe(`CREATE DATABASE ${db}`);
  const store = await openPgStore(urlOf(db), { max: 2 });
  try {
    await loadSqliteIntoPostgres(file, store);
    if (rows) expect(await moveBlocksToRows(store)).toBeGreaterThan(100_000);
  } finally {
    await store.close();
  }
  return urlOf(db);
}

/** Pages (with and without books, whole, deep and ranged) and nearest reads of every market, as served. */
async function served(url: string): Promise<string[]> {
  const store = await openPgStore(url, { max: 4 });
  try {
    const out: string[] = [];
    const markets = (await store.listMarkets({ limit: 100_000, offset: 0, window: null, now: MIXED_NOW })).markets;
    for (const m of markets) {
      const page = (q: object) => store.snapshotPageJson(m.market_id, { limit: 1000, offset: 0, includeOrderbook: false, ...q }).then((p) => JSON.stringify(p));
      out.push(await page({}));
      if (m.snapshot_count === 0) continue;
      out.push(await page({ includeOrderbook: true, offset: Math.floor(m.snapshot_count / 2), limit: 700 }));
      out.push(await page({ from: m.start_time + 1_000, before: m.start_time + 200_000, offset: 3, includeOrderbook: true }));
      out.push(JSON.stringify(await store.nearestSnapshot(m.market_id, m.start_time + 4_100, true)));
    }
    return out;
  } finally {
    await store.close();
  }
}

/** What the store holds, per market id: its summary, its blocks' bytes, what is left in rows. */
async function picture(url: string): Promise<unknown> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined, connection: { search_path: 'msnap' } });
  try {
    return {
      markets: await sql`SELECT market_id, snapshot_count, dense, in_rows, id_exceptions FROM markets ORDER BY market_id`,
      blocks: await sql`SELECT m.market_id, b.bucket, b.n, b.t_first, b.t_last, b.off_grid, b.p_first, b.p_last, b.n_books,
          md5(b.vals) AS vals, md5(b.books) AS books
        FROM snapshot_blocks b JOIN markets m ON m.id = b.market ORDER BY m.market_id, b.bucket`,
      rows: await sql`SELECT (SELECT count(*) FROM snapshots)::int AS snapshots, (SELECT count(*) FROM orderbooks)::int AS orderbooks`,
    };
  } finally {
    await sql.end();
  }
}

async function inRows(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined, connection: { search_path: 'msnap' } });
  try {
    return (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM markets WHERE in_rows`)[0]!.n;
  } finally {
    await sql.end();
  }
}

describe.skipIf(skipWithoutPostgres('PostgreSQL blocks migration'))('serve compact-books on PostgreSQL', () => {
  beforeAll(async () => {
    await buildIfStale();
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-pg-blocks-'));
    file = path.join(dir, 'mixed.db');
    (await buildMixedSqliteStore(dir, file)).close();
    server = await startThrowawayPostgres();
    admin = postgres(server.url, { max: 1, onnotice: () => undefined });
    reference = await served(await makeStore('loaded', false));
  }, 300_000);

  afterAll(async () => {
    await admin?.end();
    await server?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the row layout serves what blocks serve; moved, it holds what a load into blocks holds', async () => {
    const url = await makeStore('legacy', true);
    expect(await inRows(url)).toBeGreaterThan(1000);
    expect(await served(url)).toEqual(reference);
    const r = await msnap(['serve', 'compact-books', '--db', url, '--batch', '20000'], { cwd: dir, timeout: 240_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/compact-books: [\d,]+ \/ [\d,]+ markets, [\d,]+ \/ [\d,]+ rows \(\d+%\)/);
    expect(r.stdout).toMatch(/markets, [\d,]+ snapshot rows moved into blocks/);
    expect(await served(url)).toEqual(reference);
    expect(await picture(url)).toEqual(await picture(urlOf('loaded')));
  }, 300_000);

  it('resumes after a SIGKILL mid-way and ends with the blocks of an uninterrupted run', async () => {
    const whole = await makeStore('whole', true);
    const killed = await makeStore('killed', true);
    const store: PgStore = await openPgStore(whole, { max: 2 });
    try {
      await store.moveRowsToBlocks({ batchRows: 5000 });
    } finally {
      await store.close();
    }
    const ended = await killAfterProgress(['serve', 'compact-books', '--db', killed, '--batch', '5000'], 'compact-books:', 3, { cwd: dir });
    expect(ended.signal).toBe('SIGKILL');
    const left = await inRows(killed);
    expect(left).toBeGreaterThan(0);
    // Half moved: every market serves what it did.
    expect(await served(killed)).toEqual(reference);

    const rerun = await msnap(['serve', 'compact-books', '--db', killed, '--batch', '5000'], { cwd: dir, timeout: 240_000 });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(await inRows(killed)).toBe(0);
    expect(await picture(killed)).toEqual(await picture(whole));
    expect(await served(killed)).toEqual(reference);
  }, 300_000);
});
