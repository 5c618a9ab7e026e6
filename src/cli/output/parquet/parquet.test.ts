import { pageOf } from '../../../client/pages/row-page.js';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Writable } from 'node:stream';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../../domain/market.js';
import { UsageError } from '../../../errors.js';
import { createExporter } from '../exporter.js';
import { levelAt } from '../schemas/orderbook-columns.js';
import { ParquetRowWriter, type ByteOutput } from './parquet.js';
import type { ParquetCodec } from './parquet-codecs.js';
import { MARKET_SCHEMA, snapshotSchema } from '../schemas/record-schemas.js';
import { OutputSink } from '../files/sink.js';
import type { RecordSchema } from '../schemas/schema.js';

/** Collects chunks, recording how many rows had been added when each arrived. */
function memoryOutput(): ByteOutput & { chunks: Uint8Array[]; bytes(): ArrayBuffer } {
  const chunks: Uint8Array[] = [];
  return {
    chunks,
    closed: false,
    write(bytes) {
      chunks.push(bytes);
      return undefined;
    },
    bytes() {
      const all = Buffer.concat(chunks);
      return all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
    },
  };
}

// The reader decompresses GZIP and BROTLI with node's zlib (the writer compressed them with it too,
// but the reader's page decoding is its own).
const READ_COMPRESSORS = {
  GZIP: (input: Uint8Array, size: number) => new Uint8Array(gunzipSync(input)).subarray(0, size),
  BROTLI: (input: Uint8Array, size: number) => new Uint8Array(brotliDecompressSync(input)).subarray(0, size),
};

function snapshots(n: number, market = 'btc-updown-5m-1763769600', start = 1763769600000): Snapshot[] {
  return Array.from({ length: n }, (_, i) => ({
    id: 176376960000 + i * 125,
    market_id: i < n / 2 ? market : 'eth-updown-5m-1763769600',
    time: start + i * 125,
    price: 97000 + ((i * 7919) % 1000) / 100,
    price_up: ((i * 31) % 100) / 100,
    price_down: 1 - ((i * 31) % 100) / 100 + 0.01,
  }));
}

async function write<T>(schema: RecordSchema<T>, rows: T[], codec: ParquetCodec = 'snappy', groupRows?: number) {
  const out = memoryOutput();
  const w = new ParquetRowWriter(schema, out, codec, groupRows);
  for (let i = 0; i < rows.length; i += 1000) await w.add(rows.slice(i, i + 1000));
  const chunksBeforeFinish = out.chunks.length;
  await w.finish();
  return { out, file: out.bytes(), chunksBeforeFinish };
}

describe('Parquet writer', () => {
  it('writes typed columns that an independent reader reads back row for row', async () => {
    const rows = snapshots(5000);
    const { file } = await write(snapshotSchema(false), rows);
    const meta = parquetMetadata(file);
    expect(Number(meta.num_rows)).toBe(5000);
    const byName = Object.fromEntries(meta.schema.slice(1).map((e) => [e.name, e]));
    expect(byName['id']).toMatchObject({ type: 'INT64', repetition_type: 'REQUIRED' });
    expect(byName['time']).toMatchObject({
      type: 'INT64',
      logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
    });
    expect(byName['price']).toMatchObject({ type: 'DOUBLE' });
    expect(byName['market_id']).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'UTF8' });
    const marketChunk = meta.row_groups[0]!.columns.find((c) => c.meta_data?.path_in_schema[0] === 'market_id');
    expect(marketChunk?.meta_data?.encodings).toContain('RLE_DICTIONARY');
    expect(marketChunk?.meta_data?.codec).toBe('SNAPPY');

    const back = await parquetReadObjects({ file });
    expect(back).toHaveLength(rows.length);
    back.forEach((r, i) => {
      const s = rows[i]!;
      expect(r).toEqual({
        id: BigInt(s.id),
        market_id: s.market_id,
        time: new Date(s.time),
        price: s.price,
        price_up: s.price_up,
        price_down: s.price_down,
      });
    });
  });

  it('hands each row group to the output as soon as it is encoded (memory holds one group)', async () => {
    const { out, chunksBeforeFinish, file } = await write(snapshotSchema(false), snapshots(10_000), 'snappy', 1000);
    // The magic bytes and 10 row groups leave before the footer is written.
    expect(chunksBeforeFinish).toBeGreaterThanOrEqual(10);
    expect(out.chunks.length).toBe(chunksBeforeFinish + 1);
    expect(parquetMetadata(file).row_groups).toHaveLength(10);
  });

  it.each(['gzip', 'brotli', 'none'] as const)('compresses with %s and reads back the same values', async (codec) => {
    const rows = snapshots(3000);
    const { file } = await write(snapshotSchema(false), rows, codec);
    const meta = parquetMetadata(file);
    const expected = { gzip: 'GZIP', brotli: 'BROTLI', none: 'UNCOMPRESSED' }[codec];
    expect(meta.row_groups[0]!.columns.every((c) => c.meta_data?.codec === expected)).toBe(true);
    const back = await parquetReadObjects({ file, compressors: READ_COMPRESSORS });
    expect(back.map((r) => r['price'])).toEqual(rows.map((s) => s.price));
  });

  it('keeps nulls in nullable columns (a market not yet resolved)', async () => {
    const market = {
      market_id: 'btc-updown-5m-1763769600',
      slug: 'btc-updown-5m-1763769600',
      coin: 'BTC' as const,
      market_type: '5m' as const,
      status: 'active' as const,
      start_time: 1763769600000,
      end_time: 1763769900000,
      price_start: 97000.5,
      price_end: null,
      winner: null,
      snapshot_count: 12,
    };
    const { file } = await write(MARKET_SCHEMA, [market, { ...market, status: 'resolved', price_end: 97001, winner: 'Up', market_id: 'x' }]);
    const back = await parquetReadObjects({ file });
    expect(back[0]).toMatchObject({ price_end: null, winner: null, snapshot_count: 12n, start_time: new Date(1763769600000) });
    expect(back[1]).toMatchObject({ price_end: 97001, winner: 'Up', status: 'resolved' });
  });

  it('flattens orderbooks into 64 columns, reading levels given as pairs or as {price, size}', async () => {
    const base = snapshots(2);
    const rows: Snapshot[] = [
      { ...base[0]!, orderbook_up: { bids: [[0.5, 10], [0.49, 20]], asks: [[0.51, 5]] }, orderbook_down: { bids: [], asks: [[0.5, 1]] } },
      {
        ...base[1]!,
        orderbook_up: { bids: [{ price: 0.52, size: 3 }], asks: [] } as unknown as Snapshot['orderbook_up'],
      },
    ];
    const { file } = await write(snapshotSchema(true).parquetSchema!, rows);
    const meta = parquetMetadata(file);
    expect(meta.schema.slice(1).map((e) => e.name)).toHaveLength(6 + 64);
    const back = await parquetReadObjects({ file });
    expect(back[0]).toMatchObject({ up_bid_px_0: 0.5, up_bid_sz_0: 10, up_bid_px_1: 0.49, up_ask_px_0: 0.51, up_ask_sz_1: null, down_ask_px_0: 0.5, down_bid_px_0: null });
    expect(back[1]).toMatchObject({ up_bid_px_0: 0.52, up_bid_sz_0: 3, up_ask_px_0: null, down_bid_px_0: null });
    expect(levelAt({ bids: [[1, 2]] }, 'bids', 0)).toEqual({ price: 1, size: 2 });
    expect(levelAt(undefined, 'asks', 0)).toBeUndefined();
  });

  it('writes a valid empty file when there are no rows', async () => {
    const { file } = await write(snapshotSchema(false), []);
    expect(Number(parquetMetadata(file).num_rows)).toBe(0);
    expect(await parquetReadObjects({ file })).toEqual([]);
  });

  it('refuses a schema without Parquet types with a usage error', () => {
    const untyped = { columns: [{ name: 'n', value: (r: { n: number }) => r.n }] };
    expect(() => new ParquetRowWriter(untyped, memoryOutput())).toThrow(UsageError);
  });

  it('goes through the exporter to a stream as binary, and record() writes a one-row file', async () => {
    const parts: Buffer[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        parts.push(Buffer.from(chunk));
        cb();
      },
    });
    const exporter = createExporter({ format: 'parquet', sink: new OutputSink(stream), color: false, compression: 'gzip' });
    const rows = snapshots(1500);
    const result = await exporter.listPages(snapshotSchema(false), [pageOf(rows.slice(0, 700)), pageOf(rows.slice(700))]);
    expect(result.rows).toBe(1500);
    const all = Buffer.concat(parts);
    const file = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
    const back = await parquetReadObjects({ file, compressors: READ_COMPRESSORS });
    expect(back.map((r) => Number(r['id']))).toEqual(rows.map((s) => s.id));
  });
});
