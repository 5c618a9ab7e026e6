// The columns of every record kind the CLI prints, in the contract's field order. CSV headers
// and JSON keys use the contract's names; tables may show times as ISO and hide wide columns.
import type { Bar } from '../../../analysis/bars.js';
import type { AtResult, Limits } from '../../../client/types.js';
import type { Market, Snapshot } from '../../../domain/market.js';
import { levelAt, orderbookColumns } from './orderbook-columns.js';
import { isoCell, type Column, type RecordSchema } from './schema.js';
import { snapshotRowLayout } from './snapshot-text.js';

/** Markets, as `msnap markets` prints them. */
export const MARKET_SCHEMA: RecordSchema<Market> = {
  // dropOrder: what a narrow terminal gives up first (the id already names coin, type and start).
  columns: [
    { name: 'market_id', value: (m) => m.market_id, parquet: 'string' },
    { name: 'slug', value: (m) => m.slug, table: false, parquet: 'string' },
    { name: 'coin', value: (m) => m.coin, dropOrder: 2, parquet: 'dictionary' },
    { name: 'market_type', value: (m) => m.market_type, label: 'type', dropOrder: 3, parquet: 'dictionary' },
    { name: 'status', value: (m) => m.status, dropOrder: 7, parquet: 'dictionary' },
    { name: 'start_time', value: (m) => m.start_time, table: (m) => isoCell(m.start_time), parquet: 'timestamp' },
    { name: 'end_time', value: (m) => m.end_time, table: (m) => isoCell(m.end_time), dropOrder: 1, parquet: 'timestamp' },
    { name: 'price_start', value: (m) => m.price_start, dropOrder: 4, parquet: 'double', nullable: true },
    { name: 'price_end', value: (m) => m.price_end, dropOrder: 5, parquet: 'double', nullable: true },
    { name: 'winner', value: (m) => m.winner, dropOrder: 8, parquet: 'dictionary', nullable: true },
    { name: 'snapshot_count', value: (m) => m.snapshot_count, label: 'snapshots', dropOrder: 6, parquet: 'int64' },
  ],
};

/** How orderbooks appear: not at all, as the contract's objects (JSON text in CSV), or as flat columns. */
export type OrderbookLayout = 'none' | 'nested' | 'flat';

/**
 * Snapshots; the orderbook columns only when asked for. Parquet has no nested form here: with an
 * orderbook it always gets the flat columns.
 */
export function snapshotSchema(includeOrderbook: boolean | OrderbookLayout): RecordSchema<Snapshot> {
  const layout: OrderbookLayout = includeOrderbook === true ? 'nested' : includeOrderbook === false ? 'none' : includeOrderbook;
  const columns: RecordSchema<Snapshot>['columns'] = [
    { name: 'id', value: (s) => s.id, dropOrder: 2, parquet: 'int64' },
    { name: 'market_id', value: (s) => s.market_id, dropOrder: 1, parquet: 'dictionary' },
    { name: 'time', value: (s) => s.time, table: (s) => isoCell(s.time), parquet: 'timestamp' },
    { name: 'price', value: (s) => s.price, parquet: 'double' },
    { name: 'price_up', value: (s) => s.price_up, parquet: 'double' },
    { name: 'price_down', value: (s) => s.price_down, parquet: 'double' },
  ];
  if (layout === 'none') return { columns, textLayout: (format) => snapshotRowLayout(format, false) };
  const flat = { columns: [...columns, ...orderbookColumns()] };
  if (layout === 'flat') return flat;
  columns.push(
    // A table shows the top of each book; CSV and JSON carry every level.
    { name: 'orderbook_up', value: (s) => s.orderbook_up, label: 'up bid | ask', table: (s) => topOfBook(s.orderbook_up) },
    { name: 'orderbook_down', value: (s) => s.orderbook_down, label: 'down bid | ask', table: (s) => topOfBook(s.orderbook_down) },
  );
  return { columns, parquetSchema: flat, textLayout: (format) => snapshotRowLayout(format, true) };
}

// The best bid and ask of one side, as `price×size | price×size`.
function topOfBook(side: unknown): string {
  if (!side) return '';
  const best = (book: 'bids' | 'asks'): string => {
    const l = levelAt(side, book, 0);
    return l ? `${l.price}×${l.size}` : '-';
  };
  return `${best('bids')} | ${best('asks')}`;
}

/** `msnap snapshots --resample`: one bar per market and bucket. */
export const BAR_SCHEMA: RecordSchema<Bar> = {
  columns: [
    { name: 'market_id', value: (b) => b.market_id, parquet: 'dictionary' },
    { name: 'time', value: (b) => b.time, table: (b) => isoCell(b.time), parquet: 'timestamp' },
    ...(['open', 'high', 'low', 'close', 'up_open', 'up_high', 'up_low', 'up_close', 'down_close'] as const).map((name) => ({
      name,
      value: (b: Bar) => b[name],
      parquet: 'double' as const,
    })),
    { name: 'count', value: (b) => b.count, parquet: 'int64' },
  ],
};

/** `msnap at`: one flat row for CSV and tables; JSON keeps the service's nested shape. */
export const AT_SCHEMA: RecordSchema<AtResult> = {
  columns: [
    { name: 'market_id', value: (a) => a.market_id, parquet: 'dictionary' },
    { name: 'ts', value: (a) => a.ts, table: (a) => isoCell(a.ts), label: 'asked', parquet: 'timestamp' },
    { name: 'delta_ms', value: (a) => a.delta_ms, parquet: 'int64' },
    { name: 'id', value: (a) => a.snapshot.id, label: 'snapshot id', parquet: 'int64' },
    { name: 'time', value: (a) => a.snapshot.time, table: (a) => isoCell(a.snapshot.time), parquet: 'timestamp' },
    { name: 'price', value: (a) => a.snapshot.price, parquet: 'double' },
    { name: 'price_up', value: (a) => a.snapshot.price_up, parquet: 'double' },
    { name: 'price_down', value: (a) => a.snapshot.price_down, parquet: 'double' },
  ],
  json: (a) => a,
};

/** `msnap at --orderbook`: AT_SCHEMA plus the snapshot's books, laid out as `snapshots --orderbook` lays them. */
export function atSchemaWithOrderbook(): RecordSchema<AtResult> {
  const books = (layout: 'nested' | 'flat'): Column<AtResult>[] =>
    (layout === 'nested' ? snapshotSchema(true) : snapshotSchema('flat')).columns
      .filter((c) => c.name.startsWith('orderbook'))
      .map(({ table, value, ...rest }): Column<AtResult> => ({
        ...rest,
        value: (a) => value(a.snapshot),
        ...(table ? { table: (a: AtResult) => table(a.snapshot) } : table === false ? { table: false } : {}),
      }));
  return {
    columns: [...AT_SCHEMA.columns, ...books('nested')],
    json: (a) => a,
    parquetSchema: { columns: [...AT_SCHEMA.columns, ...books('flat')] },
  };
}

/** One line of `msnap at --times`: its answer, or the error that line got. */
export interface BatchAtRow {
  line: number;
  market_id: string | null;
  ts: number | null;
  delta_ms: number | null;
  snapshot: Snapshot | null;
  error: string | null;
}

/** `msnap at --times`: flat columns, null cells on error rows; JSON keeps the nested snapshot. */
export const BATCH_AT_SCHEMA: RecordSchema<BatchAtRow> = {
  columns: [
    { name: 'line', value: (a) => a.line, parquet: 'int64' },
    { name: 'market_id', value: (a) => a.market_id, parquet: 'dictionary', nullable: true },
    { name: 'ts', value: (a) => a.ts, table: (a) => isoCell(a.ts), label: 'asked', parquet: 'timestamp', nullable: true },
    { name: 'delta_ms', value: (a) => a.delta_ms, parquet: 'int64', nullable: true },
    { name: 'id', value: (a) => a.snapshot?.id ?? null, label: 'snapshot id', parquet: 'int64', nullable: true },
    { name: 'time', value: (a) => a.snapshot?.time ?? null, table: (a) => isoCell(a.snapshot?.time), parquet: 'timestamp', nullable: true },
    { name: 'price', value: (a) => a.snapshot?.price ?? null, parquet: 'double', nullable: true },
    { name: 'price_up', value: (a) => a.snapshot?.price_up ?? null, parquet: 'double', nullable: true },
    { name: 'price_down', value: (a) => a.snapshot?.price_down ?? null, parquet: 'double', nullable: true },
    { name: 'error', value: (a) => a.error, parquet: 'string', nullable: true },
  ],
  json: (a) => a,
};

function windowText(w: Record<string, number> | null): string {
  if (!w) return 'all markets';
  return Object.entries(w)
    .map(([type, n]) => `${n.toLocaleString('en-US')} ${type}`)
    .join(', ');
}

/** `msnap limits`: flat columns for CSV, readable rows for a table, the body itself for JSON. */
export const LIMITS_SCHEMA: RecordSchema<Limits> = {
  columns: [
    { name: 'plan', value: (l) => l.plan },
    { name: 'trial_active', value: (l) => l.trial?.active ?? false, label: 'trial', table: (l) => trialText(l) },
    { name: 'trial_ends_at', value: (l) => l.trial?.ends_at ?? null, table: false },
    { name: 'requests_per_minute', value: (l) => l.rate_limit.requests_per_minute, label: 'requests/min' },
    { name: 'burst_per_second', value: (l) => l.rate_limit.burst_per_second, label: 'burst/s' },
    ...(['5m', '15m', '1hr', '4hr', '24hr'] as const).map((type) => ({
      name: `window_${type}`,
      value: (l: Limits) => l.data_window?.[type] ?? null,
      table: false as const,
    })),
    { name: 'data_window', value: () => undefined, label: 'data window', table: (l) => windowText(l.data_window), tableOnly: true },
    { name: 'keys_active', value: (l) => l.api_keys?.active ?? null, label: 'api keys', table: (l) => keysText(l) },
    { name: 'keys_max', value: (l) => l.api_keys?.max ?? null, table: false },
    { name: 'usage_remaining', value: (l) => l.usage?.remaining ?? null, label: 'requests left now' },
    {
      name: 'usage_reset',
      value: (l) => l.usage?.reset ?? null,
      label: 'window resets',
      table: (l) => (l.usage ? isoCell(l.usage.reset * 1000) : ''),
    },
  ],
  json: (l) => l,
};

function trialText(l: Limits): string {
  if (!l.trial) return 'no (paid)';
  const ends = l.trial.ends_at === null ? '' : ` until ${isoCell(l.trial.ends_at)}`;
  return l.trial.active ? `active${ends}` : `ended${ends}`;
}

function keysText(l: Limits): string {
  if (!l.api_keys) return '';
  return `${l.api_keys.active ?? '?'} active of ${l.api_keys.max ?? 'unlimited'}`;
}

/** What `msnap health` prints. */
export interface HealthView {
  status: string;
  version: string;
  time: number;
  rtt_ms: number;
}

/** `msnap health`. */
export const HEALTH_SCHEMA: RecordSchema<HealthView> = {
  columns: [
    { name: 'status', value: (h) => h.status },
    { name: 'version', value: (h) => h.version },
    { name: 'time', value: (h) => h.time, label: 'server time', table: (h) => isoCell(h.time) },
    { name: 'rtt_ms', value: (h) => h.rtt_ms, label: 'round trip (ms)' },
  ],
};

/** A stored key as `keys list` shows it: never the key itself, only its mask. */
export interface KeyRow {
  name: string;
  key: string;
  base_url: string;
  added_at: number;
  active: boolean;
  rotate: boolean;
}

/** `msnap keys list`. */
export const KEY_SCHEMA: RecordSchema<KeyRow> = {
  columns: [
    { name: 'active', value: (k) => k.active, label: ' ', table: (k) => (k.active ? '*' : '') },
    { name: 'name', value: (k) => k.name },
    { name: 'key', value: (k) => k.key },
    { name: 'base_url', value: (k) => k.base_url, label: 'base url' },
    { name: 'added_at', value: (k) => k.added_at, label: 'added', table: (k) => isoCell(k.added_at).slice(0, 10) },
    { name: 'rotate', value: (k) => k.rotate, table: (k) => (k.rotate ? 'rotate (90+ days old)' : '') },
  ],
};
