// msnap's Snappy against hyparquet-writer's (the reference it reimplements): the same bytes for
// every kind of page, and hyparquet's reader gets the input back.
import { describe, expect, it } from 'vitest';
import { snappyUncompress } from 'hyparquet';
import { snappyCompress as libraryCompress } from 'hyparquet-writer/src/snappy.js';
import { snappyCompress } from './snappy.js';

let seed = 11;
const random = (): number => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;

function randomBytes(n: number, alphabet = 256): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(random() * alphabet));
}

/** Doubles as a price column holds them (a walk in cents), as PLAIN page bytes. */
function prices(n: number): Uint8Array {
  const values = new Float64Array(n);
  let p = 97_000;
  for (let i = 0; i < n; i++) values[i] = p = Math.round((p + (random() - 0.5) * 20) * 100) / 100;
  return new Uint8Array(values.buffer);
}

function check(input: Uint8Array): void {
  const ours = snappyCompress(input);
  expect(Buffer.from(ours).equals(Buffer.from(libraryCompress(input)))).toBe(true);
  const back = new Uint8Array(input.length);
  snappyUncompress(ours, back);
  expect(Buffer.from(back).equals(Buffer.from(input))).toBe(true);
}

describe('snappyCompress', () => {
  it('writes the reference bytes for short inputs around every boundary of the format', () => {
    for (const n of [0, 1, 2, 3, 4, 14, 15, 16, 17, 59, 60, 61, 62, 127, 128, 255, 256, 257, 1000]) {
      check(randomBytes(n));
      check(randomBytes(n, 2));
      check(new Uint8Array(n).fill(7));
    }
  });

  it('writes the reference bytes for pages as Parquet makes them', () => {
    check(prices(8192));
    check(prices(100_000));
    check(randomBytes(70_000)); // literals longer than 65,536 bytes (a 3-byte length)
    check(randomBytes(200_000, 3)); // many short copies
    check(new Uint8Array(300_000).fill(1)); // copies split into 64-byte pieces
    const far = randomBytes(150_000);
    far.set(far.subarray(0, 1000), 100_000); // a repeat beyond the 65,535-byte window
    check(far);
    const ids = new Float64Array(8192).map((_, i) => 81_000_000 + i);
    check(new Uint8Array(ids.buffer));
  });

  it('returns an array of its own (the next call does not change it)', () => {
    const first = snappyCompress(randomBytes(5000, 4));
    const copy = Uint8Array.from(first);
    snappyCompress(randomBytes(5000, 4));
    expect(Buffer.from(first).equals(Buffer.from(copy))).toBe(true);
  });
});
