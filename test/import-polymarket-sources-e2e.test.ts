// End to end: `msnap import polymarket` with every source behind a URL (a fake Gamma asked by
// slug, a fake Binance REST API, the archive hour served over HTTP), into SQLite and PostgreSQL,
// equal to the same import from files; and an import killed midway, run again, equal to one
// that was never stopped.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, msnap, spawnMsnap } from './support/msnap-process.js';
import { throwawayDatabase, type ThrowawayDatabase } from './support/throwaway-database.js';
import { startFakeSources, type FakeSources } from '../src/realdata/test-support/fake-sources-server.js';
import { gammaEventsBody, type GammaMarketSpec } from '../src/realdata/test-support/gamma-fixture.js';
import { generateKlines, klineDayName, klinesCsv } from '../src/realdata/test-support/kline-fixture.js';
import { writePmxtFile } from '../src/realdata/test-support/pmxt-fixture.js';
import { doneWhenHour, generatePmxtEvents, scenarioMarket, splitIntoHourFiles, DONE_WHEN_HOUR } from '../src/realdata/test-support/pmxt-scenarios.js';

const HOUR = 3_600_000;
let dir: string;
let fake: FakeSources;
let pg: ThrowawayDatabase;
const scenario = doneWhenHour(5);
const specs: GammaMarketSpec[] = scenario.markets.map((m) => ({ slug: m.marketId, conditionId: m.conditionId, tokenUp: m.tokenUp, tokenDown: m.tokenDown, start: m.start, end: m.end }));
const klines = {
  BTCUSDT: generateKlines({ interval: '1s', from: DONE_WHEN_HOUR - HOUR, to: DONE_WHEN_HOUR + 2 * HOUR, seed: 1 }),
  ETHUSDT: generateKlines({ interval: '1s', from: DONE_WHEN_HOUR - HOUR, to: DONE_WHEN_HOUR + 2 * HOUR, seed: 2, startCents: 161_230 }),
};
const file = scenario.files[0]!;
let localFile: string;
let gammaFile: string;
let priceFiles: string[];

async function snapshotsOf(db: string, id: string): Promise<string> {
  const r = await msnap(['snapshots', id, '--db', db, '--orderbook', '--ndjson', '--quiet'], { cwd: dir, keepFinalNewline: true });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-import-src-'));
  localFile = path.join(dir, file.name);
  await writePmxtFile(localFile, file.rows, { rowGroupSize: 400 });
  gammaFile = path.join(dir, 'events.json');
  writeFileSync(gammaFile, gammaEventsBody(specs));
  priceFiles = Object.entries(klines).map(([symbol, k]) => {
    const p = path.join(dir, `${klineDayName(symbol, '1s', DONE_WHEN_HOUR)}.csv`);
    writeFileSync(p, klinesCsv(k));
    return p;
  });
  fake = await startFakeSources({ gamma: specs, klines: { BTCUSDT: { '1s': klines.BTCUSDT }, ETHUSDT: { '1s': klines.ETHUSDT } }, files: { [`/pmxt/${file.name}`]: readFileSync(localFile) } });
  pg = await throwawayDatabase();
}, 120_000);

afterAll(async () => {
  await fake?.close();
  await pg?.destroy();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('msnap import polymarket from URLs', () => {
  it('asks Gamma by slug (retrying a 500) and Binance page by page, reads the hour over HTTP: equal to the import from files', async () => {
    const fromFiles = path.join(dir, 'files.db');
    const common = ['--coin', 'btc,eth', '--type', '5m,15m'];
    const a = await msnap(['import', 'polymarket', localFile, '--db', fromFiles, '--gamma-file', gammaFile, '--prices', priceFiles[0]!, '--prices', priceFiles[1]!, ...common], { cwd: dir });
    expect(a.exitCode, a.stderr).toBe(0);

    fake.fail('/events', { kind: 'status', status: 500 }, 1);
    const fromUrls = path.join(dir, 'urls.db');
    const b = await msnap(['import', 'polymarket', `${fake.url}/pmxt/${file.name}`, '--db', fromUrls, ...common], {
      cwd: dir,
      env: { MSNAP_GAMMA_URL: fake.url, MSNAP_BINANCE_URL: fake.url },
    });
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/: 3 markets \(3 new/);
    // Every 5m and 15m window of both coins in the hour was asked for; the klines in pages of 1,000.
    const slugs = fake.requests.filter((r) => r.path === '/events').map((r) => r.query.slug);
    expect(new Set(slugs).size).toBe(2 * (12 + 4));
    expect(fake.requests.filter((r) => r.path === '/api/v3/klines').every((r) => r.query.limit === '1000')).toBe(true);
    for (const m of scenario.markets) expect(await snapshotsOf(fromUrls, m.marketId)).toBe(await snapshotsOf(fromFiles, m.marketId));
  }, 120_000);

  it('imports into PostgreSQL: the same snapshots, and again adds nothing', async () => {
    const args = ['import', 'polymarket', localFile, '--db', pg.url, '--gamma-file', gammaFile, '--prices', priceFiles[0]!, '--prices', priceFiles[1]!];
    const first = await msnap(args, { cwd: dir });
    expect(first.exitCode, first.stderr).toBe(0);
    const again = await msnap(args, { cwd: dir });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/, 0 snapshots /);
    const sqlite = path.join(dir, 'files.db');
    for (const m of scenario.markets) {
      const inPg = await snapshotsOf(pg.url, m.marketId);
      const inSqlite = await snapshotsOf(sqlite, m.marketId);
      // Snapshot ids carry the store's own row id of the market; everything else is equal.
      const strip = (s: string) => s.replace(/"id":\d+,/g, '');
      expect(strip(inPg)).toBe(strip(inSqlite));
      expect(inPg.length).toBeGreaterThan(0);
    }
    const markets = await msnap(['markets', '--db', pg.url, '--ndjson', '--quiet'], { cwd: dir });
    for (const line of markets.stdout.trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ winner: null });
  }, 120_000);
});

describe('an import killed midway', () => {
  it('run again equals an import that was never stopped', async () => {
    // Six hours, a 5m market in each: the kill lands between the hours' transactions.
    const markets = [0, 1, 2, 3, 4, 5].map((i) => {
      const start = DONE_WHEN_HOUR + i * HOUR + 30 * 60_000;
      return { ...scenarioMarket(`btc-updown-5m-${start / 1000}`, start, start + 5 * 60_000), marketId: `btc-updown-5m-${start / 1000}` };
    });
    const rows = generatePmxtEvents({ seed: 11, markets, from: DONE_WHEN_HOUR, to: DONE_WHEN_HOUR + 6 * HOUR - 5_000, eventsPerSecond: 0.25 });
    const sub = path.join(dir, 'killed');
    mkdirSync(sub, { recursive: true });
    for (const f of splitIntoHourFiles(rows)) await writePmxtFile(path.join(sub, f.name), f.rows);
    const gamma = path.join(sub, 'events.json');
    writeFileSync(gamma, gammaEventsBody(markets.map((m) => ({ slug: m.marketId, conditionId: m.conditionId, tokenUp: m.tokenUp, tokenDown: m.tokenDown, start: m.start, end: m.end }))));
    const prices = path.join(sub, 'BTCUSDT-1s-2026-04-13.csv');
    writeFileSync(prices, klinesCsv(generateKlines({ interval: '1s', from: DONE_WHEN_HOUR - HOUR, to: DONE_WHEN_HOUR + 7 * HOUR, seed: 3 })));
    const args = (db: string) => ['import', 'polymarket', path.join(sub, '*.parquet'), '--db', db, '--gamma-file', gamma, '--prices', prices];

    const whole = path.join(sub, 'whole.db');
    expect((await msnap(args(whole), { cwd: dir })).exitCode).toBe(0);

    // Kill once some hours are committed and others are not (tries again if the run finished first).
    let killedMidway = false;
    let killed = '';
    for (let attempt = 0; attempt < 5 && !killedMidway; attempt++) {
      killed = path.join(sub, `killed-${attempt}.db`);
      const proc = spawnMsnap(args(killed), { cwd: dir });
      let hours = 0;
      while (proc.exitCode === null) {
        try {
          const db = new Database(killed, { readonly: true, fileMustExist: true });
          try {
            hours = (db.prepare('SELECT count(*) AS n FROM realdata_hours').get() as { n: number }).n;
          } finally {
            db.close();
          }
        } catch {
          hours = 0;
        }
        if (hours >= 1 && hours < 6) {
          proc.kill('SIGKILL');
          break;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      const result = await proc.catch((e: { signal?: string }) => e);
      killedMidway = (result as { signal?: string }).signal === 'SIGKILL';
    }
    expect(killedMidway).toBe(true);
    expect((await msnap(args(killed), { cwd: dir })).exitCode).toBe(0);
    const all = async (db: string) => (await msnap(['snapshots', 'BTC', '5m', '--last', '6', '--db', db, '--orderbook', '--ndjson', '--quiet'], { cwd: dir, keepFinalNewline: true })).stdout;
    const expected = await all(whole);
    expect(expected.split('\n').length).toBeGreaterThan(6 * 2000);
    expect(await all(killed)).toBe(expected);
  }, 180_000);
});
