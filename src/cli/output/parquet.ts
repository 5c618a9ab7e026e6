// Parquet output: a schema's typed columns written a row group at a time, each group's bytes handed
// to the output as soon as it is encoded, so memory holds one row group however many rows follow.
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { ByteWriter, ParquetWriter, type ColumnSource, type SchemaElement } from 'hyparquet-writer';
import { UsageError } from '../../errors.js';
import type { ParquetCodec } from './parquet-codecs.js';
import { machineColumns, type Column, type ParquetType, type RecordSchema } from './schema.js';


/** Where the encoded bytes go: a promise when the caller must wait (backpressure). */
export interface ByteOutput {
  write(bytes: Uint8Array): Promise<void> | undefined;
  /** True once the reader went away: writing stops quietly. */
  readonly closed: boolean;
}

// About 1M cells per row group: 16k snapshot rows, ~14k with the 64 flat orderbook columns. Larger
// groups cost more in garbage collection than they save (measured: 65k-row groups ~30% slower).
const CELLS_PER_GROUP = 1_000_000;
const MAX_GROUP_ROWS = 16_384;

/** Use to check, before any request, that a schema can be written as Parquet. */
export function parquetColumns<T>(schema: RecordSchema<T>): Column<T>[] {
  const columns = machineColumns(schema);
  const untyped = columns.filter((c) => c.parquet === undefined).map((c) => c.name);
  if (untyped.length > 0) {
    throw new UsageError(`this output has no Parquet form (untyped: ${untyped.join(', ')}); use --csv, --ndjson or --json`);
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
  return { codec: 'SNAPPY' };
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

/** One column's values for a row group, in the form the writer encodes. */
function columnValues<T>(col: Column<T>, rows: readonly T[]): ColumnSource['data'] {
  const n = rows.length;
  const type = col.parquet;
  if ((type === 'double') && !col.nullable) {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = col.value(rows[i]!) as number;
    return out;
  }
  const out: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const v = col.value(rows[i]!);
    if (v === null || v === undefined) out[i] = null;
    else if (type === 'int64') out[i] = BigInt(v as number);
    else if (type === 'string' || type === 'dictionary') out[i] = String(v);
    else out[i] = v;
  }
  return out as ColumnSource['data'];
}

/** Writes rows as one Parquet file; rows are buffered up to one row group. */
export class ParquetRowWriter<T> {
  private readonly columns: Column<T>[];
  private readonly writer: ParquetWriter;
  private readonly groupRows: number;
  private pending: T[] = [];
  /** Rows handed to the writer so far. */
  rows = 0;

  constructor(schema: RecordSchema<T>, private readonly out: ByteOutput, codec: ParquetCodec = 'snappy', groupRows?: number) {
    this.columns = parquetColumns(schema);
    const { codec: name, compressors } = compressorsFor(codec);
    this.writer = new ParquetWriter({
      writer: new StreamingByteWriter(out),
      schema: [{ name: 'root', num_children: this.columns.length }, ...this.columns.map((c) => element(c as Column<unknown>))],
      codec: name,
      ...(compressors ? { compressors } : {}),
      createdBy: 'msnap',
    });
    this.groupRows = groupRows ?? Math.max(1024, Math.min(MAX_GROUP_ROWS, Math.floor(CELLS_PER_GROUP / this.columns.length)));
  }

  /** Add rows; a full row group is encoded and written before this resolves. */
  async add(rows: readonly T[]): Promise<void> {
    for (const row of rows) {
      this.pending.push(row);
      if (this.pending.length >= this.groupRows) await this.writeGroup();
      if (this.out.closed) return;
    }
  }

  /** Write the last row group and the footer. */
  async finish(): Promise<void> {
    if (this.pending.length > 0) await this.writeGroup();
    if (!this.out.closed) await this.writer.finish();
  }

  private async writeGroup(): Promise<void> {
    const rows = this.pending;
    this.pending = [];
    const columnData: ColumnSource[] = this.columns.map((col) => ({
      name: col.name,
      data: columnValues(col, rows),
      ...encodingOf(col.parquet),
    }));
    this.rows += rows.length;
    await this.writer.write({ columnData, rowGroupSize: rows.length });
  }
}
