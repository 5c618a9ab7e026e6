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
});
