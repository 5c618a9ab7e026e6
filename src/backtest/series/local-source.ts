// The one place a local store file becomes a MarketSource, for the CLI's --db runs and the sweep
// workers alike: whole markets as columns straight from the store's dense blocks and packed
// books (the store port's openSeriesFile, which loads the backend on first use), cut to the asked
// range. No record objects, no JSON.
import { existsSync } from 'node:fs';
import type { Market } from '../../domain/market.js';
import type { MarketSeries, MarketSource } from '../../domain/market-series.js';
import { UsageError } from '../../errors.js';
import { openSeriesFile } from '../../store/open-store.js';
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
  const whole = await openSeriesFile(file, markets.map((m) => m.market_id), { orderbooks: true, now: now() });
  const source = range.from === undefined && range.to === undefined ? whole.source : sliced(whole.source, range);
  return { source, close: async () => whole.close() };
}
