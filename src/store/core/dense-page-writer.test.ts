import { describe, expect, it } from 'vitest';
import { SIDE_BITS, writeDensePage } from './dense-page-writer.js';
import { snapshotRowsToJson, type RawSnapshotRow } from './snapshot-json.js';

const pack = (up: number, down: number) => up * 2 ** SIDE_BITS + down;

describe('writeDensePage', () => {
  it('writes the same text as the general path for every shape of value', () => {
    const values = [0, 1, 9, 10, 100, 1000, 1001, 9999, 10_000, 10_001, 12_340, 971_234_512, 970_000_000, 2_000_000_001, 123_456_789_012_345];
    const probs = [0, 1, 10, 100, 1000, 5000, 5300, 9999, 10_000];
    const prices: number[] = [];
    const sides: number[] = [];
    const rows: RawSnapshotRow[] = [];
    const firstT = 99_999_000; // ids' low digits reach 99,999,xxx
    for (let i = 0; i < 8; i++) {
      const price = values[i % values.length]!;
      const [up, down] = [probs[i % probs.length]!, probs[(i * 5) % probs.length]!];
      prices.push(price);
      sides.push(pack(up, down));
      rows.push([firstT + i * 125, price, up, down]);
    }
    for (const start of [100_000_000, 1_763_769_500_000, 1_763_799_900_000 - firstT - 250]) {
      const text = writeDensePage(prices, sides, firstT, 7, 'btc-updown-5m-1763769600', start);
      expect(text).toBe(snapshotRowsToJson(rows, 7, 'btc-updown-5m-1763769600', start, false));
      expect(JSON.parse(text!).map((s: { id: number; time: number }) => [s.id, s.time])).toEqual(rows.map((r) => [700_000_000 + r[0], start + r[0]]));
    }
    const all = values.map((v, i): RawSnapshotRow => [i * 125, v, probs[i % probs.length]!, 0]);
    expect(writeDensePage(values, all.map((r) => pack(r[2], r[3])), 0, 123_456, 'x', 2e8)).toBe(snapshotRowsToJson(all, 123_456, 'x', 2e8, false));
    expect(JSON.parse(writeDensePage([971_234_512], [pack(5300, 4700)], 125, 3, 'm', 1e12)!)).toEqual([
      { id: 300_000_125, market_id: 'm', time: 1e12 + 125, price: 97123.4512, price_up: 0.53, price_down: 0.47 },
    ]);
    expect(writeDensePage([], [], 0, 1, 'm', 0)).toBe('[]');
  });

  it('declines what it does not print, so the caller takes the general path', () => {
    const ok = (prices: number[], sides: number[], rowid = 1, id = 'm') => writeDensePage(prices, sides, 0, rowid, id, 1e12);
    expect(ok([1], [pack(1, 1)])).toBe('[{"id":100000000,"market_id":"m","time":1000000000000,"price":0.0001,"price_up":0.0001,"price_down":0.0001}]');
    expect(ok([-1], [pack(1, 1)])).toBeUndefined();
    expect(ok([1.5], [pack(1, 1)])).toBeUndefined();
    expect(ok([1], [-1])).toBeUndefined();
    // A base that is no multiple of 1e8 (rowid 0 here, or a source's own ids) prints ids plainly.
    expect(ok([1, 2], [pack(1, 1), pack(1, 1)], 0)).toBe(snapshotRowsToJson([[0, 1, 1, 1], [125, 2, 1, 1]], 0, 'm', 1e12, false));
    expect(ok([1], [pack(1, 1)], -1)).toBeUndefined();
    expect(ok([1], [pack(1, 1)], 1, 'é')).toBeUndefined();
    expect(writeDensePage([1], [pack(1, 1)], 100_000_000, 1, 'm', 1e12)).toBeUndefined();
    expect(writeDensePage([1], [pack(1, 1)], 0, 1, 'm', 99_999_999)).toBeUndefined();
    // The general path prints such early times plainly.
    expect(JSON.parse(snapshotRowsToJson([[125, 1, 1, 1]], 1, 'm', 1000, false))[0].time).toBe(1125);
  });

  it('prints v2 and v4 rows (coin price key, ISO or ms times) as the general path and JSON.stringify do, across midnight', () => {
    const day = 86_400_000;
    const start = 20_000 * day - 500; // rows at 23:59:59.500 ... 00:00:00.375 of the next day
    const prices = [971_234_512, 971_234_500, 10_000, 1, 0, 123_456_789];
    const sides = prices.map((_, i) => pack(5000 + i, 5000 - i));
    const rows: RawSnapshotRow[] = prices.map((p, i) => [i * 125, p, 5000 + i, 5000 - i]);
    for (const format of [
      { priceKey: 'btc_price', times: 'iso' as const },
      { priceKey: 'eth_price', times: 'ms' as const },
    ]) {
      const text = writeDensePage(prices, sides, 0, 7, 'btc-updown-5m-1763769600', start, format);
      expect(text).toBe(snapshotRowsToJson(rows, 7, 'btc-updown-5m-1763769600', start, false, format));
      const want = rows.map(([t, p, u, d]) => ({
        id: 700_000_000 + t,
        market_id: 'btc-updown-5m-1763769600',
        time: format.times === 'iso' ? new Date(start + t).toISOString() : start + t,
        [format.priceKey]: p / 1e4,
        price_up: u / 1e4,
        price_down: d / 1e4,
      }));
      expect(text).toBe(JSON.stringify(want));
    }
    // Years past 9999 print six digits: the ISO writer leaves them to the general path.
    expect(writeDensePage([1], [pack(1, 1)], 0, 1, 'm', 253_402_300_800_000, { priceKey: 'price', times: 'iso' })).toBeUndefined();
  });
});
