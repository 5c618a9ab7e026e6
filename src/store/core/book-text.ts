// A pair of books as the JSON text the store serves, and back: sideText prints one side exactly as
// JSON.stringify would; parsePair accepts only text that prints back byte for byte (book-codec.ts
// packs what it accepts).
import { emptyPair, MAX_DECIMALS, MAX_SCALED, type BookPair, type LevelList } from './book-codec.js';

/** Prints scaled v with d decimals as JSON prints v / 10^d when that is the text (the encoder checks). */
export function scaledText(v: number, d: number): string {
  if (d === 0) return String(v);
  const unit = 10 ** d;
  const whole = Math.floor(v / unit);
  let frac = String(v - whole * unit);
  if (frac === '0') return String(whole);
  frac = '0'.repeat(d - frac.length) + frac;
  let end = frac.length;
  while (frac.charCodeAt(end - 1) === 48) end--;
  return `${whole}.${frac.slice(0, end)}`;
}

/** One outcome's book of a pair as the JSON text the store serves. */
export function sideText(pair: BookPair, side: 0 | 1): string {
  let out = '{"bids":[';
  for (let k = 0; k < 2; k++) {
    const l = pair.lists[side * 2 + k]!;
    if (k === 1) out += '],"asks":[';
    for (let i = 0; i < l.n; i++) {
      out += `${i === 0 ? '' : ','}{"price":${scaledText(l.prices[i]!, pair.dp)},"size":${scaledText(l.sizes[i]!, pair.ds)}}`;
    }
  }
  return out + ']}';
}

/**
 * Use before packing stored text: the pair of both sides' JSON, or undefined when the text is not
 * exactly what sideText prints for some pair (other keys or order, spacing, strings, exponents,
 * negative values, more than 15 significant digits): such text is stored as it is. A strict scan,
 * not JSON.parse: a number of at most 15 significant digits in JavaScript's own form is the text
 * JavaScript prints for its double, so what is accepted prints back byte for byte.
 */
export function parsePair(upText: string, downText: string): BookPair | undefined {
  const pair = emptyPair();
  const scan: Scan = { text: upText, pos: 0, dp: 0, ds: 0 };
  if (!scanSide(scan, pair.lists[0], pair.lists[1], 0)) return undefined;
  scan.text = downText;
  scan.pos = 0;
  if (!scanSide(scan, pair.lists[2], pair.lists[3], 2)) return undefined;
  pair.dp = scan.dp;
  pair.ds = scan.ds;
  // Each number was read at its own decimals: bring every one to the pair's.
  for (let k = 0; k < 4; k++) {
    const l = pair.lists[k]!;
    const dec = DECIMALS[k]!;
    for (let i = 0; i < l.n; i++) {
      const p = l.prices[i]! * 10 ** (scan.dp - dec[2 * i]!);
      const z = l.sizes[i]! * 10 ** (scan.ds - dec[2 * i + 1]!);
      if (!(p < MAX_SCALED && z < MAX_SCALED)) return undefined;
      l.prices[i] = p;
      l.sizes[i] = z;
    }
  }
  return pair;
}

interface Scan {
  text: string;
  pos: number;
  dp: number;
  ds: number;
}

/** Per list, the decimals each level's price and size were written with (scratch of parsePair). */
const DECIMALS: number[][] = [[], [], [], []];
const BIDS_OPEN = '{"bids":[';
const ASKS_OPEN = '],"asks":[';
const PRICE_KEY = '{"price":';
const SIZE_KEY = ',"size":';

function literal(scan: Scan, text: string): boolean {
  if (!scan.text.startsWith(text, scan.pos)) return false;
  scan.pos += text.length;
  return true;
}

function scanSide(scan: Scan, bids: LevelList, asks: LevelList, k: number): boolean {
  if (!literal(scan, BIDS_OPEN) || !scanLevels(scan, bids, DECIMALS[k]!)) return false;
  if (!literal(scan, ASKS_OPEN) || !scanLevels(scan, asks, DECIMALS[k + 1]!)) return false;
  return literal(scan, ']}') && scan.pos === scan.text.length;
}

function scanLevels(scan: Scan, l: LevelList, dec: number[]): boolean {
  l.n = 0;
  if (scan.text.charCodeAt(scan.pos) === 93) return true; // ]
  for (;;) {
    if (!literal(scan, PRICE_KEY)) return false;
    const p = scanNumber(scan);
    if (p < 0) return false;
    const pd = lastDecimals;
    if (!literal(scan, SIZE_KEY)) return false;
    const z = scanNumber(scan);
    if (z < 0 || !literal(scan, '}')) return false;
    l.prices[l.n] = p;
    l.sizes[l.n] = z;
    dec[2 * l.n] = pd;
    dec[2 * l.n + 1] = lastDecimals;
    if (pd > scan.dp) scan.dp = pd;
    if (lastDecimals > scan.ds) scan.ds = lastDecimals;
    l.n++;
    if (scan.text.charCodeAt(scan.pos) !== 44) return true; // ,
    scan.pos++;
  }
}

let lastDecimals = 0;

/**
 * A number in JavaScript's own form (0 or no leading zero, no trailing zero in a fraction, no
 * exponent, not below 1e-6 where it would print one) of at most 15 significant digits: its digits
 * as an integer (decimals in lastDecimals), or -1.
 */
function scanNumber(scan: Scan): number {
  const text = scan.text;
  let pos = scan.pos;
  let v = 0;
  let digits = 0;
  const first = text.charCodeAt(pos);
  if (first === 48) {
    pos++;
  } else {
    while (pos < text.length) {
      const c = text.charCodeAt(pos) - 48;
      if (c < 0 || c > 9) break;
      v = v * 10 + c;
      digits++;
      pos++;
    }
    if (digits === 0) return -1;
  }
  let decimals = 0;
  if (text.charCodeAt(pos) === 46) {
    pos++;
    let leading = v === 0;
    let zeros = 0;
    while (pos < text.length) {
      const c = text.charCodeAt(pos) - 48;
      if (c < 0 || c > 9) break;
      v = v * 10 + c;
      decimals++;
      if (leading && c === 0) {
        zeros++;
      } else {
        leading = false;
        digits++;
      }
      pos++;
    }
    // Digits after the first non-zero one all count; a fraction ends in a non-zero digit.
    if (decimals === 0 || text.charCodeAt(pos - 1) === 48 || (v < 10 ** decimals && zeros >= 6)) return -1;
  }
  if (digits > 15 || decimals > MAX_DECIMALS) return -1;
  const c = text.charCodeAt(pos);
  if (c === 101 || c === 69) return -1; // e, E
  scan.pos = pos;
  lastDecimals = decimals;
  return v;
}
