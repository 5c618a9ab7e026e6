// Snappy compression for Parquet pages: the same bytes as hyparquet-writer's snappyCompress (the
// reference implementation's algorithm: one block, a 2^14-entry hash table, the same skipping and
// copy splitting), which snappy.test.ts holds it to, written into one reused buffer instead of a
// writer that grows by doubling and a call per byte. That was a fifth of a Parquet export's CPU.

const MAX_HASH_TABLE_BITS = 14;
const MAX_OFFSET = 0xffff;
const INPUT_MARGIN = 15;

const hashTables: (Uint32Array | undefined)[] = [];
// The output being written; it only grows (to the largest page compressed).
let out = new Uint8Array(1 << 16);

function hash(key: number, shift: number): number {
  return Math.imul(key, 0x1e35a7bd) >>> shift;
}

// Four bytes little-endian as an int32, in one read; past the end it reads 0 (such a hash is never used).
function load32(view: DataView, p: number): number {
  return p + 4 <= view.byteLength ? view.getInt32(p, true) : 0;
}

function emitLiteral(input: Uint8Array, from: number, length: number, o: number): number {
  if (length <= 60) {
    out[o++] = (length - 1) << 2;
  } else {
    const value = length - 1;
    const bytes = value < 0x100 ? 1 : value < 0x10000 ? 2 : value < 0x1000000 ? 3 : 4;
    out[o++] = (59 + bytes) << 2;
    for (let i = 0; i < bytes; i++) out[o++] = value >>> (i * 8);
  }
  if (length < 16) {
    for (let i = 0; i < length; i++) out[o + i] = input[from + i]!;
  } else {
    out.set(input.subarray(from, from + length), o);
  }
  return o + length;
}

function emitCopyUpTo64(offset: number, length: number, o: number): number {
  if (length < 12 && offset < 2048) {
    out[o++] = 1 + ((length - 4) << 2) + ((offset >>> 8) << 5);
    out[o++] = offset & 0xff;
  } else {
    out[o++] = 2 + ((length - 1) << 2);
    out[o++] = offset & 0xff;
    out[o++] = offset >>> 8;
  }
  return o;
}

function emitCopy(offset: number, length: number, o: number): number {
  while (length >= 68) {
    o = emitCopyUpTo64(offset, 64, o);
    length -= 64;
  }
  if (length > 64) {
    o = emitCopyUpTo64(offset, 60, o);
    length -= 60;
  }
  return emitCopyUpTo64(offset, length, o);
}

/** Use as Parquet's SNAPPY compressor: `input` compressed (a new array the caller may keep). */
export function snappyCompress(input: Uint8Array): Uint8Array {
  const size = input.length;
  // The format's bound on compressed size, with room for the length varint.
  const bound = 32 + size + Math.floor(size / 6);
  if (out.length < bound) out = new Uint8Array(bound);
  let o = 0;
  for (let v = size; ; v = Math.floor(v / 128)) {
    if (v < 128) {
      out[o++] = v;
      break;
    }
    out[o++] = (v & 0x7f) | 0x80;
  }
  o = compressInto(input, o);
  return out.slice(0, o);
}

// The reference algorithm, step for step (see hyparquet-writer's src/snappy.js).
function compressInto(input: Uint8Array, o: number): number {
  const size = input.length;
  let bits = 1;
  while (1 << bits <= size && bits <= MAX_HASH_TABLE_BITS) bits++;
  bits--;
  const shift = 32 - bits;
  const table = (hashTables[bits] ??= new Uint32Array(1 << bits));
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  table.fill(0);
  let ip = 0;
  let nextEmit = 0;
  if (size >= INPUT_MARGIN) {
    const ipLimit = size - INPUT_MARGIN;
    ip++;
    let nextHash = hash(load32(view, ip), shift);
    outer: for (;;) {
      let skip = 32;
      let nextIp = ip;
      let candidate: number;
      do {
        ip = nextIp;
        const h = nextHash;
        nextIp = ip + (skip >>> 5);
        skip++;
        if (ip > ipLimit) break outer;
        nextHash = hash(load32(view, nextIp), shift);
        candidate = table[h]!;
        table[h] = ip;
      } while (ip - candidate > MAX_OFFSET || view.getInt32(ip, true) !== view.getInt32(candidate, true));
      o = emitLiteral(input, nextEmit, ip - nextEmit, o);
      do {
        const base = ip;
        let matched = 4;
        while (ip + matched < size && input[ip + matched] === input[candidate + matched]) matched++;
        ip += matched;
        o = emitCopy(base - candidate, matched, o);
        nextEmit = ip;
        if (ip >= ipLimit) break outer;
        table[hash(load32(view, ip - 1), shift)] = ip - 1;
        const h = hash(load32(view, ip), shift);
        candidate = table[h]!;
        table[h] = ip;
      } while (ip - candidate <= MAX_OFFSET && view.getInt32(ip, true) === view.getInt32(candidate, true));
      ip++;
      nextHash = hash(load32(view, ip), shift);
    }
  }
  if (nextEmit < size) o = emitLiteral(input, nextEmit, size - nextEmit, o);
  return o;
}
