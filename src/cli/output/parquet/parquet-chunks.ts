// Column chunks of one row group written straight from typed arrays: byte for byte what
// hyparquet-writer's writeColumn writes for the same values (the general path, parquet.ts), without
// a BigInt per value, a Map lookup per repeated value or a copy per step. parquet-snapshots.test.ts
// holds the two writers to the same bytes. Only what the snapshot columns need is here: REQUIRED
// columns in one data page (v2) each, INT64 delta-packed, DOUBLE dictionary-or-plain as the
// library decides it, and strings always dictionary-encoded.
import { ByteWriter } from 'hyparquet-writer';
import type { ColumnChunk, CompressionCodec, Encoding, ParquetType, Statistics } from 'hyparquet';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { deltaPacked } from './parquet-delta.js';

/** Where a row group's chunks go, and how their pages are compressed. */
export interface ChunkTarget {
  writer: ByteWriter;
  codec: CompressionCodec;
  compressors: Record<string, ((input: Uint8Array) => Uint8Array) | undefined>;
}

/** A page body: its encoding and (for a dictionary column) the dictionary's PLAIN bytes. */
interface PageBody {
  encoding: Encoding;
  data: Uint8Array;
  dictionary?: { bytes: Uint8Array; count: number };
}

function compress(target: ChunkTarget, bytes: Uint8Array): Uint8Array {
  return target.compressors[target.codec]?.(bytes) ?? bytes;
}

/** Writes one column chunk (dictionary page, then one data page) as writeColumn does; returns its metadata. */
function writeChunk(target: ChunkTarget, name: string, type: ParquetType, n: number, body: PageBody, statistics: Statistics): ColumnChunk {
  const { writer, codec } = target;
  const offsetStart = writer.offset;
  let uncompressedSize = 0;
  const encodings: Encoding[] = [];
  let dictionary_page_offset: bigint | undefined;
  if (body.dictionary) {
    dictionary_page_offset = BigInt(writer.offset);
    const bytes = body.dictionary.bytes;
    const compressed = compress(target, bytes);
    const headerStart = writer.offset;
    writePageHeader(writer, {
      type: 'DICTIONARY_PAGE',
      uncompressed_page_size: bytes.byteLength,
      compressed_page_size: compressed.byteLength,
      dictionary_page_header: { num_values: body.dictionary.count, encoding: 'PLAIN' },
    });
    const headerSize = writer.offset - headerStart;
    writer.appendBytes(compressed);
    uncompressedSize += headerSize + bytes.byteLength;
    encodings.push('PLAIN');
  }
  encodings.push(body.encoding);
  const data_page_offset = BigInt(writer.offset);
  const compressed = compress(target, body.data);
  const headerStart = writer.offset;
  writePageHeader(writer, {
    type: 'DATA_PAGE_V2',
    uncompressed_page_size: body.data.length,
    compressed_page_size: compressed.length,
    data_page_header_v2: {
      num_values: n,
      num_nulls: 0,
      num_rows: n,
      encoding: body.encoding,
      definition_levels_byte_length: 0,
      repetition_levels_byte_length: 0,
      is_compressed: !!codec,
    },
  });
  const headerSize = writer.offset - headerStart;
  writer.appendBytes(compressed);
  uncompressedSize += headerSize + body.data.length;
  const encoding_stats = [
    ...(body.dictionary ? [{ page_type: 'DICTIONARY_PAGE' as const, encoding: 'PLAIN' as const, count: 1 }] : []),
    { page_type: 'DATA_PAGE_V2' as const, encoding: body.encoding, count: 1 },
  ];
  return {
    meta_data: {
      type,
      encodings,
      path_in_schema: [name],
      codec,
      num_values: BigInt(n),
      total_compressed_size: BigInt(writer.offset - offsetStart),
      total_uncompressed_size: BigInt(uncompressedSize),
      data_page_offset,
      dictionary_page_offset,
      statistics,
      encoding_stats,
      geospatial_statistics: undefined,
    },
    file_offset: BigInt(offsetStart),
  } as ColumnChunk;
}

/** An INT64 column (values integers below DELTA_SAFE in magnitude) delta-packed, as the library's BigInt path packs it. */
export function int64Chunk(target: ChunkTarget, name: string, values: Float64Array, n: number): ColumnChunk {
  let min = values[0]!;
  let max = min;
  for (let i = 1; i < n; i++) {
    const v = values[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return writeChunk(target, name, 'INT64', n, { encoding: 'DELTA_BINARY_PACKED', data: deltaPacked(values, n) }, { min_value: BigInt(min), max_value: BigInt(max), null_count: 0n });
}

/** A DOUBLE column: dictionary-encoded when the library's useDictionary would choose it, else PLAIN. */
export function doubleChunk(target: ChunkTarget, name: string, values: Float64Array, n: number): ColumnChunk {
  // NaN compares false, so it never becomes the minimum or maximum; with no other value there is neither.
  let low = Infinity;
  let high = -Infinity;
  let nans = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v < low) low = v;
    if (v > high) high = v;
    if (v !== v) nans++;
  }
  const numbers = n - nans > 0;
  // Infinity as the only value is found too: it is the starting bound itself.
  let min = numbers ? low : undefined;
  let max = numbers ? high : undefined;
  if (min === 0) min = -0;
  if (max === 0) max = 0;
  // The library's statistics count NaNs too (hyparquet's type leaves the field out).
  const statistics = { min_value: min, max_value: max, null_count: 0n, nan_count: BigInt(nans) } as Statistics;
  return writeChunk(target, name, 'DOUBLE', n, doubleBody(values, n), statistics);
}

function doubleBody(values: Float64Array, n: number): PageBody {
  const dict = doubleDictionary(values, n);
  if (dict) return { encoding: 'RLE_DICTIONARY', data: indexPage(dict.indexes, n, dict.dictionary.length), dictionary: { bytes: plainDoubles(dict.dictionary, dict.dictionary.length), count: dict.dictionary.length } };
  return { encoding: 'PLAIN', data: plainDoubles(values, n) };
}

// PLAIN doubles are little-endian: the array's own bytes on such a machine.
const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

// A typed array's own bytes are used as they are (the page is compressed or copied out before
// the array is filled again); other values are copied.
function plainDoubles(values: ArrayLike<number>, n: number): Uint8Array {
  if (LITTLE_ENDIAN && values instanceof Float64Array) return new Uint8Array(values.buffer, values.byteOffset, n * 8);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = values[i]!;
  const bytes = new Uint8Array(out.buffer);
  if (!LITTLE_ENDIAN) {
    const view = new DataView(out.buffer);
    for (let i = 0; i < n; i++) view.setFloat64(i * 8, values[i]!, true);
  }
  return bytes;
}

const doubleIndexes = new Int32Array(1 << 16);

// useDictionary's choice for a REQUIRED DOUBLE column: a sample of up to 1,000 values rejects it
// when 90% of them are distinct; a full dictionary is kept when it and its bit-packed indexes take
// at most half the PLAIN bytes. Map keys compare as the library's do (NaN one key, 0 and -0 one).
function doubleDictionary(values: Float64Array, n: number): { dictionary: number[]; indexes: Int32Array } | undefined {
  const sampleSize = Math.min(n, 1000);
  const sampled = new Set<number>();
  for (let i = 0; i < sampleSize; i++) sampled.add(values[sampleSize === 1 ? 0 : Math.floor((i * (n - 1)) / (sampleSize - 1))]!);
  if (sampleSize === 0 || (sampled.size * 8) / (sampleSize * 8) > 0.9) return undefined;
  const dictionary: number[] = [];
  const index = new Map<number, number>();
  const indexes = n <= doubleIndexes.length ? doubleIndexes.subarray(0, n) : new Int32Array(n);
  let last = NaN;
  let lastIndex = -1;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v === last) {
      indexes[i] = lastIndex;
      continue;
    }
    let k = index.get(v);
    if (k === undefined) {
      k = dictionary.length;
      dictionary.push(v);
      index.set(v, k);
    }
    indexes[i] = k;
    last = v;
    lastIndex = k;
  }
  const bitWidth = Math.ceil(Math.log2(dictionary.length));
  if (2 * (dictionary.length * 8 + Math.ceil((n * bitWidth) / 8)) > n * 8) return undefined;
  return { dictionary, indexes };
}

/** A string column, always dictionary-encoded: `indexes` into `dictionary` (first seen first). */
export function stringChunk(target: ChunkTarget, name: string, dictionary: readonly string[], indexes: Int32Array, n: number): ColumnChunk {
  let min: string | undefined;
  let max: string | undefined;
  for (const s of dictionary) {
    if (min === undefined || compareStrings(s, min) < 0) min = s;
    if (max === undefined || compareStrings(s, max) > 0) max = s;
  }
  const encoder = new TextEncoder();
  const plain = new ByteWriter();
  for (const s of dictionary) {
    const bytes = encoder.encode(s);
    plain.appendUint32(bytes.length);
    plain.appendBytes(bytes);
  }
  const body: PageBody = { encoding: 'RLE_DICTIONARY', data: indexPage(indexes, n, dictionary.length), dictionary: { bytes: plain.getBytes(), count: dictionary.length } };
  return writeChunk(target, name, 'BYTE_ARRAY', n, body, { min_value: min, max_value: max, null_count: 0n });
}

// A dictionary data page: the indexes' bit width, then the indexes RLE/bit-packed.
function indexPage(indexes: Int32Array, n: number, entries: number): Uint8Array {
  const page = new ByteWriter();
  const bitWidth = Math.ceil(Math.log2(entries));
  page.appendUint8(bitWidth);
  writeRleBitPackedHybrid(page, indexes.subarray(0, n), bitWidth);
  return page.getBytes();
}

// Strings in UTF-8 byte order (code point order), as the library orders its statistics.
function compareStrings(left: string, right: string): number {
  if (left === right) return 0;
  const length = Math.min(left.length, right.length);
  let i = 0;
  while (i < length && left.charCodeAt(i) === right.charCodeAt(i)) i++;
  if (i > 0) {
    const prev = left.charCodeAt(i - 1);
    if (prev >= 0xd800 && prev <= 0xdbff) i--;
  }
  while (i < left.length && i < right.length) {
    const a = codePoint(left, i);
    const b = codePoint(right, i);
    if (a !== b) return a - b;
    i += a > 0xffff ? 2 : 1;
  }
  return left.length - right.length;
}

function codePoint(s: string, i: number): number {
  const code = s.codePointAt(i) ?? 0xfffd;
  return code >= 0xd800 && code <= 0xdfff ? 0xfffd : code;
}
