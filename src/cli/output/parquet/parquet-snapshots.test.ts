import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import type { RowPage, SnapshotColumnPage } from '../../../client/pages/row-page.js';
import type { Snapshot } from '../../../domain/market.js';
import { createExporter } from '../exporter.js';
import { ParquetRowWriter, type ByteOutput } from './parquet.js';
import type { ParquetCodec } from './parquet-codecs.js';
import { isSnapshotParquet } from './parquet-shape.js';
import { SnapshotParquetWriter } from './parquet-snapshots.js';
import { MARKET_SCHEMA, snapshotSchema } from '../schemas/record-schemas.js';
import { OutputSink } from '../files/sink.js';
import { Writable } from 'node:stream';
import { expectSameOutput } from '../../../test-support/fast-path.js';

function memoryOutput(): ByteOutput & { bytes(): Buffer } {
  const chunks: Uint8Array[] = [];
  return {
    closed: false,
    write(bytes) {
      chunks.push(bytes);
      return undefined;
    },
    bytes: () => Buffer.concat(chunks),
  };
}

// A small deterministic generator, so a failing case can be rerun.
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Rows of the shape the client gives; `distinct` spreads prices (dictionary kept or dropped). */
function rows(n: number, { seed = 1, distinct = 50, markets = 2, idStep = 125, start = 1_763_769_600_000 } = {}): Snapshot[] {
  const r = random(seed);
  return Array.from({ length: n }, (_, i) => ({
    id: 176_376_960_000 + i * idStep + (r() < 0.05 ? Math.floor(r() * 1_000_000) : 0),
    market_id: `btc-updown-5m-${1763769600 + Math.floor((i * markets) / Math.max(n, 1)) * 300}`,
    time: start + i * 125,
    price: 97_000 + Math.floor(r() * distinct) / 100,
    price_up: Math.floor(r() * 100) / 100,
    price_down: Math.round(r() * 99 + 1) / 100,
  }));
}

/** A page's columns as the client's column scan gives them. */
function columnsOf(list: readonly Snapshot[]): SnapshotColumnPage {
  const marketIds = [...new Set(list.map((s) => s.market_id))];
  const column = (pick: (s: Snapshot) => number) => Float64Array.from(list, pick);
  return { id: column((s) => s.id), time: column((s) => s.time), price: column((s) => s.price), up: column((s) => s.price_up), down: column((s) => s.price_down), marketIds, market: Int32Array.from(list, (s) => marketIds.indexOf(s.market_id)) };
}

const csvOf = (list: readonly Snapshot[]): Uint8Array =>
  Buffer.from(list.map((s) => `${s.id},${s.market_id},${s.time},${s.price},${s.price_up},${s.price_down}\n`).join(''), 'latin1');

/** The general path's file (ParquetRowWriter, the library) and the columnar writer's, from the same rows. */
async function both(list: Snapshot[], { codec = 'snappy' as ParquetCodec, groupRows = 1000, page = 700, ready = true } = {}) {
  const schema = snapshotSchema(false);
  const general = memoryOutput();
  const g = new ParquetRowWriter(schema, general, codec, groupRows);
  const fast = memoryOutput();
  const f = new SnapshotParquetWriter(schema, fast, codec, groupRows);
  for (let i = 0; i < list.length; i += page) {
    const slice = list.slice(i, i + page);
    await g.add(slice);
    // Every other page as objects: the two sources mix within a row group.
    if (ready && (i / page) % 2 === 0) await f.addReadyCsv(csvOf(slice), slice.length);
    else await f.add(slice);
  }
  await g.finish();
  await f.finish();
  return { general: general.bytes(), fast: fast.bytes(), libraryGroups: f.libraryGroups };
}

describe('Parquet of plain snapshots from columns', () => {
  it('writes the very bytes the row writer writes, dictionary kept or dropped per column and group', async () => {
    for (const [seed, distinct] of [[1, 20], [2, 800], [3, 100_000]] as const) {
      const { general, fast, libraryGroups } = await both(rows(5000, { seed, distinct }));
      expectSameOutput(`prices of ${distinct} values`, fast, general, libraryGroups === 0);
    }
    const { general } = await both(rows(3000, { distinct: 100_000 }));
    const encodings = parquetMetadata(general.buffer.slice(general.byteOffset, general.byteOffset + general.length)).row_groups[0]!.columns.map((c) => c.meta_data!.encodings.join('+'));
    // Prices all distinct: PLAIN; probabilities repeat: a dictionary; market ids always one.
    expect(encodings).toEqual(['DELTA_BINARY_PACKED', 'PLAIN+RLE_DICTIONARY', 'DELTA_BINARY_PACKED', 'PLAIN', 'PLAIN+RLE_DICTIONARY', 'PLAIN+RLE_DICTIONARY']);
  });

  it.each(['gzip', 'brotli', 'none'] as const)('matches byte for byte with %s too', async (codec) => {
    const { general, fast, libraryGroups } = await both(rows(2500, { seed: 7 }), { codec });
    expectSameOutput(codec, fast, general, libraryGroups === 0);
  });

  it('matches on wide deltas, falling ids, one-row groups, many markets and odd numbers', async () => {
    const r = random(9);
    const odd: Snapshot[] = rows(1200, { markets: 40 }).map((s, i) => ({
      ...s,
      id: i % 3 === 0 ? Math.floor(r() * 2 ** 43) : 17_000_000_000_000 - i * 999_999,
      time: s.time - (i % 5) * 10_000_000,
      price: i % 97 === 0 ? 0 : i % 89 === 0 ? 123_456_789.125 : s.price,
    }));
    for (const groupRows of [1, 7, 128, 129, 1000]) {
      const { general, fast, libraryGroups } = await both(odd, { groupRows, page: 333 });
      expectSameOutput(`groups of ${groupRows}`, fast, general, libraryGroups === 0);
    }
  });

  it('hands a group with values beyond its encoders (ids past 2^44, -0, NaN) to the library, same bytes', async () => {
    const list = rows(900).map((s, i) => ({ ...s, id: i === 500 ? 2 ** 60 : s.id, price: i === 3 ? -0 : i === 4 ? Number.NaN : s.price }));
    const { general, fast, libraryGroups } = await both(list, { ready: false });
    // Group 1 (rows 0-999 at 1,000 a group) holds the huge id: the library's; -0 and NaN are the encoders' own.
    expect(libraryGroups).toBe(1);
    expect(fast.equals(general)).toBe(true);
    const small = await both(list.slice(0, 400), { ready: false, groupRows: 200 });
    expectSameOutput('-0 and NaN', small.fast, small.general, small.libraryGroups === 0);
  });

  it('fails as the row writer does on an id that is no integer', async () => {
    const bad = rows(10).map((s, i) => ({ ...s, id: i === 4 ? 1.5 : s.id }));
    const general = new ParquetRowWriter(snapshotSchema(false), memoryOutput());
    const fast = new SnapshotParquetWriter(snapshotSchema(false), memoryOutput());
    await expect(general.add(bad)).rejects.toThrow(RangeError);
    await expect(fast.add(bad)).rejects.toThrow(RangeError);
    await expect(new SnapshotParquetWriter(snapshotSchema(false), memoryOutput()).addReadyCsv(csvOf(bad), bad.length)).rejects.toThrow(RangeError);
  });

  it('takes the six plain columns only', () => {
    expect(isSnapshotParquet(snapshotSchema(false))).toBe(true);
    expect(isSnapshotParquet(snapshotSchema('flat'))).toBe(false);
    expect(isSnapshotParquet(MARKET_SCHEMA)).toBe(false);
  });

  it('exports client pages through their ready CSV: the same file as from the rows, read back row for row', async () => {
    const list = rows(25_000, { seed: 4 });
    let built = 0;
    const pages = (withCsv: boolean): RowPage<Snapshot>[] =>
      [0, 10_000, 20_000].map((at) => {
        const slice = list.slice(at, at + 10_000);
        const rowsOf = () => {
          built += 1;
          return slice;
        };
        return { count: slice.length, rows: rowsOf, ...(withCsv ? { readyCsv: csvOf(slice) } : {}) };
      });
    const files: Buffer[] = [];
    for (const withCsv of [true, false]) {
      const parts: Buffer[] = [];
      const stream = new Writable({
        write(chunk: Buffer, _enc, cb) {
          parts.push(Buffer.from(chunk));
          cb();
        },
      });
      const result = await createExporter({ format: 'parquet', sink: new OutputSink(stream), color: false }).listPages(snapshotSchema(false), pages(withCsv));
      expect(result.rows).toBe(list.length);
      files.push(Buffer.concat(parts));
    }
    // The pages with ready CSV built no rows; the three without did.
    expectSameOutput('ready CSV pages', files[0]!, files[1]!, built === 3);
    // Pages asked for as columns are read instead of the row pages, which are never touched.
    const parts: Buffer[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        parts.push(Buffer.from(chunk));
        cb();
      },
    });
    let rowPagesRead = false;
    const rowPages = (async function* () {
      rowPagesRead = true;
      yield* pages(false);
    })();
    const columnPages = async function* (): AsyncGenerator<RowPage<Snapshot>> {
      for (const p of pages(false)) yield { count: p.count, rows: p.rows, columns: columnsOf(p.rows()) };
    };
    built = 0;
    const viaColumns = await createExporter({ format: 'parquet', sink: new OutputSink(stream), color: false }).listPages(snapshotSchema(false), rowPages, { columns: columnPages });
    expect(viaColumns.rows).toBe(list.length);
    // columnsOf read each page's rows once to make its columns; the writer read none.
    expectSameOutput('column pages', Buffer.concat(parts), files[1]!, built === 3 && !rowPagesRead);
    const file = files[0]!.buffer.slice(files[0]!.byteOffset, files[0]!.byteOffset + files[0]!.length);
    const back = await parquetReadObjects({ file });
    expect(back.map((r) => [Number(r['id']), r['market_id'], (r['time'] as Date).getTime(), r['price'], r['price_up'], r['price_down']])).toEqual(
      list.map((s) => [s.id, s.market_id, s.time, s.price, s.price_up, s.price_down]),
    );
  });
});
