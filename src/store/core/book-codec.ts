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

import { ByteReader, ByteWriter } from './byte-stream.js';

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
/** The most decimals a packed price or size keeps (a double's exact digits). */
export const MAX_DECIMALS = 15;
/** Scaled values stay below this, so steps between them (and their zigzag) are exact doubles. */
export const MAX_SCALED = 2 ** 50;

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

/** True when the list's prices strictly rise or strictly fall (so each price is held once). */
function monotonic(l: LevelList): boolean {
  if (l.n < 3) return l.n < 2 || l.prices[0] !== l.prices[1];
  const up = l.prices[1]! > l.prices[0]!;
  for (let i = 1; i < l.n; i++) if (up ? !(l.prices[i]! > l.prices[i - 1]!) : !(l.prices[i]! < l.prices[i - 1]!)) return false;
  return true;
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

/**
 * The reference a packed pair needs: dt ms before its own snapshot, or 0 for a key (self-contained)
 * pair. The pair is blob[from, to) (the whole blob by default: a pool of pairs is read in place).
 */
export function refDt(blob: Uint8Array, from = 0, to = blob.length): number {
  if (to <= from || blob[from] === 0) return 0;
  // The varint after the kind byte, read in place (once per row read: no reader, no view).
  let v = 0;
  let mul = 1;
  for (let i = from + 1; ; i++) {
    if (i >= to) throw new RangeError('packed orderbook ends early');
    const b = blob[i]!;
    v += (b & 127) * mul;
    if (b < 128) return v;
    mul *= 128;
  }
}

/** The decoder's reader, reset for each pair (decodePair runs to its end before it is called again). */
const reader = new ByteReader(new Uint8Array(0));

/**
 * Use to unpack `blob` (or the pair at blob[from, to) of a pool) into `out` (its arrays reused);
 * `ref` must be the pair refDt names, when it names one.
 */
export function decodePair(blob: Uint8Array, ref: BookPair | undefined, out: BookPair, from = 0, to = blob.length): BookPair {
  const r = reader.reset(blob, from, to);
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
        // Prices that only rise or only fall are each held once: the reference's level at a price is
        // then found from where the last one was (the lists' prices run the same way), not from 0.
        const once = monotonic(src);
        let j = 0;
        for (let i = 0; i < n; i++) {
          const explicit = (blob[masks + (i >> 3)]! >> (i & 7)) & 1;
          if (explicit) l.sizes[i] = r.bitsOf(width);
          else if (!once) l.sizes[i] = refSizeAt(src, l.prices[i]!)!;
          else {
            const price = l.prices[i]!;
            let size: number | undefined;
            for (let tries = 0; tries < src.n; tries++, j = j + 1 === src.n ? 0 : j + 1) {
              if (src.prices[j] === price) {
                size = src.sizes[j];
                break;
              }
            }
            l.sizes[i] = size!;
          }
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

/** Where the last varintAt ended (-1: at `to` before its last byte). */
let after = 0;

/** The varint at bytes[pos] (to: where the bytes end); sets `after`. */
function varintAt(bytes: Uint8Array, pos: number, to: number): number {
  let v = 0;
  let mul = 1;
  for (;;) {
    if (pos >= to) {
      after = -1;
      return 0;
    }
    const b = bytes[pos++]!;
    v += (b & 127) * mul;
    if (b < 128) {
      after = pos;
      return v;
    }
    mul *= 128;
  }
}

/** Set bits among the first n of the bitmap at bytes[at]. */
function bitsSet(bytes: Uint8Array, at: number, n: number): number {
  let count = 0;
  for (let i = 0; i < n; i += 8) {
    let b = bytes[at + (i >> 3)]!;
    if (n - i < 8) b &= (1 << (n - i)) - 1;
    for (; b !== 0; count++) b &= b - 1;
  }
  return count;
}

/**
 * Use when only each list's best level is read (a rule on bid/ask over a whole market): the first
 * scaled price of each of the first `lists` lists (4: both outcomes; 2: the up side's) of the pair
 * at bytes[from, to) into tops[at + k] (NaN for an empty list), the reference's read from
 * tops[refAt + k] (refAt -1: none). Sizes are skipped, not decoded, lists after those not read,
 * and nothing is allocated. Returns the pair's dp, or -1 for bytes it does not read this way (a
 * reference missing, an unknown kind, a list past `to`): decodePair tells what is wrong.
 */
export function decodeTops(bytes: Uint8Array, from: number, to: number, tops: Float64Array, at: number, refAt: number, lists = 4): number {
  let pos = from;
  const kind = bytes[pos++];
  if (kind === 1) {
    if (refAt < 0) return -1;
    while (pos < to && bytes[pos]! >= 128) pos++;
    pos++;
  } else if (kind !== 0) {
    return -1;
  }
  if (pos >= to) return -1;
  const dp = bytes[pos++]! >> 4;
  for (let k = 0; k < lists; k++) {
    if (pos >= to) return -1;
    const h = bytes[pos++]!;
    const mode = h >> 6;
    if (mode !== FULL && refAt < 0) return -1;
    if (mode === SAME) {
      tops[at + k] = tops[refAt + k]!;
      continue;
    }
    let n = h & 31;
    if (n === 31) {
      n += varintAt(bytes, pos, to);
      if ((pos = after) < 0) return -1;
    }
    if (mode === SIZES) {
      tops[at + k] = n > 0 ? tops[refAt + k]! : Number.NaN;
    } else if (n === 0) {
      tops[at + k] = Number.NaN;
      continue;
    } else {
      // The first price, then the steps (one for an arithmetic list) skipped.
      tops[at + k] = varintAt(bytes, pos, to);
      if ((pos = after) < 0) return -1;
      for (let steps = h & 32 ? 1 : n - 1; steps > 0; pos++) {
        if (pos >= to) return -1;
        if (bytes[pos]! < 128) steps--;
      }
    }
    // Sizes: all n (FULL), or those the bitmap marks (SIZES, BY_PRICE), at the width byte's bits each.
    let sized = n;
    if (mode !== FULL) {
      const masks = pos;
      pos += (n + 7) >> 3;
      if (pos >= to) return -1;
      sized = bitsSet(bytes, masks, n);
    }
    if (pos >= to) return -1;
    const width = bytes[pos++]!;
    pos += Math.ceil((sized * width) / 8);
  }
  return pos <= to ? dp : -1;
}
