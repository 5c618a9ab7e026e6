// The one place a local store file becomes a MarketSource, for the CLI's --db runs and the sweep
// workers alike. Today it reads through the store's record API (LocalApi); a reader over the
// store's dense blocks plugs in here (whole markets, cut to the range with sliceSeries).
import { openLocalApi } from '../client/local-api.js';
import type { Market } from '../domain/market.js';
import type { MarketSource } from '../domain/market-series.js';
import { apiMarketSource, type SnapshotRange } from './snapshot-series.js';

/** A source and what releases the store behind it. */
export interface OpenedSource {
  source: MarketSource;
  close(): Promise<void>;
}

/** Use for a local store file: `markets` (oldest first) within `range`, orderbooks included. */
export async function openLocalSource(db: string, markets: readonly Market[], range: SnapshotRange, now: () => number): Promise<OpenedSource> {
  const client = await openLocalApi(db, now);
  return { source: apiMarketSource(client, markets, range), close: () => client.close() };
}
