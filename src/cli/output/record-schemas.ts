// The columns of every record kind the CLI prints, in the contract's field order. CSV headers
// and JSON keys use the contract's names; tables may show times as ISO and hide wide columns.
import type { AtResult, Limits } from '../../client/types.js';
import type { Market, Snapshot } from '../../domain/market.js';
import { isoCell, type RecordSchema } from './schema.js';

/** Markets, as `msnap markets` prints them. */
export const MARKET_SCHEMA: RecordSchema<Market> = {
  // dropOrder: what a narrow terminal gives up first (the id already names coin, type and start).
  columns: [
    { name: 'market_id', value: (m) => m.market_id },
    { name: 'slug', value: (m) => m.slug, table: false },
    { name: 'coin', value: (m) => m.coin, dropOrder: 2 },
    { name: 'market_type', value: (m) => m.market_type, label: 'type', dropOrder: 3 },
    { name: 'status', value: (m) => m.status, dropOrder: 7 },
    { name: 'start_time', value: (m) => m.start_time, table: (m) => isoCell(m.start_time) },
    { name: 'end_time', value: (m) => m.end_time, table: (m) => isoCell(m.end_time), dropOrder: 1 },
    { name: 'price_start', value: (m) => m.price_start, dropOrder: 4 },
    { name: 'price_end', value: (m) => m.price_end, dropOrder: 5 },
    { name: 'winner', value: (m) => m.winner, dropOrder: 8 },
    { name: 'snapshot_count', value: (m) => m.snapshot_count, label: 'snapshots', dropOrder: 6 },
  ],
};

/** Snapshots; the orderbook columns only when asked for (CSV holds them as JSON text). */
export function snapshotSchema(includeOrderbook: boolean): RecordSchema<Snapshot> {
  const columns: RecordSchema<Snapshot>['columns'] = [
    { name: 'id', value: (s) => s.id, dropOrder: 2 },
    { name: 'market_id', value: (s) => s.market_id, dropOrder: 1 },
    { name: 'time', value: (s) => s.time, table: (s) => isoCell(s.time) },
    { name: 'price', value: (s) => s.price },
    { name: 'price_up', value: (s) => s.price_up },
    { name: 'price_down', value: (s) => s.price_down },
  ];
  if (includeOrderbook) {
    columns.push(
      // A table shows the top of each book; CSV and JSON carry every level.
      { name: 'orderbook_up', value: (s) => s.orderbook_up, label: 'up bid | ask', table: (s) => topOfBook(s.orderbook_up) },
      { name: 'orderbook_down', value: (s) => s.orderbook_down, label: 'down bid | ask', table: (s) => topOfBook(s.orderbook_down) },
    );
  }
  return { columns };
}

/** A level as `[price, size]` (old exports) or `{price, size}`: its two numbers. */
function level(l: unknown): [unknown, unknown] | undefined {
  if (Array.isArray(l)) return [l[0], l[1]];
  if (l && typeof l === 'object') return [(l as { price?: unknown }).price, (l as { size?: unknown }).size];
  return undefined;
}

/** `0.52×120 | 0.54×80`: the best bid and the best ask with their sizes. */
function topOfBook(side: { bids?: readonly unknown[]; asks?: readonly unknown[] } | undefined): string {
  if (!side) return '';
  const best = (levels: readonly unknown[] | undefined): string => {
    const l = level(levels?.[0]);
    return l ? `${String(l[0])}×${String(l[1])}` : '-';
  };
  return `${best(side.bids)} | ${best(side.asks)}`;
}

/** `msnap at`: one flat row for CSV and tables; JSON keeps the service's nested shape. */
export const AT_SCHEMA: RecordSchema<AtResult> = {
  columns: [
    { name: 'market_id', value: (a) => a.market_id },
    { name: 'ts', value: (a) => a.ts, table: (a) => isoCell(a.ts), label: 'asked' },
    { name: 'delta_ms', value: (a) => a.delta_ms },
    { name: 'id', value: (a) => a.snapshot.id, label: 'snapshot id' },
    { name: 'time', value: (a) => a.snapshot.time, table: (a) => isoCell(a.snapshot.time) },
    { name: 'price', value: (a) => a.snapshot.price },
    { name: 'price_up', value: (a) => a.snapshot.price_up },
    { name: 'price_down', value: (a) => a.snapshot.price_down },
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
