import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { klineSeries, mergeKlines, priceAt } from './kline-series.js';

describe('klineSeries', () => {
  it('sorts by close time and keeps each close time once, the last given', () => {
    const s = klineSeries('BTCUSDT', '1s', [2999, 999, 1999, 999], [3, 1, 2, 1.5]);
    expect([...s.closeTimes]).toEqual([999, 1999, 2999]);
    expect([...s.closes]).toEqual([1.5, 2, 3]);
  });
});

describe('priceAt', () => {
  const s = klineSeries('BTCUSDT', '1s', [999, 1999, 2999], [10, 20, 30]);

  it('gives the close of the last kline closed by t, exactly at its close time too', () => {
    expect(priceAt(s, 999)).toBe(10);
    expect(priceAt(s, 1000)).toBe(10);
    expect(priceAt(s, 1998)).toBe(10);
    expect(priceAt(s, 1999)).toBe(20);
    expect(priceAt(s, 2999)).toBe(30);
    expect(priceAt(s, 1e13)).toBe(30);
  });

  it('knows no price before the first kline has closed', () => {
    expect(priceAt(s, 998)).toBeUndefined();
    expect(priceAt(klineSeries(null, null, [], []), 5)).toBeUndefined();
  });
});

describe('mergeKlines', () => {
  it('joins overlapping series, each close time once, and re-merging adds nothing', () => {
    const a = klineSeries('BTCUSDT', '1s', [999, 1999, 2999], [10, 20, 30]);
    const b = klineSeries('BTCUSDT', '1s', [2999, 3999], [30, 40]);
    const m = mergeKlines([a, b]);
    expect(m).toMatchObject({ symbol: 'BTCUSDT', interval: '1s' });
    expect([...m.closeTimes]).toEqual([999, 1999, 2999, 3999]);
    expect([...m.closes]).toEqual([10, 20, 30, 40]);
    expect(mergeKlines([m, a, b, m])).toEqual(m);
  });

  it('names the interval only when all agree, and refuses to join two symbols', () => {
    expect(mergeKlines([klineSeries('BTCUSDT', '1s', [999], [1]), klineSeries(null, '1m', [59_999], [2])])).toMatchObject({ symbol: 'BTCUSDT', interval: null });
    expect(() => mergeKlines([klineSeries('BTCUSDT', '1s', [], []), klineSeries('ETHUSDT', '1s', [], [])])).toThrow(UsageError);
    expect(mergeKlines([])).toMatchObject({ symbol: null, interval: null, closeTimes: new Float64Array() });
  });
});
