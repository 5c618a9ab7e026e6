// Parquet for plain snapshots (the six contract columns) written from columns: a client page's
// ready CSV goes straight into typed arrays (no row objects), and each row group's chunks are
// encoded by parquet-chunks.ts. The file is the one ParquetRowWriter writes for the same rows, byte
// for byte (parquet-snapshots.test.ts); a group holding a value the column encoders do not take
// (an id beyond 2^44, a missing market id) is handed to the library as ParquetRowWriter would.
import type { ColumnChunk, RowGroup } from 'hyparquet';
import type { ColumnSource } from 'hyparquet-writer';
import type { SnapshotColumnPage } from '../../../client/pages/row-page.js';
import { readyCsvColumns, type SnapshotColumns } from '../../../client/pages/snapshot-csv-rows.js';
import { doubleChunk, int64Chunk, stringChunk, type ChunkTarget } from './parquet-chunks.js';
import { DELTA_SAFE } from './parquet-delta.js';
import type { ParquetCodec } from './parquet-codecs.js';
import { openParquetFile, ParquetRowWriter, type ByteOutput, type ParquetFile } from './parquet.js';
import { isSnapshotParquet } from './parquet-shape.js';
import { machineColumns, type Column, type RecordSchema } from '../schemas/schema.js';

/** Use for a Parquet export: the columnar writer for plain snapshots, the row writer for the rest. */
export function parquetWriterFor<T>(schema: RecordSchema<T>, out: ByteOutput, codec?: ParquetCodec): SnapshotParquetWriter<T> | ParquetRowWriter<T> {
  return isSnapshotParquet(schema) ? new SnapshotParquetWriter(schema, out, codec) : new ParquetRowWriter(schema, out, codec);
}

// A ParquetFile's internals the chunks are added to, as ParquetWriter.write adds its own.
interface WriterState {
  row_groups: RowGroup[];
  num_rows: bigint;
  pendingIndexes: { chunk: ColumnChunk }[];
  writer: ChunkTarget['writer'] & { flush?: () => Promise<void> | undefined };
  codec: ChunkTarget['codec'];
  compressors: ChunkTarget['compressors'];
}

/** Writes snapshot rows (objects or a page's ready CSV) as one Parquet file, a row group at a time. */
export class SnapshotParquetWriter<T> implements SnapshotColumns {
  readonly id: Float64Array;
  readonly time: Float64Array;
  readonly price: Float64Array;
  readonly up: Float64Array;
  readonly down: Float64Array;
  private readonly ids: Int32Array;
  private dictionary: string[] = [];
  private readonly dictionaryIndex = new Map<string, number>();
  private lastId = '';
  private lastIndex = -1;
  /** lastId's bytes, when it came from a page's CSV (undefined once another id came from a row). */
  private lastBytes: Uint8Array | undefined;
  /** A value the encoders here do not take is in the group: the library writes it. */
  private unusual = false;
  private readonly file: ParquetFile;
  private readonly columns: Column<T>[];
  private filled = 0;
  /** Rows handed to the writer so far. */
  rows = 0;
  /** Row groups handed to the library (values the encoders here do not take); the rest were encoded here. */
  libraryGroups = 0;

  constructor(schema: RecordSchema<T>, private readonly out: ByteOutput, codec: ParquetCodec = 'snappy', groupRows?: number) {
    this.columns = machineColumns(schema);
    this.file = openParquetFile(schema, out, codec, groupRows);
    const size = this.file.groupRows;
    this.id = new Float64Array(size);
    this.time = new Float64Array(size);
    this.price = new Float64Array(size);
    this.up = new Float64Array(size);
    this.down = new Float64Array(size);
    this.ids = new Int32Array(size);
  }

  /** Add rows; a full row group is encoded and written before this resolves. */
  async add(rows: readonly T[]): Promise<void> {
    const [id, marketId, time, price, up, down] = this.columns.map((c) => c.value) as ((row: T) => unknown)[];
    for (const row of rows) {
      const i = this.filled;
      this.id[i] = this.integer(id!(row));
      this.intern(marketId!(row), i);
      this.time[i] = this.integer(time!(row));
      this.price[i] = price!(row) as number;
      this.up[i] = up!(row) as number;
      this.down[i] = down!(row) as number;
      this.filled += 1;
      if (this.filled >= this.file.groupRows) await this.writeGroup();
      if (this.out.closed) return;
    }
  }

  /** Add a client page's rows from its ready CSV (lines of the six columns, see client/row-page.ts). */
  async addReadyCsv(csv: Uint8Array, count: number): Promise<void> {
    let byteAt = 0;
    await this.fillGroups(count, (_at, take, from) => {
      byteAt = readyCsvColumns(csv, byteAt, take, this, from);
    });
  }

  /** Add a client page's rows from its columns (a page asked for as columns, see client/row-page.ts). */
  async addColumns(page: SnapshotColumnPage): Promise<void> {
    await this.fillGroups(page.id.length, (at, take, from) => {
      const to = at + take;
      this.id.set(page.id.subarray(at, to), from);
      this.time.set(page.time.subarray(at, to), from);
      this.price.set(page.price.subarray(at, to), from);
      this.up.set(page.up.subarray(at, to), from);
      this.down.set(page.down.subarray(at, to), from);
      // The page's market ids as this group's dictionary indexes, interned in the order the rows
      // name them (the dictionary is per group, and a group may start mid-page).
      if (page.marketIds.length === 1) {
        this.ids.fill(this.internText(page.marketIds[0]!), from, from + take);
      } else {
        const indexes = new Int32Array(page.marketIds.length).fill(-1);
        for (let r = at; r < to; r++) {
          const k = page.market[r]!;
          if (indexes[k]! < 0) indexes[k] = this.internText(page.marketIds[k]!);
          this.ids[from + r - at] = indexes[k]!;
        }
      }
    });
  }

  // Rows 0..count of a page into the group being filled, `copy` putting rows at..at+take into slots
  // from..from+take; a full group is encoded and written before the next rows go in.
  private async fillGroups(count: number, copy: (at: number, take: number, from: number) => void): Promise<void> {
    for (let at = 0; at < count && !this.out.closed; ) {
      const take = Math.min(count - at, this.file.groupRows - this.filled);
      const from = this.filled;
      copy(at, take, from);
      // Ids and times are what BigInt() takes in ParquetRowWriter (an id of 1.5 fails there too).
      for (let i = from; i < from + take; i++) {
        this.integer(this.id[i]!);
        this.integer(this.time[i]!);
      }
      this.filled += take;
      at += take;
      if (this.filled >= this.file.groupRows) await this.writeGroup();
    }
  }

  /** SnapshotColumns: a row's market id, bytes of the page's CSV (printable ASCII) up to the next comma. */
  marketId(csv: Uint8Array, start: number, row: number): number {
    // Most rows name the market the row before named: its bytes and the comma after them.
    const last = this.lastBytes;
    if (last !== undefined && csv[start + last.length] === 44) {
      let k = 0;
      while (k < last.length && csv[start + k] === last[k]) k++;
      if (k === last.length) {
        this.ids[row] = this.lastIndex;
        return start + k;
      }
    }
    let end = start;
    while (csv[end] !== 44) end++;
    this.intern(Buffer.from(csv.buffer, csv.byteOffset + start, end - start).toString('latin1'), row);
    this.lastBytes = csv.slice(start, end);
    return end;
  }

  /** Write the last row group and the footer. */
  async finish(): Promise<void> {
    if (this.filled > 0) await this.writeGroup();
    if (!this.out.closed) await this.file.writer.finish();
  }

  private integer(v: unknown): number {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      BigInt(v as number); // throws as ParquetRowWriter would for a value that is no integer
      this.unusual = true;
    } else if (v >= DELTA_SAFE || v <= -DELTA_SAFE) this.unusual = true;
    return v as number;
  }

  private intern(v: unknown, row: number): void {
    if (v === null || v === undefined) {
      this.unusual = true;
      this.ids[row] = -1;
      return;
    }
    this.ids[row] = this.internText(String(v));
  }

  // The group dictionary's index of `text`, added when new.
  private internText(text: string): number {
    this.lastBytes = undefined;
    if (text === this.lastId && this.lastIndex >= 0) return this.lastIndex;
    let k = this.dictionaryIndex.get(text);
    if (k === undefined) {
      k = this.dictionary.length;
      this.dictionary.push(text);
      this.dictionaryIndex.set(text, k);
    }
    this.lastId = text;
    this.lastIndex = k;
    return k;
  }

  private async writeGroup(): Promise<void> {
    const n = this.filled;
    this.filled = 0;
    this.rows += n;
    if (this.unusual) {
      this.libraryGroups += 1;
      await this.file.writer.write({ columnData: this.librarySources(n), rowGroupSize: n });
    } else {
      await this.encodeGroup(n);
    }
    this.unusual = false;
    this.dictionary = [];
    this.dictionaryIndex.clear();
    this.lastId = '';
    this.lastIndex = -1;
    this.lastBytes = undefined;
  }

  // The group as ParquetWriter.write would write it, the chunks encoded here.
  private encodeGroup(n: number): Promise<void> | undefined {
    const state = this.file.writer as unknown as WriterState;
    const target: ChunkTarget = { writer: state.writer, codec: state.codec, compressors: state.compressors };
    const groupStart = state.writer.offset;
    const columns = [
      int64Chunk(target, 'id', this.id, n),
      stringChunk(target, 'market_id', this.dictionary, this.ids, n),
      int64Chunk(target, 'time', this.time, n),
      doubleChunk(target, 'price', this.price, n),
      doubleChunk(target, 'price_up', this.up, n),
      doubleChunk(target, 'price_down', this.down, n),
    ];
    for (const chunk of columns) state.pendingIndexes.push({ chunk });
    let total = 0n;
    for (const c of columns) total += c.meta_data?.total_uncompressed_size ?? 0n;
    state.num_rows += BigInt(n);
    state.row_groups.push({ columns, total_byte_size: total, num_rows: BigInt(n), total_compressed_size: BigInt(state.writer.offset - groupStart) });
    return state.writer.flush?.();
  }

  // The columns as ParquetRowWriter hands them to the library.
  private librarySources(n: number): ColumnSource[] {
    const longs = (a: Float64Array): BigInt64Array => BigInt64Array.from(a.subarray(0, n), (v) => BigInt(v));
    const marketIds = Array.from(this.ids.subarray(0, n), (k) => (k < 0 ? null : this.dictionary[k]!));
    return [
      { name: 'id', data: longs(this.id) as unknown as ColumnSource['data'], encoding: 'DELTA_BINARY_PACKED' },
      { name: 'market_id', data: marketIds as ColumnSource['data'], encoding: 'RLE_DICTIONARY' },
      { name: 'time', data: longs(this.time) as unknown as ColumnSource['data'], encoding: 'DELTA_BINARY_PACKED' },
      { name: 'price', data: this.price.slice(0, n) },
      { name: 'price_up', data: this.up.slice(0, n) },
      { name: 'price_down', data: this.down.slice(0, n) },
    ];
  }
}
