import { describe, expect, it } from 'vitest';
import { ChainlinkPrices } from './chainlink-prices.js';

describe('ChainlinkPrices', () => {
  it('answers the latest value with time <= t, never a later one, whatever order ticks came in', () => {
    const p = new ChainlinkPrices();
    p.add({ coin: 'BTC', ts: 2000, price: 841_000_000 });
    p.add({ coin: 'BTC', ts: 1000, price: 840_000_000 });
    p.add({ coin: 'BTC', ts: 3000, price: 842_000_000 });
    p.add({ coin: 'BTC', ts: 2000, price: 1 }, true);
    const at = p.priceAt('BTC');
    expect([at(999), at(1000), at(1999), at(2000), at(2999), at(5000)]).toEqual([undefined, 84_000, 84_000, 84_100, 84_100, 84_200]);
    expect(p.priceAt('ETH')(5000)).toBeUndefined();
    expect(p.takeUnsaved().map((t) => t.ts)).toEqual([2000, 1000, 3000]);
    expect(p.takeUnsaved()).toEqual([]);
    p.add({ coin: 'ETH', ts: 10, price: 5 }, true);
    expect(p.takeUnsaved()).toEqual([]);
  });

  it('forgets only ticks no price at or after the cut can need: the price at the cut stays', () => {
    const p = new ChainlinkPrices();
    const ref = new ChainlinkPrices();
    for (const ts of [1000, 2000, 3000, 4000, 5000]) for (const q of [p, ref]) q.add({ coin: 'BTC', ts, price: ts * 10_000 });
    p.add({ coin: 'ETH', ts: 500, price: 10_000 });
    p.dropBefore(3500);
    const at = p.priceAt('BTC');
    for (const t of [3500, 3999, 4000, 6000]) expect(at(t), String(t)).toBe(ref.priceAt('BTC')(t));
    // Before the cut nothing is promised: the ticks before 3000 are gone.
    expect(at(2500)).toBeUndefined();
    expect(at(3000)).toBe(3000);
    // A coin whose only tick is before the cut keeps it: it is still the price at the cut.
    expect(p.priceAt('ETH')(3500)).toBe(1);
    p.dropBefore(999);
    expect(at(3000)).toBe(3000);
  });
});
