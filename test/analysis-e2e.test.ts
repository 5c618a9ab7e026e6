// Bars and the quality report through the built CLI against a real seeded `msnap serve`, with a
// crafted market (gaps, two snapshots in one slot, up + down far from 1, a price jump) loaded
// through `msnap serve import`. Bars are compared with a plain reference computation.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceBars, type RefSnapshot } from './support/reference-bars.js';
import { msnap } from './support/msnap-process.js';
import { startSeededService, type SeededService } from './support/seeded-service.js';

let svc: SeededService;
let crafted: { id: string; start: number };
let clean: string[];

const ndjson = (text: string): Record<string, unknown>[] => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

// Slots left out of the crafted market: 80 after slot 400, 4 after 1500, the last 5.
const missing = (i: number): boolean => (i >= 400 && i < 480) || (i >= 1500 && i < 1504) || i >= 2395;

function craftedRows(id: string, start: number): RefSnapshot[] {
  let seed = 5;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) + 1) / (2 ** 31 + 1);
  let price = 97000;
  const rows: RefSnapshot[] = [];
  for (let i = 0; i < 2400; i++) {
    const z = Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand());
    price *= Math.exp(5e-5 * z) * (i === 2000 ? 1.03 : 1);
    if (missing(i)) continue;
    const up = Math.round(rand() * 98 + 1) / 100;
    const sumOff = i === 200 || i === 201;
    const row = { market_id: id, time: start + i * 125, price: Math.round(price * 100) / 100, price_up: sumOff ? 0.9 : up, price_down: sumOff ? 0.9 : Math.round((1 - up) * 100) / 100 };
    rows.push(row);
    // A second snapshot 3 ms later, in the same 125 ms slot.
    if (i === 100 || i === 900) rows.push({ ...row, time: row.time + 3 });
  }
  return rows;
}

beforeAll(async () => {
  svc = await startSeededService('analysis', ['--days', '1', '--seed', '9', '--full', '5m=3,15m=1,1hr=0,4hr=0,24hr=0']);
  const markets = ndjson((await svc.run(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '6', '--ndjson'])).stdout);
  const empty = markets.find((m) => m['snapshot_count'] === 0)!;
  crafted = { id: empty['market_id'] as string, start: empty['start_time'] as number };
  clean = markets.filter((m) => (m['snapshot_count'] as number) >= 2400 && m['status'] === 'resolved').map((m) => m['market_id'] as string);
  const file = path.join(svc.dir, 'crafted.ndjson');
  writeFileSync(file, craftedRows(crafted.id, crafted.start).map((r) => JSON.stringify(r)).join('\n') + '\n');
  const imported = await msnap(['serve', 'import', file, '--db', svc.db], { cwd: svc.dir });
  expect(imported.exitCode, imported.stderr).toBe(0);
});
afterAll(async () => svc?.close());

describe('snapshots --resample', () => {
  it.each([['1s'], ['5s'], ['1m']])('%s bars of the crafted market (gaps, same-slot pairs) equal the reference', async (interval) => {
    const rows = ndjson((await svc.run(['snapshots', crafted.id, '--ndjson'])).stdout) as unknown as RefSnapshot[];
    expect(rows).toHaveLength(2400 - 89 + 2);
    const bars = await svc.run(['snapshots', crafted.id, '--resample', interval, '--ndjson']);
    expect(bars.exitCode).toBe(0);
    const ms = { '1s': 1000, '5s': 5000, '1m': 60000 }[interval]!;
    expect(ndjson(bars.stdout)).toEqual(referenceBars(rows, ms));
  });

  it('--fill carries the empty buckets of a gap forward with count 0', async () => {
    const rows = ndjson((await svc.run(['snapshots', crafted.id, '--ndjson'])).stdout) as unknown as RefSnapshot[];
    const filled = ndjson((await svc.run(['snapshots', crafted.id, '--resample', '1s', '--fill', '--ndjson'])).stdout);
    expect(filled).toEqual(referenceBars(rows, 1000, true));
    // Slots 400-479 are 50 s..60 s in: the 10 whole seconds between hold no snapshot.
    expect(filled.filter((b) => b['count'] === 0)).toHaveLength(10);
  });

  it('1h bars over several markets: one bar per market even where a bucket spans market boundaries (CSV)', async () => {
    const args = ['snapshots', 'BTC', '5m', '--from', String(crafted.start), '--to', String(crafted.start + 4 * 300_000)];
    const rows = ndjson((await svc.run([...args, '--ndjson'])).stdout) as unknown as RefSnapshot[];
    const markets = new Set(rows.map((r) => r.market_id));
    expect(markets.size).toBeGreaterThanOrEqual(3);
    const csv = (await svc.run([...args, '--resample', '1h', '--csv'])).stdout.trim().split('\n');
    expect(csv[0]).toBe('market_id,time,open,high,low,close,up_open,up_high,up_low,up_close,down_close,count');
    const expected = referenceBars(rows, 3_600_000).map((b) => Object.values(b).join(','));
    expect(csv.slice(1)).toEqual(expected);
    expect(csv.length - 1).toBe(markets.size);
  });

  it('refuses an unknown interval and bars with orderbooks', async () => {
    const bad = await svc.run(['snapshots', 'BTC', '5m', '--resample', '2m']);
    expect([bad.exitCode, bad.stderr]).toEqual([2, "msnap: unknown --resample '2m'; use one of: 1s, 5s, 1m, 5m, 1h"]);
    expect((await svc.run(['snapshots', 'BTC', '5m', '--resample', '1m', '--orderbook'])).exitCode).toBe(2);
    expect((await svc.run(['snapshots', 'BTC', '5m', '--fill'])).exitCode).toBe(2);
  });
});

describe('msnap quality', () => {
  it('reports nothing on clean seeded markets, and --strict exits 0', async () => {
    expect(clean.length).toBeGreaterThanOrEqual(2);
    for (const id of clean) {
      const r = await svc.run(['quality', id, '--json', '--strict']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toHaveLength(1);
      expect(JSON.parse(r.stdout)[0]).toMatchObject({
        market_id: id, expected: 2400, present: 2400, gaps: 0, duplicates: 0, out_of_order: 0,
        bad_probabilities: 0, sum_outside: 0, jumps: 0, problems: 0,
      });
    }
  });

  it('finds the injected gaps, same-slot duplicates, up + down off 1 and the jump; --strict exits 9 after writing', async () => {
    const file = path.join(svc.dir, 'quality.json');
    const r = await svc.run(['quality', crafted.id, '--strict', '-o', file]);
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toBe('msnap: quality: 8 problems found (--strict)');
    const [report] = JSON.parse((await import('node:fs')).readFileSync(file, 'utf8')) as Record<string, unknown>[];
    expect(report).toMatchObject({
      expected: 2400,
      present: 2400 - 89 + 2,
      gaps: 3,
      missing: 89,
      longest_gap_ms: 81 * 125,
      duplicates: 2,
      out_of_order: 0,
      bad_probabilities: 0,
      sum_outside: 2,
      jumps: 1,
      problems: 3 + 2 + 2 + 1,
    });
    expect(report!['first_gaps']).toEqual([
      { from: crafted.start + 399 * 125, to: crafted.start + 480 * 125, missing: 80 },
      { from: crafted.start + 1499 * 125, to: crafted.start + 1504 * 125, missing: 4 },
      { from: crafted.start + 2394 * 125, to: crafted.start + 300_000, missing: 5 },
    ]);
    expect((report!['first_jumps'] as { time: number }[])[0]!.time).toBe(crafted.start + 2000 * 125);
  });

  it('writes one CSV row per market for COIN TYPE --from/--to, counting the crafted market only', async () => {
    const r = await svc.run(['quality', 'BTC', '5m', '--from', String(crafted.start), '--to', String(crafted.start + 3 * 300_000), '--csv']);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const header = lines[0]!.split(',');
    const problems = lines.slice(1).map((l) => [l.split(',')[0], Number(l.split(',')[header.indexOf('problems')])]);
    expect(problems).toEqual([[crafted.id, 8], ...clean.slice().reverse().slice(0, 2).map((id) => [id, 0])]);
  });
});
