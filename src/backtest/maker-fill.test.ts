// Each rule of the maker fill models (docs/backtest-model.md "Maker orders") on hand-made books.
import { describe, expect, it } from 'vitest';
import type { SideBook } from '../domain/market-series.js';
import { makerGoLive, makerOrder, makerStep, sizeAt } from './maker-fill.js';

type Levels = [number, number][];
const levels = (ls: Levels) => ({ length: ls.length, prices: ls.map((l) => l[0]), sizes: ls.map((l) => l[1]) });
const side = (bids: Levels, asks: Levels): SideBook => ({ bids: levels(bids), asks: levels(asks) });

describe('post-only when the order goes live', () => {
  it('a buy at or above the best ask crosses; below it is live', () => {
    const b = side([[0.4, 10]], [[0.45, 5]]);
    expect(makerGoLive(makerOrder('buy', 0.45, 10), b, 'cross')).toBe('crosses');
    expect(makerGoLive(makerOrder('buy', 0.46, 10), b, 'queue')).toBe('crosses');
    expect(makerGoLive(makerOrder('buy', 0.44, 10), b, 'cross')).toBe('live');
  });

  it('a sell at or below the best bid crosses; above it is live', () => {
    const b = side([[0.4, 10]], [[0.45, 5]]);
    expect(makerGoLive(makerOrder('sell', 0.4, 10), b, 'cross')).toBe('crosses');
    expect(makerGoLive(makerOrder('sell', 0.41, 10), b, 'cross')).toBe('live');
  });

  it('a snapshot without a book cannot cross: the order is live, its queue unknown', () => {
    const o = makerOrder('buy', 0.4, 10);
    expect(makerGoLive(o, undefined, 'queue')).toBe('live');
    expect(o.lastSize).toBeUndefined();
    expect(o.ahead).toBe(Infinity);
  });
});

describe('cross model', () => {
  it('fills all that remains at the first snapshot whose best ask reaches P, not before', () => {
    const o = makerOrder('buy', 0.4, 10);
    makerGoLive(o, side([[0.4, 50]], [[0.42, 5]]), 'cross');
    // The bid level at P empties: the cross model does not care.
    expect(makerStep(o, side([[0.39, 50]], [[0.41, 5]]), 'cross')).toBe(0);
    expect(makerStep(o, side([[0.39, 50]], [[0.4, 1]]), 'cross')).toBe(10);
    expect(o.remaining).toBe(0);
    expect(makerStep(o, side([[0.39, 50]], [[0.3, 1]]), 'cross')).toBe(0);
  });

  it('a sell fills when the best bid reaches P', () => {
    const o = makerOrder('sell', 0.6, 4);
    makerGoLive(o, side([[0.55, 5]], [[0.6, 20]]), 'cross');
    expect(makerStep(o, side([[0.59, 5]], [[0.6, 1]]), 'cross')).toBe(0);
    expect(makerStep(o, side([[0.61, 5]], [[0.62, 1]]), 'cross')).toBe(4);
  });

  it('a snapshot without a book fills nothing', () => {
    const o = makerOrder('buy', 0.4, 10);
    makerGoLive(o, side([[0.4, 50]], [[0.42, 5]]), 'cross');
    expect(makerStep(o, undefined, 'cross')).toBe(0);
    expect(o.remaining).toBe(10);
  });
});

describe('queue model', () => {
  it('joins behind the size at P; falls drain the queue, then fill the order', () => {
    const o = makerOrder('buy', 0.4, 10);
    makerGoLive(o, side([[0.41, 3], [0.4, 30]], [[0.45, 5]]), 'queue');
    expect(o.ahead).toBe(30);
    // 30 → 12: 18 taken from the front, 12 still ahead.
    expect(makerStep(o, side([[0.41, 3], [0.4, 12]], [[0.45, 5]]), 'queue')).toBe(0);
    expect(o.ahead).toBe(12);
    // 12 → 5: 7 more; 5 ahead.
    expect(makerStep(o, side([[0.4, 5]], [[0.45, 5]]), 'queue')).toBe(0);
    // 5 → 1: 4 taken; 1 ahead left.
    expect(makerStep(o, side([[0.4, 1]], [[0.45, 5]]), 'queue')).toBe(0);
    expect(o.ahead).toBe(1);
    // A rise joins behind: 1 → 9 changes nothing ahead.
    expect(makerStep(o, side([[0.4, 9]], [[0.45, 5]]), 'queue')).toBe(0);
    expect(o.ahead).toBe(1);
    // 9 → 2.5: a fall of 6.5; 1 passes the front, 5.5 fill the order.
    expect(makerStep(o, side([[0.4, 2.5]], [[0.45, 5]]), 'queue')).toBe(5.5);
    expect(o.remaining).toBe(4.5);
    expect(o.ahead).toBe(0);
    // 2.5 → 0.5: 2 more fill.
    expect(makerStep(o, side([[0.4, 0.5]], [[0.45, 5]]), 'queue')).toBe(2);
    expect(o.remaining).toBe(2.5);
  });

  it('a level vanishing while a worse level still shows counts as size 0', () => {
    const o = makerOrder('buy', 0.4, 10);
    makerGoLive(o, side([[0.4, 4]], [[0.45, 5]]), 'queue');
    // The 0.40 level is gone and 0.39 shows: the 4 ahead are gone, nothing fills.
    expect(makerStep(o, side([[0.39, 7]], [[0.45, 5]]), 'queue')).toBe(0);
    expect(o.ahead).toBe(0);
    // The level comes back with 6 (joins behind), then vanishes: 6 fill.
    expect(makerStep(o, side([[0.4, 6]], [[0.45, 5]]), 'queue')).toBe(0);
    expect(makerStep(o, side([[0.38, 1]], [[0.45, 5]]), 'queue')).toBe(6);
  });

  it('beyond the recorded depth the size is unknown and nothing changes', () => {
    const o = makerOrder('buy', 0.3, 10);
    makerGoLive(o, side([[0.35, 5], [0.3, 8]], [[0.45, 5]]), 'queue');
    expect(o.ahead).toBe(8);
    // Only levels better than 0.30 are shown: unknown, the queue stays.
    expect(makerStep(o, side([[0.36, 5], [0.34, 1]], [[0.45, 5]]), 'queue')).toBe(0);
    expect(o).toMatchObject({ ahead: 8, lastSize: 8, remaining: 10 });
    // Seen again at 2: a fall of 6 from the size last seen.
    expect(makerStep(o, side([[0.3, 2]], [[0.45, 5]]), 'queue')).toBe(0);
    expect(o.ahead).toBe(2);
    expect(sizeAt(o, side([], []))).toBeUndefined();
  });

  it('an order posted inside the spread has nothing ahead; an unseen level is joined when first seen', () => {
    const inside = makerOrder('buy', 0.42, 10);
    makerGoLive(inside, side([[0.4, 30]], [[0.45, 5]]), 'queue');
    expect(inside.ahead).toBe(0);
    const deep = makerOrder('sell', 0.9, 10);
    makerGoLive(deep, side([[0.4, 30]], [[0.45, 5], [0.5, 1]]), 'queue');
    expect(deep.ahead).toBe(Infinity);
    expect(makerStep(deep, side([[0.4, 30]], [[0.45, 5], [0.9, 7]]), 'queue')).toBe(0);
    expect(deep).toMatchObject({ ahead: 7, lastSize: 7 });
    // 7 → 1: 6 of the 7 ahead are gone; then the level vanishes (0.95 shows): the last one ahead goes.
    expect(makerStep(deep, side([[0.4, 30]], [[0.45, 5], [0.9, 1]]), 'queue')).toBe(0);
    expect(makerStep(deep, side([[0.4, 30]], [[0.45, 5], [0.95, 1]]), 'queue')).toBe(0);
    expect(deep.ahead).toBe(0);
  });

  it('a cross fills what remains, whatever the queue', () => {
    const o = makerOrder('sell', 0.6, 10);
    makerGoLive(o, side([[0.55, 5]], [[0.6, 100]]), 'queue');
    expect(makerStep(o, side([[0.55, 5]], [[0.6, 98]]), 'queue')).toBe(0);
    expect(makerStep(o, side([[0.6, 5]], [[0.61, 98]]), 'queue')).toBe(10);
    expect(o.remaining).toBe(0);
  });

  it('decimal sizes leave no binary residue in a fill', () => {
    const o = makerOrder('buy', 0.4, 10);
    makerGoLive(o, side([[0.4, 10.3]], [[0.45, 5]]), 'queue');
    o.ahead = 0;
    expect(makerStep(o, side([[0.4, 7.1]], [[0.45, 5]]), 'queue')).toBe(3.2);
  });
});
