// Round trips of the orderbook codec on random books: every pair decodes to the very numbers it
// was made of, alone and against a reference, and stored text comes back byte for byte.
import { describe, expect, it } from 'vitest';
import { mulberry32, type Random } from '../../random/prng.js';
import { decodePair, decodeTops, emptyPair, encodePair, refDt, type BookPair, type LevelList } from './book-codec.js';
import { parsePair, sideText } from './book-text.js';

function randomList(random: Random, n: number, dp: number, ds: number, descending: boolean): LevelList {
  const prices: number[] = [];
  const sizes: number[] = [];
  let p = Math.floor(random() * 10 ** dp);
  for (let i = 0; i < n; i++) {
    prices.push(p);
    p += (descending ? -1 : 1) * (1 + Math.floor(random() * (random() < 0.8 ? 1 : 40)));
    if (p < 0) p = 0;
    // Sizes from tiny to 1e9 shares, up to ds decimals.
    sizes.push(Math.floor(random() ** 3 * 10 ** (9 + ds)));
  }
  return { n, prices, sizes };
}

function randomPair(random: Random): BookPair {
  const dp = 1 + Math.floor(random() * 4);
  const ds = Math.floor(random() * 7);
  const counts = () => [0, 1, 8, 50, Math.floor(random() * 9)][Math.floor(random() * 5)]!;
  return {
    dp,
    ds,
    lists: [randomList(random, counts(), dp, ds, true), randomList(random, counts(), dp, ds, false), randomList(random, counts(), dp, ds, true), randomList(random, counts(), dp, ds, false)],
  };
}

/** A pair a little different from `ref`: some sizes changed, sometimes the prices moved a tick or a level dropped. */
function nudged(random: Random, ref: BookPair): BookPair {
  const out = { dp: ref.dp, ds: ref.ds, lists: ref.lists.map((l) => ({ n: l.n, prices: l.prices.slice(0, l.n), sizes: l.sizes.slice(0, l.n) })) as BookPair['lists'] };
  for (const l of out.lists) {
    const roll = random();
    if (roll < 0.3) continue;
    if (roll < 0.5 && l.n > 0) {
      const shift = l.prices[1] !== undefined ? l.prices[1] - l.prices[0]! : 1;
      l.prices = l.prices.map((p) => Math.max(0, p + shift));
    }
    if (roll > 0.9 && l.n > 0) l.n--;
    for (let i = 0; i < l.n; i++) if (random() < 0.2) l.sizes[i] = Math.floor(random() * 10 ** (4 + ref.ds));
  }
  return out;
}

function numbers(p: BookPair): unknown {
  return { dp: p.dp, ds: p.ds, lists: p.lists.map((l) => ({ prices: l.prices.slice(0, l.n), sizes: l.sizes.slice(0, l.n) })) };
}

describe('book codec', () => {
  it('round-trips random pairs: empty sides, one level, 50 levels, many decimals', () => {
    const random = mulberry32(11);
    for (let k = 0; k < 3000; k++) {
      const pair = randomPair(random);
      const blob = encodePair(pair).slice();
      expect(refDt(blob)).toBe(0);
      expect(numbers(decodePair(blob, undefined, emptyPair()))).toEqual(numbers(pair));
    }
  });

  it('round-trips pairs packed against a reference, and equal consecutive books cost a few bytes', () => {
    const random = mulberry32(12);
    let ref = randomPair(random);
    for (let k = 0; k < 3000; k++) {
      const pair = random() < 0.1 ? ref : random() < 0.05 ? randomPair(random) : nudged(random, ref);
      const alone = encodePair(pair).length;
      const blob = encodePair(pair, ref, 125).slice();
      expect(refDt(blob)).toBe(pair.dp === ref.dp && pair.ds === ref.ds ? 125 : 0);
      expect(blob.length).toBeLessThanOrEqual(alone + 2);
      if (pair === ref) expect(blob.length).toBe(3 + 4);
      expect(numbers(decodePair(blob, ref, emptyPair()))).toEqual(numbers(pair));
      ref = pair;
    }
  });

  it('reads the best prices alone as decodePair gives them, in place in a pool, and declines bytes it cannot read', () => {
    const random = mulberry32(14);
    let ref = randomPair(random);
    const key = encodePair(ref).slice();
    const tops = new Float64Array(8);
    expect(decodeTops(key, 0, key.length, tops, 4, -1)).toBe(ref.dp);
    for (let k = 0; k < 3000; k++) {
      const pair = random() < 0.1 ? ref : random() < 0.05 ? randomPair(random) : nudged(random, ref);
      const blob = encodePair(pair, ref, 125).slice();
      // Between other bytes, as in a market's pool of pairs.
      const pool = new Uint8Array([7, ...blob, 1, 200]);
      const delta = refDt(pool, 1, 1 + blob.length) > 0;
      // The up side's lists alone first (what a rule on the up side reads), then all four.
      const up = tops.slice();
      const untouched = [up[2], up[3]];
      expect(decodeTops(pool, 1, 1 + blob.length, up, 0, delta ? 4 : -1, 2)).toBe(pair.dp);
      expect(decodeTops(pool, 1, 1 + blob.length, tops, 0, delta ? 4 : -1)).toBe(pair.dp);
      expect([up[0], up[1], up[2], up[3]]).toEqual([tops[0], tops[1], ...untouched]);
      const decoded = decodePair(blob, ref, emptyPair());
      decoded.lists.forEach((l, i) => expect(tops[i]).toBe(l.n > 0 ? l.prices[0] : Number.NaN));
      // Every cut short is declined (decodePair throws on each), and a delta pair without its reference.
      for (const cut of [1, 2, Math.floor(blob.length / 2), blob.length - 1]) {
        if (cut >= blob.length) continue;
        expect(decodeTops(pool, 1, 1 + cut, tops, 0, delta ? 4 : -1)).toBe(-1);
        expect(() => decodePair(blob.subarray(0, cut), ref, emptyPair())).toThrow();
      }
      if (delta) expect(decodeTops(pool, 1, 1 + blob.length, tops, 0, -1)).toBe(-1);
      tops.copyWithin(4, 0, 4);
      ref = pair;
    }
    expect(decodeTops(new Uint8Array([2, 0, 0, 0, 0, 0]), 0, 6, tops, 0, -1)).toBe(-1);
  });

  it('gives back stored text byte for byte, and declines text it cannot reproduce', () => {
    const random = mulberry32(13);
    for (let k = 0; k < 500; k++) {
      const pair = randomPair(random);
      const [up, down] = [sideText(pair, 0), sideText(pair, 1)];
      const parsed = parsePair(up, down);
      expect(parsed).toBeDefined();
      const decoded = decodePair(encodePair(parsed!).slice(), undefined, emptyPair());
      expect([sideText(decoded, 0), sideText(decoded, 1)]).toEqual([up, down]);
      // Every number equals what JSON.parse gives for the text.
      const json = JSON.parse(up) as { bids: { price: number; size: number }[] };
      json.bids.forEach((l, i) => {
        expect(decoded.lists[0].prices[i]! / 10 ** decoded.dp).toBe(l.price);
        expect(decoded.lists[0].sizes[i]! / 10 ** decoded.ds).toBe(l.size);
      });
    }
    const empty = '{"bids":[],"asks":[]}';
    // Any doubles as JSON.stringify prints them: what is accepted prints back byte for byte.
    let accepted = 0;
    for (let k = 0; k < 3000; k++) {
      const v = () => (random() < 0.5 ? Math.round(random() * 10 ** Math.floor(random() * 12)) / 10 ** Math.floor(random() * 9) : random() * 10 ** Math.floor(random() * 12 - 7));
      const text = JSON.stringify({ bids: [{ price: v(), size: v() }], asks: [{ price: v(), size: v() }] });
      const pair = parsePair(text, empty);
      if (pair) {
        accepted++;
        expect(sideText(pair, 0)).toBe(text);
      }
    }
    expect(accepted).toBeGreaterThan(100);
    expect(parsePair('{"bids":[{"price":0.5,"size":123.456789}],"asks":[]}', empty)).toBeDefined();
    // Whatever is accepted prints back as it came, and as JSON.stringify prints the numbers JSON.parse reads.
    for (const text of ['{"bids":[{"price":0.000001,"size":0}],"asks":[{"price":1,"size":123456789012345}]}', '{"bids":[],"asks":[{"price":0.5,"size":0.123456789012345}]}']) {
      const pair = parsePair(text, empty)!;
      expect(sideText(pair, 0)).toBe(text);
      expect(JSON.stringify(JSON.parse(text))).toBe(text);
    }
    for (const odd of [
      '{"asks":[],"bids":[]}',
      '{"bids":[[0.5,1]],"asks":[]}',
      '{"bids":[{"price":"0.5","size":1}],"asks":[]}',
      '{"bids":[{"size":1,"price":0.5}],"asks":[]}',
      '{"bids":[{"price":0.5,"size":1,"x":1}],"asks":[]}',
      '{"bids":[{"price":1e-7,"size":1}],"asks":[]}',
      '{"bids":[{"price":0.5,"size":-1}],"asks":[]}',
      '{"bids":[{"price":0.5,"size":12345678901234567890}],"asks":[]}',
      '{"bids":[{"price":0.5,"size":1.0}],"asks":[]}',
      '{"bids":[{"price":0.50,"size":1}],"asks":[]}',
      '{"bids":[{"price":00.5,"size":1}],"asks":[]}',
      '{"bids":[{"price":0.0000001,"size":1}],"asks":[]}',
      '{"bids":[{"price":0.1234567890123456,"size":1}],"asks":[]}',
      '{"bids":[{"price":0.5,"size":1}],"asks":[]} ',
      '{"bids":[{"price":0.5,"size":1},],"asks":[]}',
      '{"bids": [],"asks":[]}',
      'null',
      '[]',
      'not json',
    ]) {
      expect(parsePair(odd, empty), odd).toBeUndefined();
    }
  });
});
