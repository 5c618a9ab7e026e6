// A small seeded PRNG, so the same --seed always produces the same database.

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/** Use for reproducible randomness: mulberry32, 32-bit state, fast and good enough for synthetic data. */
export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The standard normal CDF (Abramowitz-Stegun 7.1.26, error below 1e-7: far under a 0.01 tick). */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-z * z);
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

// Counter-based draws: a value depends only on its keys, never on how many values were drawn
// before it, so any market's data can be computed alone, at any time, in any order.

function mixWord(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Use for a random 32-bit value keyed by four integers (murmur3 mixing; each key is taken mod 2^32). */
export function hashKeys(a: number, b: number, c: number, d: number): number {
  let h = mixWord(mixWord(mixWord(mixWord(0x9747b28c, a | 0), b | 0), c | 0), d | 0);
  h ^= 16;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Use for a uniform number in [0, 1) keyed by four integers. */
export function uniformAt(a: number, b: number, c: number, d: number): number {
  return hashKeys(a, b, c, d) / 4294967296;
}

/** Use to fill out[0..n) with standard normals keyed by (seed, stream, block): Box-Muller over keyed pairs. */
export function fillNormals(out: Float64Array, n: number, seed: number, stream: number, block: number): void {
  for (let i = 0; i < n; i += 2) {
    const u = (hashKeys(seed, stream, block, i) + 1) / 4294967296;
    const v = hashKeys(seed, stream, block, i + 1) / 4294967296;
    const r = Math.sqrt(-2 * Math.log(u));
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
}

/** Use for one standard normal keyed by (seed, stream, block, i) where values are needed one at a time. */
export function normalAt(seed: number, stream: number, block: number, i: number): number {
  const u = (hashKeys(seed, stream, block, 2 * i) + 1) / 4294967296;
  const v = hashKeys(seed, stream, block, 2 * i + 1) / 4294967296;
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
