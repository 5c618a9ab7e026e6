// End to end into PostgreSQL: the archive fixtures of test/import-polymarket-e2e.test.ts imported by
// the built `msnap import polymarket --db postgres://…` into a throwaway database must give what the
// same import into an SQLite file gives (markets with their slug, fee schedule and price source;
// snapshots with books, byte for byte through `msnap snapshots`); an hour imported again adds
// nothing; a market's hours imported in separate runs are stitched (the tape state lives in the
// database); and an import stopped midway leaves no half-written hour.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, msnap } from './support/msnap-process.js';
import { expected, prepare, type Prepared } from './support/import-world.js';
import { databaseAvailable, throwawayDatabase, type ThrowawayDatabase } from './support/throwaway-database.js';
import { doneWhenHour, twoHourScenario, type PmxtScenario } from '../src/realdata/test-support/pmxt-scenarios.js';
import { expandArchiveArgs } from '../src/realdata/import/archive-inputs.js';
import { marketsFromGammaFiles, pricesFromFiles } from '../src/realdata/import/import-sources.js';
import { importPolymarket } from '../src/realdata/import/polymarket-import.js';
import { openStore } from '../src/store/open-store.js';

const available = await databaseAvailable();
if (!available) console.warn('skipping "msnap import polymarket into PostgreSQL": no PostgreSQL server at 127.0.0.1:5432 and no server binaries');

const HOUR = 3_600_000;
let dir: string;
const databases: ThrowawayDatabase[] = [];

beforeAll(async () => {
  if (!available) return;
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-import-pg-'));
}, 120_000);

afterAll(async () => {
  for (const d of databases) await d.destroy();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function freshDatabase(): Promise<string> {
  const d = await throwawayDatabase();
  databases.push(d);
  return d.url;
}

function importArgs(p: Prepared, db: string, files = p.files, prices = p.prices): string[] {
  return ['import', 'polymarket', ...files, '--db', db, '--gamma-file', p.gamma, ...prices.flatMap((f) => ['--prices', f])];
}

async function run(args: string[]): Promise<string> {
  const r = await msnap(args, { cwd: dir, keepFinalNewline: true });
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return r.stdout;
}

const snapshotsOf = (db: string, id: string) => run(['snapshots', id, '--db', db, '--orderbook', '--ndjson', '--quiet']);
const marketsOf = (db: string) => run(['markets', '--db', db, '--ndjson', '--quiet']);

interface Provenance {
  market_id: string;
  slug: string | null;
  fee_schedule: string | null;
  price_source: string | null;
}

/** What the markets list does not show: each market's real-data columns, from either backend. */
async function provenance(db: string): Promise<Provenance[]> {
  if (db.startsWith('postgres')) {
    const sql = postgres(db, { max: 1, onnotice: () => undefined });
    try {
      return [...(await sql<Provenance[]>`SELECT market_id, slug, fee_schedule, price_source FROM msnap.markets ORDER BY market_id`)];
    } finally {
      await sql.end({ timeout: 1 });
    }
  }
  const file = new Database(db, { readonly: true });
  try {
    return file.prepare('SELECT market_id, slug, fee_schedule, price_source FROM markets ORDER BY market_id').all() as Provenance[];
  } finally {
    file.close();
  }
}

/** Every market of the scenario, listed and snapshotted, equal in the two stores and to the reference. */
async function expectSameStores(scenario: PmxtScenario, p: Prepared, sqliteDb: string, pgUrl: string, ids: 'same' | 'differ' = 'same'): Promise<void> {
  // A rolled-back insert uses up a PostgreSQL sequence value (not an SQLite rowid): row ids then differ.
  const norm = (text: string) => (ids === 'same' ? text : text.replace(/"id":\d+,/g, ''));
  expect(norm(await marketsOf(pgUrl))).toBe(norm(await marketsOf(sqliteDb)));
  const prov = await provenance(pgUrl);
  expect(prov).toEqual(await provenance(sqliteDb));
  expect(prov.map((m) => m.price_source)).toEqual(scenario.markets.map(() => 'binance'));
  for (const m of scenario.markets) {
    const got = await snapshotsOf(pgUrl, m.marketId);
    expect(got).toContain('"orderbook_up"');
    expect(norm(got)).toBe(norm(await snapshotsOf(sqliteDb, m.marketId)));
    expect(got).toBe(expected(scenario, p, m, Math.floor((JSON.parse(got.slice(0, got.indexOf('\n'))) as { id: number }).id / 1e8)));
  }
}

describe.skipIf(!available)('msnap import polymarket into PostgreSQL', () => {
  it('imports the same markets and snapshots as into SQLite; the same file again adds nothing', async () => {
    const scenario = doneWhenHour();
    const p = await prepare(dir, 'one-hour', scenario, { [scenario.markets[0]!.marketId]: 'Up' });
    const sqliteDb = path.join(dir, 'one-hour.db');
    const url = await freshDatabase();
    const intoSqlite = await run(importArgs(p, sqliteDb));
    const intoPg = await run(importArgs(p, url));
    const counts = (line: string) => line.replace(/ into .*?: (\d)/, ': $1').replace(/ in [\d.]+ s \(.*\)/, '');
    expect(counts(intoPg)).toBe(counts(intoSqlite));
    expect(intoPg).toMatch(/^imported 1 file into .*: 3 markets \(3 new, 2 unresolved\), [\d,]+ snapshots/);
    await expectSameStores(scenario, p, sqliteDb, url);

    const again = await run(importArgs(p, url));
    expect(again).toMatch(/^imported 0 files into .*: 3 markets \(0 new, 2 unresolved\), 0 snapshots .*; 3 market-hours already imported\n$/);
    await expectSameStores(scenario, p, sqliteDb, url);
  }, 120_000);

  it("stitches a market across hour files imported in separate runs, as SQLite's one run does", async () => {
    const scenario = twoHourScenario();
    const p = await prepare(dir, 'two-hours', scenario);
    const sqliteDb = path.join(dir, 'two-hours.db');
    const url = await freshDatabase();
    const btc = [p.prices[0]!];
    await run([...importArgs(p, sqliteDb, p.files, btc), '--coin', 'btc']);
    for (const f of p.files) await run([...importArgs(p, url, [f], btc), '--coin', 'btc']);
    await expectSameStores(scenario, p, sqliteDb, url);
  }, 120_000);

  it('an import stopped midway leaves nothing of the hour it was writing; run again it equals an uninterrupted one', async () => {
    const scenario = doneWhenHour(4);
    const p = await prepare(dir, 'stopped', scenario);
    const url = await freshDatabase();
    const choice = { coins: ['BTC', 'ETH'] as const, types: ['5m', '15m'] as const, from: scenario.files[0]!.hour, to: scenario.files[0]!.hour + HOUR };
    const { markets } = await marketsFromGammaFiles([p.gamma], { ...choice, coins: [...choice.coins], types: [...choice.types] });
    const prices = await pricesFromFiles(p.prices, ['BTC', 'ETH']);
    const stop = new AbortController();
    const store = await openStore(url);
    let progressed = 0;
    try {
      // Stopped inside the hour's transaction, after its first market was read and written.
      const stopped = importPolymarket(store.recordWrites(), {
        files: expandArchiveArgs(p.files),
        markets,
        prices: (coin) => prices.get(coin),
        priceSource: 'binance',
        signal: stop.signal,
        onProgress: () => {
          progressed++;
          stop.abort();
        },
      });
      await expect(stopped).rejects.toThrow(/abort/i);
      expect(progressed).toBe(1);
    } finally {
      await store.close();
    }
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      const [left] = await sql<{ markets: number; blocks: number; hours: number; states: number }[]>`
        SELECT (SELECT count(*)::int FROM msnap.markets) AS markets, (SELECT count(*)::int FROM msnap.snapshot_blocks) AS blocks,
               (SELECT count(*)::int FROM msnap.realdata_hours) AS hours, (SELECT count(*)::int FROM msnap.realdata_state) AS states`;
      expect(left).toEqual({ markets: 0, blocks: 0, hours: 0, states: 0 });
    } finally {
      await sql.end({ timeout: 1 });
    }
    const sqliteDb = path.join(dir, 'stopped.db');
    await run(importArgs(p, sqliteDb));
    await run(importArgs(p, url));
    await expectSameStores(scenario, p, sqliteDb, url, 'differ');
  }, 120_000);
});
