// PMXT archive files as published: hourly Parquet, 16 columns (the v2 layout), ZSTD pages, rows
// sorted by market, asset_id, timestamp_received; plus the bad inputs an import must refuse (the
// older v1 layout, an unrelated Parquet file, a truncated copy). Fixtures for src/realdata tests.
import { readFile, writeFile } from 'node:fs/promises';
import { ByteWriter, ParquetWriter, fileWriter, parquetWrite } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';
import { parseDecimal, unitsAt } from './decimal-text.js';

/** The four event types PMXT records. */
export type PmxtEventType = 'book' | 'price_change' | 'last_trade_price' | 'tick_size_change';

/**
 * One row of a PMXT v2 file, its 16 columns in published order. Times are epoch ms; decimals are
 * decimal text ("0.48"), written exactly; `bids`/`asks` are the JSON text `[["0.48","120.5"],…]`.
 */
export interface PmxtRow {
  timestamp_received: number;
  timestamp: number;
  market: string;
  event_type: PmxtEventType | (string & {});
  asset_id: string;
  bids: string | null;
  asks: string | null;
  price: string | null;
  size: string | null;
  side: 'BUY' | 'SELL' | null;
  best_bid: string | null;
  best_ask: string | null;
  fee_rate_bps: number | null;
  transaction_hash: string | null;
  old_tick_size: string | null;
  new_tick_size: string | null;
}

/** The five columns every event has; the others default to null in pmxtRow. */
export type PmxtRowKey = Pick<PmxtRow, 'timestamp_received' | 'timestamp' | 'market' | 'event_type' | 'asset_id'>;

/** Use to build a row from the columns its event type sets: every other column is null. */
export function pmxtRow(fields: PmxtRowKey & Partial<PmxtRow>): PmxtRow {
  return {
    bids: null,
    asks: null,
    price: null,
    size: null,
    side: null,
    best_bid: null,
    best_ask: null,
    fee_rate_bps: null,
    transaction_hash: null,
    old_tick_size: null,
    new_tick_size: null,
    ...fields,
  };
}

/** The 16 column names of the v2 layout, in file order. */
export const PMXT_COLUMNS = [
  'timestamp_received',
  'timestamp',
  'market',
  'event_type',
  'asset_id',
  'bids',
  'asks',
  'price',
  'size',
  'side',
  'best_bid',
  'best_ask',
  'fee_rate_bps',
  'transaction_hash',
  'old_tick_size',
  'new_tick_size',
] as const satisfies readonly (keyof PmxtRow)[];

/** How a writer stores decimals: fixed-length two's complement bytes (Arrow's way, the default) or INT32/INT64. */
export type DecimalStorage = 'fixed' | 'int';

/** Options of writePmxtFile / pmxtFileBytes. */
export interface PmxtWriteOptions {
  /** Page compression; real files are ZSTD. */
  codec?: 'ZSTD' | 'SNAPPY';
  /** Rows per row group (default: all rows in one group). */
  rowGroupSize?: number;
  decimals?: DecimalStorage;
  /** Write rows in the given order instead of the published sort (to test an importer's tolerance). */
  keepOrder?: boolean;
}

/** `polymarket_orderbook_YYYY-MM-DDTHH.parquet`: the name of the archive file of the UTC hour holding `ms`. */
export function pmxtFileName(ms: number): string {
  return `polymarket_orderbook_${new Date(ms).toISOString().slice(0, 13)}.parquet`;
}

/** Use to order rows as PMXT files are: by market, asset_id, timestamp_received (stable otherwise). */
export function sortPmxtRows(rows: readonly PmxtRow[]): PmxtRow[] {
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...rows].sort(
    (a, b) => cmp(a.market, b.market) || cmp(a.asset_id, b.asset_id) || a.timestamp_received - b.timestamp_received,
  );
}

const optional = 'OPTIONAL' as const;
const TIMESTAMP_MS: Omit<SchemaElement, 'name'> = {
  type: 'INT64',
  repetition_type: optional,
  converted_type: 'TIMESTAMP_MILLIS',
  logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
};
const UTF8: Omit<SchemaElement, 'name'> = { type: 'BYTE_ARRAY', repetition_type: optional, converted_type: 'UTF8', logical_type: { type: 'STRING' } };

function decimalElement(precision: number, scale: number, storage: DecimalStorage): Omit<SchemaElement, 'name'> {
  const common = { repetition_type: optional, converted_type: 'DECIMAL' as const, logical_type: { type: 'DECIMAL' as const, precision, scale }, precision, scale };
  if (storage === 'int') return { ...common, type: precision <= 9 ? 'INT32' : 'INT64' };
  // Arrow's byte width: the fewest bytes whose signed range holds 10^precision - 1.
  const typeLength = Math.ceil((Math.log2(10 ** precision) + 1) / 8);
  return { ...common, type: 'FIXED_LEN_BYTE_ARRAY', type_length: typeLength };
}

/** The v2 layout's Parquet schema (root first), as published. */
function pmxtSchema(decimals: DecimalStorage = 'fixed'): SchemaElement[] {
  const price = decimalElement(9, 4, decimals);
  const byName: Record<(typeof PMXT_COLUMNS)[number], Omit<SchemaElement, 'name'>> = {
    timestamp_received: TIMESTAMP_MS,
    timestamp: TIMESTAMP_MS,
    market: { type: 'FIXED_LEN_BYTE_ARRAY', type_length: 66, repetition_type: optional },
    event_type: UTF8,
    asset_id: UTF8,
    bids: UTF8,
    asks: UTF8,
    price,
    size: decimalElement(18, 6, decimals),
    side: UTF8,
    best_bid: price,
    best_ask: price,
    fee_rate_bps: { type: 'INT32', repetition_type: optional, converted_type: 'UINT_16', logical_type: { type: 'INTEGER', bitWidth: 16, isSigned: false } },
    transaction_hash: UTF8,
    old_tick_size: price,
    new_tick_size: price,
  };
  return [{ name: 'schema', num_children: PMXT_COLUMNS.length }, ...PMXT_COLUMNS.map((name) => ({ name, ...byName[name] }))];
}

const encoder = new TextEncoder();

function marketBytes(text: string): Uint8Array {
  const bytes = encoder.encode(text);
  if (bytes.length !== 66) throw new Error(`market must be 66 bytes of text (0x + 64 hex), got ${bytes.length}: '${text}'`);
  return bytes;
}

function columnValues(rows: readonly PmxtRow[], name: (typeof PMXT_COLUMNS)[number], scale: number | undefined): unknown[] {
  return rows.map((r) => {
    const v = r[name];
    if (v === null) return null;
    if (name === 'market') return marketBytes(v as string);
    if (scale !== undefined) return unitsAt(parseDecimal(v as string), scale);
    return v;
  });
}

/** Use to get a compressor for the codec: SNAPPY is built into the writer, ZSTD comes from @bokuweb/zstd-wasm. */
async function compressorsFor(codec: 'ZSTD' | 'SNAPPY'): Promise<Record<string, (input: Uint8Array) => Uint8Array>> {
  if (codec === 'SNAPPY') return {};
  const zstd = await loadZstd();
  return { ZSTD: (input) => zstd.compress(input, 3) };
}

interface ZstdWasm {
  init(): Promise<void>;
  compress(input: Uint8Array, level?: number): Uint8Array;
}

let zstdReady: Promise<ZstdWasm> | undefined;

// The package is a devDependency of msnap; while a checkout lacks it, a copy installed with
// `npm install --no-save @bokuweb/zstd-wasm@0.0.27 --prefix /tmp/zstd-dep` serves instead.
function loadZstd(): Promise<ZstdWasm> {
  zstdReady ??= (async () => {
    let mod: { default?: ZstdWasm } & Partial<ZstdWasm>;
    try {
      mod = (await import('@bokuweb/zstd-wasm')) as typeof mod;
    } catch {
      const fallback = '/tmp/zstd-dep/node_modules/@bokuweb/zstd-wasm/dist/common/index.node.js';
      mod = (await import(fallback)) as typeof mod;
    }
    const zstd = (mod.default ?? mod) as ZstdWasm;
    await zstd.init();
    return zstd;
  })();
  return zstdReady;
}

const SCALES: Partial<Record<string, number>> = { price: 4, size: 6, best_bid: 4, best_ask: 4, old_tick_size: 4, new_tick_size: 4 };
/** What the archive's own files say wrote them. */
const CREATED_BY = 'parquet-cpp-arrow version 19.0.1';

function columnData(rows: readonly PmxtRow[]) {
  return PMXT_COLUMNS.map((name) => ({ name, data: columnValues(rows, name, SCALES[name]) as never }));
}

/** Use to get a v2 file's bytes (to serve or to cut); rows are sorted as published unless keepOrder. */
export async function pmxtFileBytes(rows: readonly PmxtRow[], options: PmxtWriteOptions = {}): Promise<Uint8Array> {
  const codec = options.codec ?? 'ZSTD';
  const ordered = options.keepOrder ? rows : sortPmxtRows(rows);
  const writer = new ByteWriter();
  parquetWrite({
    writer,
    schema: pmxtSchema(options.decimals),
    codec,
    compressors: await compressorsFor(codec),
    rowGroupSize: options.rowGroupSize ?? Math.max(1, ordered.length),
    createdBy: CREATED_BY,
    columnData: columnData(ordered),
  });
  return new Uint8Array(writer.getBuffer());
}

/**
 * Use for a file too big to hold as rows (the benchmark's real-size hour): each group of rows,
 * already in published order, becomes one row group written to `path` as it comes. Returns the rows written.
 */
export async function writePmxtFileInGroups(path: string, groups: Iterable<readonly PmxtRow[]>, options: Pick<PmxtWriteOptions, 'codec' | 'decimals'> = {}): Promise<number> {
  const codec = options.codec ?? 'ZSTD';
  const writer = new ParquetWriter({ writer: fileWriter(path), schema: pmxtSchema(options.decimals), codec, compressors: await compressorsFor(codec), createdBy: CREATED_BY });
  let rows = 0;
  for (const group of groups) {
    if (group.length === 0) continue;
    await writer.write({ columnData: columnData(group), rowGroupSize: group.length });
    rows += group.length;
  }
  writer.finish();
  return rows;
}

/** Use to write a v2 archive file (ZSTD unless told) at `path`. */
export async function writePmxtFile(path: string, rows: readonly PmxtRow[], options: PmxtWriteOptions = {}): Promise<void> {
  await writeFile(path, await pmxtFileBytes(rows, options));
}

/** One row of the older v1 layout: `data` is the event's JSON text. */
export interface PmxtV1Row {
  timestamp_received: number;
  timestamp_created_at: number;
  market_id: string;
  update_type: string;
  data: string;
}

/** A few v1 rows, for when the content does not matter. */
const SAMPLE_V1_ROWS: readonly PmxtV1Row[] = [
  {
    timestamp_received: 1767225600123,
    timestamp_created_at: 1767225600100,
    market_id: `0x${'ab'.repeat(32)}`,
    update_type: 'book_snapshot',
    data: '{"bids":[["0.48","120.5"]],"asks":[["0.52","80"]]}',
  },
  {
    timestamp_received: 1767225601123,
    timestamp_created_at: 1767225601100,
    market_id: `0x${'ab'.repeat(32)}`,
    update_type: 'price_change',
    data: '{"price":"0.49","size":"10","side":"BUY"}',
  },
];

/** Use for the "older layout" refusal: a v1 file (timestamp_received, timestamp_created_at, market_id, update_type, data). */
export async function writePmxtV1File(path: string, rows: readonly PmxtV1Row[] = SAMPLE_V1_ROWS): Promise<void> {
  const writer = new ByteWriter();
  parquetWrite({
    writer,
    codec: 'ZSTD',
    compressors: await compressorsFor('ZSTD'),
    schema: [
      { name: 'schema', num_children: 5 },
      { name: 'timestamp_received', ...TIMESTAMP_MS },
      { name: 'timestamp_created_at', ...TIMESTAMP_MS },
      { name: 'market_id', ...UTF8 },
      { name: 'update_type', ...UTF8 },
      { name: 'data', ...UTF8 },
    ],
    columnData: (['timestamp_received', 'timestamp_created_at', 'market_id', 'update_type', 'data'] as const).map((name) => ({
      name,
      data: rows.map((r) => r[name]) as never,
    })),
  });
  await writeFile(path, new Uint8Array(writer.getBuffer()));
}

/** Use for the "not a PMXT file" refusal: a valid Parquet file shaped like msnap's own snapshot export. */
export async function writeUnrelatedParquetFile(path: string): Promise<void> {
  const writer = new ByteWriter();
  const time = [1767225600000, 1767225600125, 1767225600250];
  parquetWrite({
    writer,
    columnData: [
      { name: 'id', data: time.map((t, i) => BigInt(100_000_000 + i * 125)), type: 'INT64' },
      { name: 'market_id', data: time.map(() => 'btc-updown-5m-1767225600'), type: 'STRING' },
      { name: 'time', data: time.map((t) => new Date(t)), type: 'TIMESTAMP' },
      { name: 'price', data: [97123.45, 97123.5, 97124], type: 'DOUBLE' },
      { name: 'price_up', data: [0.53, 0.535, 0.54], type: 'DOUBLE' },
      { name: 'price_down', data: [0.47, 0.465, 0.46], type: 'DOUBLE' },
    ],
  });
  await writeFile(path, new Uint8Array(writer.getBuffer()));
}

/** Use for the "damaged download" refusal: the first `keepBytes` bytes of `source` (default: half, which loses the footer). */
export async function writeTruncatedCopy(source: string, dest: string, keepBytes?: number): Promise<void> {
  const bytes = await readFile(source);
  await writeFile(dest, bytes.subarray(0, keepBytes ?? Math.floor(bytes.length / 2)));
}
