// DELTA_BINARY_PACKED as hyparquet-writer's BigInt path writes an INT64 page (blocks of 128
// values in 4 miniblocks of 32, zigzag varints, widths per miniblock), done with doubles: exact for
// integers below DELTA_SAFE in magnitude, whose deltas and packed bits stay below 2^53.
import { ByteWriter as PageWriter } from 'hyparquet-writer';

/** Values with magnitudes below this are delta-packed here with exact double arithmetic. */
export const DELTA_SAFE = 2 ** 44;

const BLOCK = 128;
const MINIBLOCK = 32;
const deltas = new Float64Array(BLOCK);
const widths = new Uint8Array(4);
const packed = new Uint8Array(64 * 4);

/** The page body of the first `n` values (integers below DELTA_SAFE in magnitude). */
export function deltaPacked(values: Float64Array, n: number): Uint8Array {
  const page = new PageWriter();
  page.appendVarInt(BLOCK);
  page.appendVarInt(4);
  page.appendVarInt(n);
  zigzag(page, values[0]!);
  for (let index = 1; index < n; index += BLOCK) {
    const size = Math.min(index + BLOCK, n) - index;
    let minDelta = 0;
    for (let i = 0; i < size; i++) {
      const d = values[index + i]! - values[index + i - 1]!;
      deltas[i] = d;
      if (i === 0 || d < minDelta) minDelta = d;
    }
    zigzag(page, minDelta);
    for (let mb = 0; mb < 4; mb++) {
      let top = 0;
      for (let i = mb * MINIBLOCK, end = Math.min(i + MINIBLOCK, size); i < end; i++) if (deltas[i]! - minDelta > top) top = deltas[i]! - minDelta;
      widths[mb] = bitWidth(top);
    }
    page.appendBytes(widths);
    for (let mb = 0; mb < 4; mb++) {
      const w = widths[mb]!;
      if (w !== 0) page.appendBytes(pack(mb * MINIBLOCK, size, minDelta, w));
    }
  }
  return page.getBytes();
}

// One miniblock's 32 adjusted deltas (zeros past the block's end) at `w` bits each, low bits first.
function pack(start: number, size: number, minDelta: number, w: number): Uint8Array {
  let at = 0;
  let buffer = 0;
  let used = 0;
  for (let i = start; i < start + MINIBLOCK; i++) {
    const v = i < size ? deltas[i]! - minDelta : 0;
    if (w <= 24) {
      buffer |= v << used;
      used += w;
      while (used >= 8) {
        packed[at++] = buffer & 0xff;
        buffer >>>= 8;
        used -= 8;
      }
    } else {
      // Below 2^53 throughout: w <= 46 bits (DELTA_SAFE) plus fewer than 8 pending.
      buffer += v * 2 ** used;
      used += w;
      while (used >= 8) {
        packed[at++] = buffer % 0x100;
        buffer = Math.floor(buffer / 0x100);
        used -= 8;
      }
    }
  }
  return packed.subarray(0, at);
}

// Bits needed for a non-negative integer (exact beyond 32 bits too).
function bitWidth(x: number): number {
  if (x <= 0xffffffff) return x === 0 ? 0 : 32 - Math.clz32(x);
  let bits = 0;
  for (; x >= 1; x = Math.floor(x / 2)) bits++;
  return bits;
}

function zigzag(page: PageWriter, v: number): void {
  let z = v < 0 ? -v * 2 - 1 : v * 2;
  while (z >= 0x80) {
    page.appendUint8((z % 0x80) + 0x80);
    z = Math.floor(z / 0x80);
  }
  page.appendUint8(z);
}

