// The one place a local store file becomes a MarketSource, for the CLI's --db runs and the sweep
// workers alike: whole markets as columns straight from the store's dense blocks and packed
// books (sqliteSeriesSource), cut to the asked range. No record objects, no JSON.
import { existsSync } from 'node:fs';
import type { Market } from '../domain/market.js';
import type { MarketSeries, MarketSource } from '../domain/market-series.js';
import { UsageError } from '../errors.js';
import { openDatabase } from '../store/sqlite/open.js';
import { sqliteSeriesSource } from '../store/sqlite/series-source.js';
import { sliceSeries } from './series-range.js';
import type { SnapshotRange } from './snapshot-series.js';

/** A source and what releases the store behind it. */
export interface OpenedSource {
  source: MarketSource;
  close(): Promise<void>;
}

async function* sliced(source: MarketSource, range: SnapshotRange): AsyncGenerator<MarketSeries> {
  for await (const s of source) yield sliceSeries(s, range);
}

/** Use for a local store file: `markets` (oldest first) within `range`, orderbooks included. */
export async function openLocalSource(file: string, markets: readonly Market[], range: SnapshotRange, now: () => number): Promise<OpenedSource> {
  if (!existsSync(file)) throw new UsageError(`no such database: ${file} (make one with msnap pull or msnap serve seed)`);
  let db;
  try {
    // Each market is read once, front to back: a small page cache does (the default 64 MiB only adds RSS).
    db = openDatabase(file, { readonly: true, cacheMiB: 8 }).db;
  } catch (err) {
    throw new UsageError(`${file} is not an msnap database: ${(err as Error).message}`);
  }
  const whole = sqliteSeriesSource(db, markets.map((m) => m.market_id), { orderbooks: true, now: now() });
  const source = range.from === undefined && range.to === undefined ? whole : sliced(whole, range);
  const handle = db;
  return { source, close: async () => void handle.close() };
}
