// Parquet output: a schema's typed columns written a row group at a time, each group's bytes handed
// to the output as soon as it is encoded, so memory holds one row group however many rows follow.
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { ByteWriter, ParquetWriter, type ColumnSource, type SchemaElement } from 'hyparquet-writer';
import { UsageError } from '../../../errors.js';
import type { ParquetCodec } from './parquet-codecs.js';
import { snappyCompress } from './snappy.js';
import { machineColumns, type Column, type ParquetType, type RecordSchema } from '../schemas/schema.js';


/** Where the encoded bytes go: a promise when the caller must wait (backpressure). */
export interface ByteOutput {
  write(bytes: Uint8Array): Promise<void> | undefined;
  /** True once the reader went away: writing stops quietly. */
  readonly closed: boolean;
}

// 500k cells per row group (8k snapshot rows; fewer with the 64 flat orderbook columns): larger
// groups cost more in garbage collection and peak RSS than they save (docs/testing.md, "Measured
// choices").
const CELLS_PER_GROUP = 500_000;
const MAX_GROUP_ROWS = 8_192;

/** Use to check, before any request, that a schema can be written as Parquet. */
function parquetColumns<T>(schema: RecordSchema<T>): Column<T>[] {
  const columns = machineColumns(schema);
  if (columns.some((c) => c.parquet === undefined)) {
    throw new UsageError('this command has no Parquet output (snapshots, bars, markets and at have); use --csv, --ndjson or --json');
  }
  return columns;
}

function element(col: Column<unknown>): SchemaElement {
  const repetition_type = col.nullable ? 'OPTIONAL' : 'REQUIRED';
  const type = col.parquet as ParquetType;
  if (type === 'int64') return { name: col.name, type: 'INT64', repetition_type };
  if (type === 'double') return { name: col.name, type: 'DOUBLE', repetition_type };
  if (type === 'boolean') return { name: col.name, type: 'BOOLEAN', repetition_type };
  if (type === 'timestamp') {
    return {
      name: col.name,
      type: 'INT64',
      repetition_type,
      converted_type: 'TIMESTAMP_MILLIS',
      logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
    };
  }
  return { name: col.name, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' }, repetition_type };
}

function compressorsFor(codec: ParquetCodec): { codec: 'SNAPPY' | 'GZIP' | 'BROTLI' | 'UNCOMPRESSED'; compressors?: Record<string, (b: Uint8Array) => Uint8Array> } {
  if (codec === 'gzip') return { codec: 'GZIP', compressors: { GZIP: (b) => gzipSync(b) } };
  if (codec === 'brotli') return { codec: 'BROTLI', compressors: { BROTLI: (b) => brotliCompressSync(b) } };
  if (codec === 'none') return { codec: 'UNCOMPRESSED' };
  return { codec: 'SNAPPY', compressors: { SNAPPY: snappyCompress } };
}

// A ByteWriter whose buffer is emptied into the output after every row group (the writer calls
// flush() then, and waits for the promise it returns before encoding the next group).
class StreamingByteWriter extends ByteWriter {
  constructor(private readonly out: ByteOutput) {
    super(1 << 20);
  }
  flush(): Promise<void> | undefined {
    if (this.index === 0 || this.out.closed) {
      this.index = 0;
      return undefined;
    }
    // A copy: the buffer is reused for the next group while the stream may still hold the chunk.
    const chunk = new Uint8Array(this.buffer.slice(0, this.index));
    this.index = 0;
    return this.out.write(chunk);
  }
  override finish(): Promise<void> | undefined {
    return this.flush();
  }
}

// The market id repeats for a whole market: one dictionary entry instead of the text per row. Ids
// and times rise in small steps: delta encoding stores the steps, not 8 bytes a value.
function encodingOf(type: ParquetType | undefined): Pick<ColumnSource, 'encoding'> {
  if (type === 'dictionary') return { encoding: 'RLE_DICTIONARY' };
  if (type === 'int64' || type === 'timestamp') return { encoding: 'DELTA_BINARY_PACKED' };
  return {};
}

// One column's values for the row group being filled, in the form the writer encodes: a typed array
// where the column has no nulls, so a group costs its numbers, not an object per cell. Rows are
// copied in as they arrive, so the snapshots themselves die with their page.
class ColumnBuffer<T> {
  private readonly doubles: Float64Array | undefined;
  private readonly longs: BigInt64Array | undefined;
  private readonly cells: unknown[] | undefined;
  constructor(readonly col: Column<T>, size: number) {
    if (col.nullable || col.parquet === 'string' || col.parquet === 'dictionary' || col.parquet === 'boolean') this.cells = new Array<unknown>(size);
    else if (col.parquet === 'double') this.doubles = new Float64Array(size);
    else this.longs = new BigInt64Array(size);
  }
  set(i: number, row: T): void {
    const v = this.col.value(row);
    if (this.doubles) this.doubles[i] = v as number;
    else if (this.longs) this.longs[i] = BigInt(v as number);
    else if (v === null || v === undefined) this.cells![i] = null;
    else if (this.col.parquet === 'int64' || this.col.parquet === 'timestamp') this.cells![i] = BigInt(v as number);
    else if (this.col.parquet === 'string' || this.col.parquet === 'dictionary') this.cells![i] = String(v);
    else this.cells![i] = v;
  }
  // The first n values; the writer encodes them before the buffer is filled again.
  values(n: number): ColumnSource['data'] {
    if (this.doubles) return this.doubles.subarray(0, n);
    if (this.longs) return this.longs.subarray(0, n) as unknown as ColumnSource['data'];
    return this.cells!.slice(0, n) as ColumnSource['data'];
  }
}

/** A file being written: the library's writer streaming into the output, and the rows per group. */
export interface ParquetFile {
  writer: ParquetWriter;
  groupRows: number;
}

/** Use to start a Parquet file of `schema`'s columns (the magic bytes go out with the first group). */
export function openParquetFile<T>(schema: RecordSchema<T>, out: ByteOutput, codec: ParquetCodec = 'snappy', groupRows?: number): ParquetFile {
  const columns = parquetColumns(schema);
  const { codec: name, compressors } = compressorsFor(codec);
  const writer = new ParquetWriter({
    writer: new StreamingByteWriter(out),
    schema: [{ name: 'root', num_children: columns.length }, ...columns.map((c) => element(c as Column<unknown>))],
    codec: name,
    ...(compressors ? { compressors } : {}),
    createdBy: 'msnap',
  });
  return { writer, groupRows: groupRows ?? Math.max(1024, Math.min(MAX_GROUP_ROWS, Math.floor(CELLS_PER_GROUP / columns.length))) };
}

/** Writes rows as one Parquet file; rows are buffered up to one row group. */
export class ParquetRowWriter<T> {
  private readonly buffers: ColumnBuffer<T>[];
  private readonly writer: ParquetWriter;
  private readonly groupRows: number;
  private filled = 0;
  /** Rows handed to the writer so far. */
  rows = 0;

  constructor(schema: RecordSchema<T>, private readonly out: ByteOutput, codec: ParquetCodec = 'snappy', groupRows?: number) {
    const file = openParquetFile(schema, out, codec, groupRows);
    this.writer = file.writer;
    this.groupRows = file.groupRows;
    this.buffers = parquetColumns(schema).map((c) => new ColumnBuffer(c, this.groupRows));
  }

  /** Add rows; a full row group is encoded and written before this resolves. */
  async add(rows: readonly T[]): Promise<void> {
    for (const row of rows) {
      for (const b of this.buffers) b.set(this.filled, row);
      this.filled += 1;
      if (this.filled >= this.groupRows) await this.writeGroup();
      if (this.out.closed) return;
    }
  }

  /** Write the last row group and the footer. */
  async finish(): Promise<void> {
    if (this.filled > 0) await this.writeGroup();
    if (!this.out.closed) await this.writer.finish();
  }

  private async writeGroup(): Promise<void> {
    const n = this.filled;
    this.filled = 0;
    const columnData: ColumnSource[] = this.buffers.map((b) => ({ name: b.col.name, data: b.values(n), ...encodingOf(b.col.parquet) }));
    this.rows += n;
    await this.writer.write({ columnData, rowGroupSize: n });
  }
}
