// The PMXT v2 hourly archive file as published (REALDATA.md): the columns msnap reads, its file name, and
// the one-line refusals for every other Parquet file a user may hand the import.
import { basename } from 'node:path';
import { UsageError } from '../../errors.js';

/** The columns the reconstruction reads, in the published order; the v2 layout's other six are never decoded. */
export const PMXT_READ_COLUMNS = ['timestamp_received', 'timestamp', 'market', 'event_type', 'asset_id', 'bids', 'asks', 'price', 'size', 'side'] as const;

const V1_COLUMNS = ['timestamp_created_at', 'market_id', 'update_type', 'data'];

/** Use on a file's top-level column names: throws a one-line UsageError unless they are PMXT v2's. */
export function checkPmxtColumns(file: string, columns: readonly string[]): void {
  const have = new Set(columns);
  if (V1_COLUMNS.every((c) => have.has(c))) {
    throw new UsageError(`${file}: a PMXT v1 archive file (market_id, update_type, data); msnap reads the v2 layout, published from 2026-04-13`);
  }
  const missing = PMXT_READ_COLUMNS.filter((c) => !have.has(c));
  if (missing.length > 0) {
    throw new UsageError(`${file}: not a PMXT v2 orderbook file (no ${missing.join(', ')} column${missing.length > 1 ? 's' : ''})`);
  }
}

const HOUR_NAME = /(\d{4})-(\d{2})-(\d{2})T(\d{2})(?:[^\d]|$)/;

/** Use to read the hour a file covers from its published name (`polymarket_orderbook_2026-04-13T05.parquet`), in epoch ms. */
export function hourFromFileName(file: string): number | undefined {
  const m = HOUR_NAME.exec(basename(file));
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]));
  return Number.isNaN(ms) ? undefined : ms;
}

/** One hour in ms. */
export const HOUR_MS = 3_600_000;
