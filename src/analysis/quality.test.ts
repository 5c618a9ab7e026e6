import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../domain/market.js';
import { QualityScan } from './quality.js';

const START = 1763769600000;
const END = START + 300_000;
const ID = 'btc-updown-5m-1763769600';

// A clean market: every 125 ms slot, a Gaussian random walk (Box-Muller over a seeded LCG).
function clean(): Snapshot[] {
  let seed = 11;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) + 1) / (2 ** 31 + 1);
  let price = 97000;
  const out: Snapshot[] = [];
  for (let i = 0; i < 2400; i++) {
    const z = Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand());
    price *= Math.exp(4.4e-5 * z);
    out.push({ id: i, market_id: ID, time: START + i * 125, price: Math.round(price * 100) / 100, price_up: 0.5, price_down: 0.51 });
  }
  return out;
}

function scan(rows: Snapshot[], opts: { from?: number; to?: number; openEnded?: boolean } = {}) {
  const q = new QualityScan(ID, START, opts.from ?? START, opts.to ?? END);
  for (const s of rows) q.add(s);
  return q.finish(opts.openEnded);
}

describe('QualityScan', () => {
  it('finds nothing wrong in a complete, calm market', () => {
    const r = scan(clean());
    expect(r).toMatchObject({ expected: 2400, present: 2400, gaps: 0, duplicates: 0, out_of_order: 0, bad_probabilities: 0, sum_outside: 0, jumps: 0, problems: 0 });
  });

  it('counts leading, inner and trailing gaps in grid slots, with their times', () => {
    const rows = clean().filter((_, i) => i >= 8 && !(i >= 100 && i < 180) && i !== 500 && i < 2390);
    const r = scan(rows);
    expect(r.gaps).toBe(4);
    expect(r.missing).toBe(8 + 80 + 1 + 10);
    expect(r.present).toBe(2400 - 99);
    expect(r.longest_gap_ms).toBe(81 * 125);
    expect(r.first_gaps).toEqual([
      { from: START, to: START + 1000, missing: 8 },
      { from: START + 99 * 125, to: START + 180 * 125, missing: 80 },
      { from: START + 499 * 125, to: START + 501 * 125, missing: 1 },
      { from: START + 2389 * 125, to: END, missing: 10 },
    ]);
    expect(r.problems).toBe(4);
  });

  it('a running market is checked up to its last snapshot; an empty window is one whole gap', () => {
    expect(scan(clean().slice(0, 1000), { openEnded: true })).toMatchObject({ expected: 1000, gaps: 0, problems: 0 });
    expect(scan([], {})).toMatchObject({ expected: 2400, gaps: 1, missing: 2400, present: 0 });
  });

  it('counts two snapshots in one slot as a duplicate and a step back in time as out of order', () => {
    const rows = clean();
    rows.splice(51, 0, { ...rows[50]!, time: rows[50]!.time + 3 });
    rows.splice(300, 0, { ...rows[299]! });
    rows.splice(700, 0, { ...rows[10]! });
    const r = scan(rows);
    expect(r.duplicates).toBe(2);
    expect(r.out_of_order).toBe(1);
    expect(r.gaps).toBe(0);
    expect(r.problems).toBe(3);
  });

  it('flags probabilities outside [0, 1] and up + down away from 1', () => {
    const rows = clean();
    rows[5] = { ...rows[5]!, price_up: 1.2, price_down: -0.2 };
    rows[6] = { ...rows[6]!, price_up: Number.NaN };
    rows[7] = { ...rows[7]!, price_up: 0.9, price_down: 0.9 };
    const r = scan(rows);
    expect(r.bad_probabilities).toBe(2);
    expect(r.sum_outside).toBe(2);
    const loose = new QualityScan(ID, START, START, END, { sumTolerance: 0.85 });
    for (const s of rows) loose.add(s);
    expect(loose.finish().sum_outside).toBe(1);
  });

  it('flags a price jump beyond the robust threshold, scaled by the time elapsed', () => {
    const rows = clean();
    for (let i = 1200; i < rows.length; i++) rows[i] = { ...rows[i]!, price: Math.round(rows[i]!.price * 1.02 * 100) / 100 };
    const r = scan(rows);
    expect(r.jumps).toBe(1);
    expect(r.first_jumps[0]).toMatchObject({ time: START + 1200 * 125, from: rows[1199]!.price, to: rows[1200]!.price });
    expect(r.first_jumps[0]!.sigmas).toBeGreaterThan(100);
    // A step across a long hole is divided by the square root of the slots it spans: no jump.
    const holed = clean().filter((_, i) => i < 600 || i >= 1800);
    expect(scan(holed).jumps).toBe(0);
  });

  it('reports orderbook coverage without counting it as a problem', () => {
    const rows = clean().map((s, i) => (i % 4 === 0 ? { ...s, orderbook_up: { bids: [], asks: [] } } : s));
    const r = scan(rows);
    expect(r.orderbook_coverage).toBe(0.25);
    expect(r.problems).toBe(0);
  });

  it('cuts the window to --from/--to', () => {
    const from = START + 60_000;
    const to = START + 120_000;
    const rows = clean().filter((s) => s.time >= from && s.time < to);
    expect(scan(rows, { from, to })).toMatchObject({ expected: 480, present: 480, gaps: 0 });
  });
});
