// The files inside a zip archive (Binance's daily kline files), read from its central directory
// with node's own inflate: stored and deflated entries, zip64 sizes and offsets, CRC checked.
import { crc32, inflateRawSync } from 'node:zlib';
import { UsageError } from '../errors.js';

/** One file of an archive, inflated. */
export interface ZipEntry {
  name: string;
  data: Buffer;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Use to tell a zip by its first bytes (a local file header), whatever the file's name. */
export function looksLikeZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.readUInt32LE(0) === LOCAL;
}

/**
 * Use to read every file of a whole archive in memory (directories left out). A truncated or
 * damaged archive, an encrypted entry or an unknown compression is a UsageError naming `source`.
 */
export function readZip(bytes: Buffer, source: string): ZipEntry[] {
  const bad = (what: string) => new UsageError(`${source}: ${what}`);
  const truncated = bad('truncated or damaged zip (its central directory is missing or cut short)');
  const eocd = findEnd(bytes);
  if (eocd < 0) throw truncated;
  let count = bytes.readUInt16LE(eocd + 10);
  let dirSize = bytes.readUInt32LE(eocd + 12);
  let dirOffset = bytes.readUInt32LE(eocd + 16);
  if (count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || bytes.readUInt32LE(locator) !== ZIP64_LOCATOR) throw truncated;
    const at = big(bytes.readBigUInt64LE(locator + 8));
    if (at + 56 > bytes.length || bytes.readUInt32LE(at) !== ZIP64_EOCD) throw truncated;
    count = big(bytes.readBigUInt64LE(at + 32));
    dirSize = big(bytes.readBigUInt64LE(at + 40));
    dirOffset = big(bytes.readBigUInt64LE(at + 48));
  }
  if (dirOffset + dirSize > bytes.length) throw truncated;

  const entries: ZipEntry[] = [];
  let p = dirOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > bytes.length || bytes.readUInt32LE(p) !== CENTRAL) throw truncated;
    const flags = bytes.readUInt16LE(p + 8);
    const method = bytes.readUInt16LE(p + 10);
    const crc = bytes.readUInt32LE(p + 16);
    let size = bytes.readUInt32LE(p + 20);
    let length = bytes.readUInt32LE(p + 24);
    const nameLength = bytes.readUInt16LE(p + 28);
    const extraLength = bytes.readUInt16LE(p + 30);
    const commentLength = bytes.readUInt16LE(p + 32);
    let local = bytes.readUInt32LE(p + 42);
    const name = bytes.toString(flags & 0x800 ? 'utf8' : 'latin1', p + 46, p + 46 + nameLength);
    // Zip64: the sizes and offset that overflowed 32 bits follow in this order in extra field 1.
    const extra = extraField(bytes, p + 46 + nameLength, extraLength, 0x0001);
    if (extra) {
      let q = extra;
      const next = () => {
        q += 8;
        return big(bytes.readBigUInt64LE(q - 8));
      };
      if (length === 0xffffffff) length = next();
      if (size === 0xffffffff) size = next();
      if (local === 0xffffffff) local = next();
    }
    p += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    if (flags & 0x1) throw bad(`${name} in the zip is encrypted`);
    if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== LOCAL) throw truncated;
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    if (start + size > bytes.length) throw truncated;
    const raw = bytes.subarray(start, start + size);
    let data: Buffer;
    if (method === 0) data = raw;
    else if (method === 8) {
      try {
        data = inflateRawSync(raw);
      } catch {
        throw bad(`${name} in the zip does not inflate (damaged)`);
      }
    } else throw bad(`${name} in the zip uses compression method ${method}; only stored and deflated entries are read`);
    if (data.length !== length || crc32(data) !== crc) throw bad(`${name} in the zip is damaged (its size or CRC does not match)`);
    entries.push({ name, data });
  }
  return entries;
}

/** The end-of-central-directory record: within the last 64 KiB + 22 bytes (its comment may fill them). */
function findEnd(bytes: Buffer): number {
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (bytes.readUInt32LE(i) === EOCD && i + 22 + bytes.readUInt16LE(i + 20) <= bytes.length) return i;
  }
  return -1;
}

/** Where the data of extra field `id` starts, if the entry has it. */
function extraField(bytes: Buffer, at: number, length: number, id: number): number | undefined {
  for (let q = at; q + 4 <= at + length; q += 4 + bytes.readUInt16LE(q + 2)) {
    if (bytes.readUInt16LE(q) === id) return q + 4;
  }
  return undefined;
}

function big(n: bigint): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('zip offset beyond 2^53');
  return Number(n);
}
