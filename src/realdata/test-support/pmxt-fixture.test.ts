import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import {
  PMXT_COLUMNS,
  pmxtFileName,
  pmxtRow,
  sortPmxtRows,
  writePmxtFile,
  writePmxtV1File,
  writeTruncatedCopy,
  writeUnrelatedParquetFile,
  type PmxtRow,
} from './pmxt-fixture.js';

const MARKET_A = `0x${'a1'.repeat(32)}`;
const MARKET_B = `0x${'0b'.repeat(32)}`;

function row(over: Partial<PmxtRow>): PmxtRow {
  return pmxtRow({ timestamp_received: 1776081600100, timestamp: 1776081600050, market: MARKET_A, event_type: 'price_change', asset_id: '111', ...over });
}

const ROWS: PmxtRow[] = [
  row({ market: MARKET_A, asset_id: '222', timestamp_received: 5, event_type: 'last_trade_price', price: '0.5123', size: '12.345678', side: 'SELL', fee_rate_bps: 65535, transaction_hash: `0x${'cd'.repeat(32)}` }),
  row({ market: MARKET_A, asset_id: '111', timestamp_received: 9, event_type: 'price_change', price: '0.49', size: '0', side: 'BUY', best_bid: '0.48', best_ask: '0.5' }),
  row({ market: MARKET_B, asset_id: '111', timestamp_received: 1, event_type: 'tick_size_change', old_tick_size: '0.01', new_tick_size: '0.001' }),
  row({ market: MARKET_A, asset_id: '111', timestamp_received: 2, event_type: 'book', bids: '[["0.48","120.5"]]', asks: '[]' }),
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pmxt-fixture-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function read(path: string) {
  const bytes = await readFile(path);
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const metadata = parquetMetadata(file);
  const rows = await parquetReadObjects({ file, compressors, utf8: true });
  return { metadata, rows };
}

describe('writePmxtFile', () => {
  it('writes the 16 published columns with their published types, ZSTD by default', async () => {
    const path = join(dir, 'types.parquet');
    await writePmxtFile(path, ROWS);
    const { metadata } = await read(path);
    const leaves = parquetSchema(metadata).children.map((c) => c.element);
    expect(leaves.map((e) => e.name)).toEqual([...PMXT_COLUMNS]);
    const by = Object.fromEntries(leaves.map((e) => [e.name, e]));
    for (const name of ['timestamp_received', 'timestamp']) {
      expect(by[name]).toMatchObject({ type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } });
    }
    expect(by.market).toMatchObject({ type: 'FIXED_LEN_BYTE_ARRAY', type_length: 66 });
    for (const name of ['event_type', 'asset_id', 'bids', 'asks', 'side', 'transaction_hash']) {
      expect(by[name]).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'UTF8' });
    }
    for (const name of ['price', 'best_bid', 'best_ask', 'old_tick_size', 'new_tick_size']) {
      expect(by[name]).toMatchObject({ converted_type: 'DECIMAL', precision: 9, scale: 4 });
    }
    expect(by.size).toMatchObject({ converted_type: 'DECIMAL', precision: 18, scale: 6 });
    expect(by.fee_rate_bps).toMatchObject({ type: 'INT32', converted_type: 'UINT_16', logical_type: { type: 'INTEGER', bitWidth: 16, isSigned: false } });
    expect(leaves.every((e) => e.repetition_type === 'OPTIONAL')).toBe(true);
    const codecs = metadata.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data?.codec));
    expect(new Set(codecs)).toEqual(new Set(['ZSTD']));
  });

  it('reads back the values exactly, sorted by market, asset_id, timestamp_received', async () => {
    const path = join(dir, 'values.parquet');
    await writePmxtFile(path, ROWS, { codec: 'SNAPPY', rowGroupSize: 2 });
    const { metadata, rows } = await read(path);
    expect(metadata.row_groups.length).toBe(2);
    expect(metadata.row_groups[0]!.columns[0]!.meta_data?.codec).toBe('SNAPPY');
    expect(rows.map((r) => [new TextDecoder().decode(r.market as Uint8Array), r.asset_id, Number(r.timestamp_received instanceof Date ? r.timestamp_received.getTime() : r.timestamp_received)])).toEqual([
      [MARKET_B, '111', 1],
      [MARKET_A, '111', 2],
      [MARKET_A, '111', 9],
      [MARKET_A, '222', 5],
    ].sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)));
    const trade = rows.find((r) => r.event_type === 'last_trade_price')!;
    expect(trade).toMatchObject({ price: 0.5123, size: 12.345678, side: 'SELL', fee_rate_bps: 65535, bids: null });
    const book = rows.find((r) => r.event_type === 'book')!;
    expect(book).toMatchObject({ bids: '[["0.48","120.5"]]', asks: '[]', price: null });
    const tick = rows.find((r) => r.event_type === 'tick_size_change')!;
    // hyparquet scales decimals by a float power of ten (100 units -> 0.009999999999999998): a
    // reader rounds to the column's scale to get the published value back.
    expect([Number((tick.old_tick_size as number).toFixed(4)), Number((tick.new_tick_size as number).toFixed(4))]).toEqual([0.01, 0.001]);
  });

  it('stores decimals as integers when asked (INT32 for 9 digits, INT64 for 18)', async () => {
    const path = join(dir, 'int-decimals.parquet');
    await writePmxtFile(path, ROWS, { decimals: 'int' });
    const { metadata, rows } = await read(path);
    const by = Object.fromEntries(parquetSchema(metadata).children.map((c) => [c.element.name, c.element]));
    expect(by.price!.type).toBe('INT32');
    expect(by.size!.type).toBe('INT64');
    expect(rows.find((r) => r.event_type === 'last_trade_price')).toMatchObject({ price: 0.5123, size: 12.345678 });
  });

  it('refuses a market that is not 66 bytes and a decimal with too many decimals', async () => {
    await expect(writePmxtFile(join(dir, 'bad.parquet'), [row({ market: '0xabc' })])).rejects.toThrow(/66 bytes/);
    await expect(writePmxtFile(join(dir, 'bad.parquet'), [row({ price: '0.12345' })])).rejects.toThrow(/more than 4 decimals/);
  });
});

describe('pmxt file names and order', () => {
  it('names the UTC hour file', () => {
    expect(pmxtFileName(Date.UTC(2026, 3, 13, 7, 59, 59, 999))).toBe('polymarket_orderbook_2026-04-13T07.parquet');
  });

  it('sorts by market, asset_id, timestamp_received and keeps ties in input order', () => {
    const a = row({ timestamp_received: 3, transaction_hash: 'first' });
    const b = row({ timestamp_received: 3, transaction_hash: 'second' });
    const c = row({ timestamp_received: 1, asset_id: '2' });
    // '111' < '2' as text: asset ids sort as strings, not numbers.
    expect(sortPmxtRows([c, a, b]).map((r) => r.transaction_hash ?? r.asset_id)).toEqual(['first', 'second', '2']);
  });
});

describe('bad inputs', () => {
  it('writes a v1 file with the older five columns', async () => {
    const path = join(dir, 'v1.parquet');
    await writePmxtV1File(path);
    const { metadata, rows } = await read(path);
    expect(parquetSchema(metadata).children.map((c) => c.element.name)).toEqual(['timestamp_received', 'timestamp_created_at', 'market_id', 'update_type', 'data']);
    expect(rows.length).toBe(2);
  });

  it('writes an unrelated but valid Parquet file (msnap snapshot export shape)', async () => {
    const path = join(dir, 'unrelated.parquet');
    await writeUnrelatedParquetFile(path);
    const { metadata, rows } = await read(path);
    expect(parquetSchema(metadata).children.map((c) => c.element.name)).toEqual(['id', 'market_id', 'time', 'price', 'price_up', 'price_down']);
    expect(rows.length).toBe(3);
  });

  it('writes a truncated copy that no longer parses', async () => {
    const path = join(dir, 'whole.parquet');
    const cut = join(dir, 'cut.parquet');
    await writePmxtFile(path, ROWS);
    await writeTruncatedCopy(path, cut);
    expect((await stat(cut)).size).toBe(Math.floor((await stat(path)).size / 2));
    await expect(read(cut)).rejects.toThrow();
  });
});
