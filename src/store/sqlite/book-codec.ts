// Both books of one snapshot in a few dozen bytes instead of ~1 KB of JSON text: prices and sizes
// as integers scaled by a power of ten (one exponent each per snapshot), prices as a first value
// and steps, sizes bit-packed at the width of the largest, and each of the four level lists either
// in full, "as the reference", "the reference's prices with these sizes changed", or "these
// prices, sizes as the reference holds at the same price except these" (the mid moved) against
// the book of an earlier snapshot of the same market (its `ref`), whichever is smallest.
//
// Layout: kind (0 key, 1 delta) [varint dt = t - ref t], dp << 4 | ds, then per list (up bids, up
// asks, down bids, down asks) a header byte mode << 6 | arithmetic << 5 | n (31: varint n - 31
// follows) and the list's body: FULL: first price, then one zigzag step (arithmetic) or n - 1
// zigzag steps, width, sizes; SIZES: changed-level bitmap, width, changed sizes; BY_PRICE: prices
// as FULL, then a bitmap of levels whose size is not the reference's at that price, width, those
// sizes; SAME: nothing.

/** One list of levels (bids or asks), values scaled: price = prices[i] / 10^dp. Reused by decoders. */
export interface LevelList {
  n: number;
  prices: number[];
  sizes: number[];
}

/** Both outcomes' books of one snapshot, scaled integers; lists: up bids, up asks, down bids, down asks. */
export interface BookPair {
  dp: number;
  ds: number;
  lists: [LevelList, LevelList, LevelList, LevelList];
}

const SAME = 0;
const FULL = 1;
const SIZES = 2;
const BY_PRICE = 3;
const MAX_DECIMALS = 15;
/** Scaled values stay below this, so steps between them (and their zigzag) are exact doubles. */
const MAX_SCALED = 2 ** 50;

/** Use for a fresh pair to decode into or fill. */
export function emptyPair(): BookPair {
  const list = (): LevelList => ({ n: 0, prices: [], sizes: [] });
  return { dp: 0, ds: 0, lists: [list(), list(), list(), list()] };
}

/** Use to copy a pair (a decoder's reused pair kept as a reference). */
export function copyPair(from: BookPair, to: BookPair = emptyPair()): BookPair {
  to.dp = from.dp;
  to.ds = from.ds;
  for (let k = 0; k < 4; k++) {
    const a = from.lists[k]!;
    const b = to.lists[k]!;
    b.n = a.n;
    for (let i = 0; i < a.n; i++) {
      b.prices[i] = a.prices[i]!;
      b.sizes[i] = a.sizes[i]!;
    }
  }
  return to;
}

class ByteWriter {
  buf = new Uint8Array(256);
  pos = 0;
  private acc = 0;
  private bits = 0;

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
  }

  varint(v: number): void {
    while (v >= 128) {
      this.byte((v % 128) | 128);
      v = Math.floor(v / 128);
    }
    this.byte(v);
  }

  zigzag(v: number): void {
    this.varint(v < 0 ? -2 * v - 1 : 2 * v);
  }

  /** w bits of v (v < 2^53), low bits first; values below 2^53 split in 26-bit halves. */
  bitsOf(v: number, w: number): void {
    // Sizes of a few million shares in hundredths: one shift, no float steps.
    if (w <= 24) {
      this.acc |= v << this.bits;
      this.bits += w;
      while (this.bits >= 8) {
        this.byte(this.acc & 255);
        this.acc >>>= 8;
        this.bits -= 8;
      }
      return;
    }
    while (w > 0) {
      const take = Math.min(w, 26 - 8);
      const part = v % 2 ** take;
      v = Math.floor(v / 2 ** take);
      w -= take;
      this.acc += part * 2 ** this.bits;
      this.bits += take;
      while (this.bits >= 8) {
        this.byte(this.acc & 255);
        this.acc = Math.floor(this.acc / 256);
        this.bits -= 8;
      }
    }
  }

  align(): void {
    if (this.bits > 0) this.byte(this.acc & 255);
    this.acc = 0;
    this.bits = 0;
  }
}

/** Reads what ByteWriter wrote; `pos` moves along. */
class ByteReader {
  pos = 0;
  private acc = 0;
  private bits = 0;
  constructor(private readonly buf: Uint8Array) {}

  byte(): number {
    if (this.pos >= this.buf.length) throw new RangeError('packed orderbook ends early');
    return this.buf[this.pos++]!;
  }

  varint(): number {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = this.byte();
      v += (b & 127) * mul;
      if (b < 128) return v;
      mul *= 128;
    }
  }

  zigzag(): number {
    const v = this.varint();
    return v % 2 === 1 ? -(v + 1) / 2 : v / 2;
  }

  bitsOf(w: number): number {
    if (w <= 24) {
      while (this.bits < w) {
        this.acc |= this.byte() << this.bits;
        this.bits += 8;
      }
      const v = this.acc & ((1 << w) - 1);
      this.acc >>>= w;
      this.bits -= w;
      return v;
    }
    let v = 0;
    let mul = 1;
    while (w > 0) {
      if (this.bits === 0) {
        this.acc = this.byte();
        this.bits = 8;
      }
      const take = Math.min(w, this.bits);
      v += (this.acc & ((1 << take) - 1)) * mul;
      this.acc >>>= take;
      this.bits -= take;
      mul *= 2 ** take;
      w -= take;
    }
    return v;
  }

  align(): void {
    this.bits = 0;
  }
}

function widthOf(v: number): number {
  let w = 0;
  while (v >= 1) {
    v = Math.floor(v / 2);
    w++;
  }
  return w;
}

function sameList(a: LevelList, b: LevelList, prices: boolean, sizes: boolean): boolean {
  if (a.n !== b.n) return false;
  for (let i = 0; i < a.n; i++) {
    if (prices && a.prices[i] !== b.prices[i]) return false;
    if (sizes && a.sizes[i] !== b.sizes[i]) return false;
  }
  return true;
}

function header(w: ByteWriter, mode: number, arithmetic: boolean, n: number): void {
  w.byte((mode << 6) | (arithmetic ? 32 : 0) | Math.min(n, 31));
  if (n >= 31) w.varint(n - 31);
}

/** The header and prices of a FULL or BY_PRICE list. */
function writePrices(w: ByteWriter, mode: number, l: LevelList): void {
  const n = l.n;
  let arithmetic = n > 2;
  for (let i = 2; i < n && arithmetic; i++) arithmetic = l.prices[i]! - l.prices[i - 1]! === l.prices[1]! - l.prices[0]!;
  header(w, mode, arithmetic, n);
  if (n === 0) return;
  w.varint(l.prices[0]!);
  if (arithmetic) w.zigzag(l.prices[1]! - l.prices[0]!);
  else for (let i = 1; i < n; i++) w.zigzag(l.prices[i]! - l.prices[i - 1]!);
}

/** Sizes of the levels whose bit is set in `explicit` (all when undefined): width, then packed. */
function writeSizeBits(w: ByteWriter, l: LevelList, explicit: boolean[] | undefined): void {
  let max = 0;
  for (let i = 0; i < l.n; i++) if ((!explicit || explicit[i]) && l.sizes[i]! > max) max = l.sizes[i]!;
  const width = widthOf(max);
  w.byte(width);
  for (let i = 0; i < l.n; i++) if (!explicit || explicit[i]) w.bitsOf(l.sizes[i]!, width);
  w.align();
}

function writeBitmap(w: ByteWriter, bits: boolean[], n: number): void {
  for (let i = 0; i < n; i += 8) {
    let mask = 0;
    for (let j = i; j < Math.min(n, i + 8); j++) if (bits[j]) mask |= 1 << (j - i);
    w.byte(mask);
  }
}

/** Per level of l: true when ref holds no level at its price with its size (ref's prices run the same way). */
function unmatched(l: LevelList, ref: LevelList): boolean[] {
  const out = new Array<boolean>(l.n);
  for (let i = 0; i < l.n; i++) out[i] = refSizeAt(ref, l.prices[i]!) !== l.sizes[i];
  return out;
}

function refSizeAt(ref: LevelList, price: number): number | undefined {
  for (let j = 0; j < ref.n; j++) if (ref.prices[j] === price) return ref.sizes[j];
  return undefined;
}

/** Writes the list in each applicable mode into a side buffer and keeps the shortest. */
function writeList(w: ByteWriter, l: LevelList, r: LevelList | undefined): void {
  if (r && sameList(l, r, true, true)) {
    w.byte(SAME << 6);
    return;
  }
  const start = w.pos;
  writePrices(w, FULL, l);
  if (l.n > 0) writeSizeBits(w, l, undefined);
  if (!r || l.n === 0) return;
  const fullLength = w.pos - start;
  const full = w.buf.slice(start, w.pos);
  w.pos = start;
  if (sameList(l, r, true, false)) {
    const changed = l.sizes.slice(0, l.n).map((z, i) => z !== r.sizes[i]);
    header(w, SIZES, false, l.n);
    writeBitmap(w, changed, l.n);
    writeSizeBits(w, l, changed);
  } else {
    const explicit = unmatched(l, r);
    writePrices(w, BY_PRICE, l);
    writeBitmap(w, explicit, l.n);
    writeSizeBits(w, l, explicit);
  }
  if (w.pos - start < fullLength) return;
  w.pos = start;
  for (const b of full) w.byte(b);
}

/** The encoder's scratch, reused: the returned bytes are valid until the next encode. */
const scratch = new ByteWriter();

/**
 * Use to pack a snapshot's books; with `ref` (the book of the market's snapshot `dt` ms earlier,
 * same exponents), lists equal to or sharing prices with the reference's are written as such.
 * Returns a view into a reused buffer: copy it before the next call.
 */
export function encodePair(pair: BookPair, ref?: BookPair, dt = 0): Uint8Array {
  const w = scratch;
  w.pos = 0;
  const delta = ref !== undefined && ref.dp === pair.dp && ref.ds === pair.ds && dt > 0;
  w.byte(delta ? 1 : 0);
  if (delta) w.varint(dt);
  w.byte((pair.dp << 4) | pair.ds);
  for (let k = 0; k < 4; k++) writeList(w, pair.lists[k]!, delta ? ref.lists[k]! : undefined);
  return w.buf.subarray(0, w.pos);
}

/** The reference a packed pair needs: dt ms before its own snapshot, or 0 for a key (self-contained) pair. */
export function refDt(blob: Uint8Array): number {
  if (blob.length === 0 || blob[0] === 0) return 0;
  return new ByteReader(blob.subarray(1)).varint();
}

/** Use to unpack `blob` into `out` (its arrays reused); `ref` must be the pair refDt names, when it names one. */
export function decodePair(blob: Uint8Array, ref: BookPair | undefined, out: BookPair): BookPair {
  const r = new ByteReader(blob);
  const kind = r.byte();
  if (kind === 1) {
    r.varint();
    if (!ref) throw new RangeError('packed orderbook needs its reference');
  } else if (kind !== 0) {
    throw new RangeError(`unknown packed orderbook kind ${kind}`);
  }
  const d = r.byte();
  out.dp = d >> 4;
  out.ds = d & 15;
  for (let k = 0; k < 4; k++) {
    const h = r.byte();
    const mode = h >> 6;
    const l = out.lists[k]!;
    if (mode === SAME) {
      const src = ref!.lists[k]!;
      if (src !== l) {
        l.n = src.n;
        for (let i = 0; i < src.n; i++) {
          l.prices[i] = src.prices[i]!;
          l.sizes[i] = src.sizes[i]!;
        }
      }
      continue;
    }
    let n = h & 31;
    if (n === 31) n += r.varint();
    l.n = n;
    if (mode === FULL || mode === BY_PRICE) {
      if (n === 0) continue;
      let p = r.varint();
      l.prices[0] = p;
      if (h & 32) {
        const step = r.zigzag();
        for (let i = 1; i < n; i++) l.prices[i] = p += step;
      } else {
        for (let i = 1; i < n; i++) l.prices[i] = p += r.zigzag();
      }
      if (mode === FULL) {
        const width = r.byte();
        for (let i = 0; i < n; i++) l.sizes[i] = r.bitsOf(width);
      } else {
        const src = ref!.lists[k]!;
        if (src === l) throw new RangeError('a BY_PRICE list cannot be decoded over its reference');
        const masks = r.pos;
        r.pos += Math.ceil(n / 8);
        const width = r.byte();
        for (let i = 0; i < n; i++) {
          const explicit = (blob[masks + (i >> 3)]! >> (i & 7)) & 1;
          l.sizes[i] = explicit ? r.bitsOf(width) : refSizeAt(src, l.prices[i]!)!;
        }
      }
      r.align();
    } else if (mode === SIZES) {
      const src = ref!.lists[k]!;
      const masks = r.pos;
      r.pos += Math.ceil(n / 8);
      const width = r.byte();
      for (let i = 0; i < n; i++) {
        l.prices[i] = src.prices[i]!;
        const changed = (blob[masks + (i >> 3)]! >> (i & 7)) & 1;
        l.sizes[i] = changed ? r.bitsOf(width) : src.sizes[i]!;
      }
      r.align();
    }
  }
  return out;
}

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
