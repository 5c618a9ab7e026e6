// End to end: real export files (the hosted service's shapes and msnap's own CSV, in fixtures/)
// imported with the built `msnap serve import`, served by `msnap serve`, read back with the CLI.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, msnap, ROOT, startServe, type Served } from './support/msnap-process.js';

const FIXTURES = path.join(ROOT, 'fixtures');
const fixture = (name: string) => path.join(FIXTURES, name);

/** Expected snapshot values straight from a fixture, whatever its variant spellings. */
function expectedFromHostedNdjson(): { time: number; price: number; price_up: number; price_down: number }[] {
  return readFileSync(fixture('hosted-snapshots.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, string | number>)
    .map((r) => ({
      time: typeof r.time === 'number' ? r.time : Date.parse(String(r.time)),
      price: Number(r.btc_price),
      price_up: Number(r.price_up),
      price_down: Number(r.price_down),
    }));
}

function expectedFromCsv(): string[][] {
  const [, ...rows] = readFileSync(fixture('msnap-snapshots.csv'), 'utf8').trim().split('\n');
  return rows.map((r) => r.split(','));
}

let dir: string;
let db: string;
let served: Served;
let env: Record<string, string>;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-fixtures-'));
  db = path.join(dir, 'imported.db');
}, 120_000);

afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('importing real exports', () => {
  it('loads markets, hosted-style snapshots and msnap CSV, and a second import adds nothing', async () => {
    const files = ['hosted-markets.ndjson', 'hosted-snapshots.ndjson', 'msnap-snapshots.csv', 'msnap-orderbooks-pairs.ndjson'];
    for (const f of files) {
      const r = await msnap(['serve', 'import', fixture(f), '--db', db], { cwd: dir });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(`${r.stdout}\n${r.stderr}`).toMatch(/\b[1-9]\d* (snapshots|markets) added\b/);
    }
    for (const f of files) {
      const again = await msnap(['serve', 'import', fixture(f), '--db', db], { cwd: dir });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(`${again.stdout}\n${again.stderr}`).toMatch(/\b0 snapshots added\b.*\b0 markets added\b/);
    }
    const key = await createKey(db, 'fixtures', 'pro');
    served = await startServe(db);
    env = { MSNAP_BASE_URL: served.url, MSNAP_API_KEY: key };
  }, 120_000);

  it('serves the hosted-style snapshots with their values, in time order', async () => {
    const r = await msnap(['snapshots', 'btc-updown-5m-1763769600', '--ndjson'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const got = String(r.stdout)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { time: number; price: number; price_up: number; price_down: number });
    expect(got.map(({ time, price, price_up, price_down }) => ({ time, price, price_up, price_down }))).toEqual(expectedFromHostedNdjson());
  });

  it('keeps the market facts given under btc_* aliases', async () => {
    const r = await msnap(['markets', '--coin', 'btc', '--type', '5m', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const markets = JSON.parse(String(r.stdout)) as { market_id: string; price_start: number; price_end: number; winner: string }[];
    const first = markets.find((m) => m.market_id === 'btc-updown-5m-1763769600');
    expect(first).toMatchObject({ price_start: 97123.45, price_end: 97130.1, winner: 'Up' });
    expect(markets.find((m) => m.market_id === 'btc-updown-5m-1763769900')).toMatchObject({ winner: 'Down' });
  });

  it('round-trips msnap CSV: the same rows come back as CSV', async () => {
    const r = await msnap(['snapshots', 'eth-updown-15m-1763769600', '--csv'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const [header, ...rows] = String(r.stdout).trim().split('\n');
    expect(header).toBe('id,market_id,time,price,price_up,price_down');
    // Ids are the local store's own; every other column must match the file exactly.
    expect(rows.map((row) => row.split(',').slice(1))).toEqual(expectedFromCsv().map((row) => row.slice(1)));
  });

  it('an old export with [price, size] levels comes back with {price, size} levels', async () => {
    const r = await msnap(['snapshots', 'sol-updown-5m-1763769600', '--orderbook', '--ndjson'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const got = String(r.stdout).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const file = readFileSync(fixture('msnap-orderbooks-pairs.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    const asObjects = (side: { bids: number[][]; asks: number[][] }) => ({
      bids: side.bids.map(([price, size]) => ({ price, size })),
      asks: side.asks.map(([price, size]) => ({ price, size })),
    });
    expect(got).toHaveLength(3);
    expect(got[0]!.orderbook_up).toEqual(asObjects(file[0].orderbook_up));
    expect(got[1]!.orderbook_down).toEqual(asObjects(file[1].orderbook_down));
    expect(got[2]!.orderbook_up).toBeUndefined();
  });
});
