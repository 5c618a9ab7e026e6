// End to end: a generated PMXT v2 archive hour (two BTC 5m markets, one ETH 15m market and
// unrelated assets), saved Gamma answers and Binance kline files, imported by the built
// `msnap import polymarket`; every market's snapshots must equal the independent reference
// reconstruction (src/realdata/test-support/reference-snapshots.ts) byte for byte.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, msnap, ROOT, startServe } from './support/msnap-process.js';
import { openStream, type Frame } from './support/stream-client.js';
import { expected, prepare } from './support/import-world.js';
import { writePmxtV1File, writeTruncatedCopy, writeUnrelatedParquetFile } from '../src/realdata/test-support/pmxt-fixture.js';
import { doneWhenHour, twoHourScenario, type PmxtScenario } from '../src/realdata/test-support/pmxt-scenarios.js';

let dir: string;
/** The done-when hour's store, shared by the tests that use it after the import. */
let oneHourDb: string;
let oneHour: PmxtScenario;

async function snapshotsOf(db: string, id: string): Promise<string> {
  const r = await msnap(['snapshots', id, '--db', db, '--orderbook', '--ndjson', '--quiet'], { cwd: dir, keepFinalNewline: true });
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return r.stdout;
}

const rowidOf = (ndjson: string) => Math.floor((JSON.parse(ndjson.slice(0, ndjson.indexOf('\n'))) as { id: number }).id / 1e8);

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-import-pm-'));
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('msnap import polymarket', () => {
  it('imports the done-when hour: every market equals the reference byte for byte; again adds nothing', async () => {
    const scenario = (oneHour = doneWhenHour());
    const winners = { [scenario.markets[0]!.marketId]: 'Up' as const };
    const p = await prepare(dir, 'one-hour', scenario, winners);
    const db = (oneHourDb = path.join(dir, 'one-hour.db'));
    const args = ['import', 'polymarket', ...p.files, '--db', db, '--gamma-file', p.gamma, '--prices', p.prices[0]!, '--prices', p.prices[1]!];
    const first = await msnap(args, { cwd: dir });
    expect(first.stderr).toBe('');
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/^imported 1 file into .*one-hour\.db: 3 markets \(3 new, 2 unresolved\), [\d,]+ snapshots/);
    for (const m of scenario.markets) {
      const got = await snapshotsOf(db, m.marketId);
      expect(got.length).toBeGreaterThan(0);
      expect(got).toBe(expected(scenario, p, m, rowidOf(got)));
    }
    const markets = await msnap(['markets', '--db', db, '--ndjson', '--quiet'], { cwd: dir });
    const listed = markets.stdout.trim().split('\n').map((l) => JSON.parse(l) as { market_id: string; winner: string | null; condition_id: string | null });
    expect(listed.map((m) => m.market_id).sort()).toEqual(scenario.markets.map((m) => m.marketId).sort());
    // The winner is Gamma's, and only where Gamma says the market is closed.
    for (const m of listed) expect(m.winner).toBe(m.market_id === scenario.markets[0]!.marketId ? 'Up' : null);

    const again = await msnap(args, { cwd: dir });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/^imported 0 files into .*: 3 markets \(0 new, 2 unresolved\), 0 snapshots .*; 3 market-hours already imported$/);
  }, 120_000);

  it('stitches a market across two hour files, whether the hours come in one run or two', async () => {
    const scenario = twoHourScenario();
    const p = await prepare(dir, 'two-hours', scenario);
    const together = path.join(dir, 'together.db');
    const apart = path.join(dir, 'apart.db');
    const common = ['--gamma-file', p.gamma, '--prices', p.prices[0]!, '--coin', 'btc'];
    expect((await msnap(['import', 'polymarket', ...p.files, '--db', together, ...common], { cwd: dir })).exitCode).toBe(0);
    for (const f of p.files) expect((await msnap(['import', 'polymarket', f, '--db', apart, ...common], { cwd: dir })).exitCode).toBe(0);
    for (const m of scenario.markets) {
      const one = await snapshotsOf(together, m.marketId);
      expect(one).toBe(expected(scenario, p, m, rowidOf(one)));
      expect(await snapshotsOf(apart, m.marketId)).toBe(one);
    }
  }, 120_000);

  it('refuses bad input with one line naming the file, exit 2, and writes nothing', async () => {
    const scenario = doneWhenHour(3);
    const p = await prepare(dir, 'bad', scenario);
    const db = path.join(dir, 'bad.db');
    const v1 = path.join(dir, 'bad', 'polymarket_orderbook_2026-04-13T12.v1.parquet');
    await writePmxtV1File(v1);
    const other = path.join(dir, 'bad', 'other.parquet');
    await writeUnrelatedParquetFile(other);
    const cut = path.join(dir, 'bad', 'polymarket_orderbook_2026-04-13T13.parquet');
    await writeTruncatedCopy(p.files[0]!, cut);
    const notGamma = path.join(dir, 'bad', 'not-gamma.json');
    writeFileSync(notGamma, JSON.stringify({ data: [1, 2, 3] }));
    const ethNamedBtc = path.join(dir, 'bad', 'ETHUSDT-1s-2026-04-13.csv');
    copyFileSync(p.prices[1]!, ethNamedBtc);
    const cases: [string[], RegExp][] = [
      [[v1, '--gamma-file', p.gamma, '--prices', p.prices[0]!], /v1\.parquet: a PMXT v1 archive file/],
      [[other, '--gamma-file', p.gamma, '--prices', p.prices[0]!], /other\.parquet: not a PMXT v2 orderbook file/],
      [[cut, '--gamma-file', p.gamma, '--prices', p.prices[0]!], /T13\.parquet: not a complete Parquet file/],
      [[p.files[0]!, '--gamma-file', notGamma, '--prices', p.prices[0]!], /not-gamma\.json/],
      [[p.files[0]!, '--gamma-file', p.gamma, '--prices', ethNamedBtc, '--coin', 'btc'], /ETHUSDT-1s-2026-04-13\.csv/],
      [[path.join(dir, 'bad', 'missing-*.parquet'), '--gamma-file', p.gamma], /missing-\*\.parquet: no file matches/],
    ];
    for (const [args, message] of cases) {
      const r = await msnap(['import', 'polymarket', ...args, '--db', db], { cwd: dir });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const listed = await msnap(['markets', '--db', db, '--ndjson', '--quiet'], { cwd: dir });
    expect(listed.stdout.trim()).toBe('');
  }, 120_000);

  it('runs quality, backtest and a replayed /v1/stream on the imported store', async () => {
    const [btc] = oneHour.markets;
    const quality = await msnap(['quality', btc!.marketId, '--db', oneHourDb, '--format', 'json', '--quiet'], { cwd: dir });
    expect(quality.exitCode, quality.stderr).toBe(0);
    const report = JSON.parse(quality.stdout) as Record<string, unknown>[];
    expect(report[0]).toMatchObject({ market_id: btc!.marketId });

    const bt = await msnap(['backtest', path.join(ROOT, 'examples/cheap-up.json'), 'BTC', '5m', '--last', '2', '--db', oneHourDb, '--format', 'json', '--quiet'], { cwd: dir });
    expect(bt.exitCode, bt.stderr).toBe(0);
    const run = JSON.parse(bt.stdout) as { data: { markets: number; snapshots: number } };
    expect(run.data.markets).toBe(2);
    expect(run.data.snapshots).toBeGreaterThan(0);

    const key = await createKey(oneHourDb, 'real-bot', 'pro');
    const s = await startServe(oneHourDb, { args: ['--replay', String(btc!.start - 60_000), '--speed', '60', '--until', String(btc!.end + 1_000)] });
    try {
      const stream = openStream(s.url, { token: key });
      await stream.opened;
      stream.ws.send(JSON.stringify({ type: 'subscribe', coins: ['btc'], market_types: ['5m'], orderbook: true }));
      await stream.next('subscribed');
      await stream.next('end', undefined, 30_000);
      const mine = (f: Frame) => ((f.snapshot ?? f.market) as { market_id?: string } | undefined)?.market_id === btc!.marketId;
      const snapshots = stream.frames.filter((f) => f.type === 'snapshot' && mine(f)).map((f) => f.snapshot);
      const page = (await (await fetch(`${s.url}/v1/markets/${btc!.marketId}/snapshots?limit=10000&include_orderbook=true`, { headers: { 'X-API-Key': key } })).json()) as { snapshots: unknown[] };
      expect(snapshots.length).toBeGreaterThan(0);
      expect(snapshots).toEqual(page.snapshots);
      stream.ws.close();
    } finally {
      await s.stop();
    }
  }, 120_000);
});
