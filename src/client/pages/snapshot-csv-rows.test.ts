// Rows read back from a page's ready CSV: every number the very double JSON.parse gives for the
// text the scan let through, and the records the dialect's normaliser makes of parsed rows.
import { describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../normalize.js';
import { rowsFromReadyCsv } from './snapshot-csv-rows.js';
import { rowKeys, scanSnapshotPage } from './snapshot-page-scan.js';

const ID = 'eth-updown-1hr-1763769600';

describe('rowsFromReadyCsv', () => {
  it('gives back what JSON.parse and the normaliser give, number for number', () => {
    let seed = 11;
    const random = (): number => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    // Values of every form the scan takes: 1-15 significant digits, the point anywhere from five
    // zeros after `0.` to none, both signs.
    const value = (): number => {
      for (;;) {
        const digits = Array.from({ length: 1 + Math.floor(random() * 15) }, () => Math.floor(random() * 10)).join('');
        const point = Math.floor(random() * (digits.length + 6)) - 5;
        const text = point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : `${digits.slice(0, point)}.${digits.slice(point)}`;
        const v = (random() < 0.3 ? -1 : 1) * Number(text);
        // Only what JavaScript itself would print that way (no trailing zeros, no leading ones).
        if (v !== 0 && JSON.stringify(v).replace('-', '') === text.replace(/\.$/, '')) return v;
      }
    };
    const raw = Array.from({ length: 3000 }, (_, i) => ({
      id: Math.floor(random() * 1e15),
      market_id: i < 1500 ? ID : `${ID}x`,
      time: 1_763_769_600_000 + i * 125,
      price: value(),
      price_up: value(),
      price_down: value(),
    }));
    const body = Buffer.from(JSON.stringify({ snapshots: raw }));
    const parsed = (JSON.parse(body.toString()) as { snapshots: unknown[] }).snapshots.map((r) => normalizeSnapshot(r, ID));
    const scanned = scanSnapshotPage(body, rowKeys(['price']));
    // Not every random value is in the scan's form; those that are must come back exactly.
    expect(scanned).toBeDefined();
    const rows = rowsFromReadyCsv(Buffer.from(scanned!.csv), scanned!.count, (r) => normalizeSnapshot(r, ID));
    expect(rows.length).toBe(parsed.length);
    for (let i = 0; i < rows.length; i++) {
      for (const key of ['id', 'time', 'price', 'price_up', 'price_down'] as const) {
        expect(Object.is(rows[i]![key], parsed[i]![key]), `${i} ${key}: ${rows[i]![key]} vs ${parsed[i]![key]}`).toBe(true);
      }
      expect(rows[i]).toEqual(parsed[i]);
    }
    // The market id changes halfway: each half gets its own.
    expect(rows[0]!.market_id).toBe(ID);
    expect(rows[2999]!.market_id).toBe(`${ID}x`);
  });
});
