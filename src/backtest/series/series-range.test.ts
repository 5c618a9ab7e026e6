// sliceSeries keeps exactly the snapshots with from <= time < to, books shifted with them.
import { describe, expect, it } from 'vitest';
import { sliceSeries } from './series-range.js';
import { book, seriesOf, snap, testMarket } from '../test-support/markets.js';

describe('sliceSeries', () => {
  const m = testMarket(0, 'Up');
  const s = seriesOf(m, [0, 1000, 2000, 3000].map((t, k) => snap(m, t, 0.1 * (k + 1), k === 2 ? { up: book([[0.29, 1]], []) } : {})));

  it('keeps [from, to) and the books that go with those snapshots', () => {
    const cut = sliceSeries(s, { from: m.start_time + 1000, to: m.start_time + 3000 });
    expect(cut.length).toBe(2);
    expect(Array.from(cut.time)).toEqual([m.start_time + 1000, m.start_time + 2000]);
    expect(cut.priceUp[1]).toBeCloseTo(0.3);
    expect(cut.book(0, 'up')).toBeUndefined();
    expect(cut.book(1, 'up')?.bids.prices[0]).toBe(0.29);
  });

  it('returns the series itself when the range cuts nothing, and an empty one when it holds nothing', () => {
    expect(sliceSeries(s, {})).toBe(s);
    expect(sliceSeries(s, { from: m.start_time + 5000 }).length).toBe(0);
  });
});
