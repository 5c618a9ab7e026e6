import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../domain/market.js';
import { referenceBars } from '../../test/support/reference-bars.js';
import { resampleInterval, resamplePages, type Bar } from './bars.js';

// Two markets back to back, with a hole of 12 s in the first and prices that wander (seeded LCG).
function snapshots(): Snapshot[] {
  let seed = 7;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const out: Snapshot[] = [];
  let price = 97000;
  for (const [market, start] of [['btc-updown-5m-1763769600', 1763769600000], ['btc-updown-5m-1763769900', 1763769900000]] as const) {
    for (let i = 0; i < 2400; i++) {
      const time = start + i * 125;
      if (market.endsWith('600') && i >= 400 && i < 496) continue;
      price = Math.round((price + (rand() - 0.5) * 20) * 100) / 100;
      const up = Math.round(rand() * 100) / 100;
      out.push({ id: time, market_id: market, time, price, price_up: up, price_down: Math.round((1 - up + 0.01) * 100) / 100 });
    }
  }
  return out;
}

async function collect(pages: AsyncIterable<Bar[]>): Promise<Bar[]> {
  const all: Bar[] = [];
  for await (const p of pages) all.push(...p);
  return all;
}

// Pages cut at odd places, so a bucket spans pages.
function pagesOf(rows: Snapshot[], size: number): Snapshot[][] {
  const pages: Snapshot[][] = [];
  for (let i = 0; i < rows.length; i += size) pages.push(rows.slice(i, i + size));
  return pages;
}

describe('resamplePages', () => {
  it.each([
    ['1s', 997],
    ['5s', 333],
    ['1m', 1000],
    ['5m', 77],
    ['1h', 4096],
  ])('%s bars equal the reference computation, however the pages are cut (pages of %i)', async (interval, pageSize) => {
    const rows = snapshots();
    const ms = resampleInterval(interval)!;
    const bars = await collect(resamplePages(pagesOf(rows, pageSize), ms));
    expect(bars).toEqual(referenceBars(rows, ms));
  });

  it('leaves empty buckets out, or carries them forward with fill (count 0)', async () => {
    const rows = snapshots();
    const plain = await collect(resamplePages(pagesOf(rows, 500), 1000));
    const filled = await collect(resamplePages(pagesOf(rows, 500), 1000, true));
    // 96 missing snapshots = 12 s: buckets 50..61 of the first market have none.
    expect(filled.length - plain.length).toBe(12);
    expect(filled).toEqual(referenceBars(rows, 1000, true));
    const gap = filled.filter((b) => b.count === 0);
    expect(gap.every((b) => b.market_id === 'btc-updown-5m-1763769600' && b.open === b.close)).toBe(true);
    expect(gap[0]!.close).toBe(plain.find((b) => b.time === gap[0]!.time - 1000)!.close);
  });

  it('never merges two markets into one bar, even when a bucket spans both', async () => {
    const bars = await collect(resamplePages(pagesOf(snapshots(), 1000), 3_600_000));
    expect(bars.map((b) => [b.market_id, b.count])).toEqual([
      ['btc-updown-5m-1763769600', 2304],
      ['btc-updown-5m-1763769900', 2400],
    ]);
    expect(bars[0]!.time).toBe(bars[1]!.time);
  });

  it('accepts only the documented intervals', () => {
    expect(resampleInterval('1M')).toBe(60_000);
    expect(resampleInterval('2m')).toBeUndefined();
    expect(resampleInterval('')).toBeUndefined();
  });
});
