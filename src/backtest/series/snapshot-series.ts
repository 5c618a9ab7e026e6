// The general data path: contract snapshot records (from the API client or a local store's
// records) as a MarketSeries, and a MarketSource that reads markets through any MsnapApi one at
// a time, orderbooks included. The fast path over the store's dense blocks yields the same numbers.
import type { MsnapApi } from '../../client/types.js';
import type { Market, Snapshot } from '../../domain/market.js';
import type { MarketSeries, MarketSource } from '../../domain/market-series.js';
import { SeriesBuilder, unpack, type PackedSeries } from './series-builder.js';

/** Use to hand contract records (time order, orderbooks optional) to the engine. */
export function seriesFromSnapshots(market: Market, snapshots: readonly Snapshot[]): MarketSeries {
  const b = new SeriesBuilder(market, snapshots.length);
  b.add(snapshots);
  return b.finish();
}

/** The part of a market's snapshots to read: [from, to) in epoch ms, as `msnap snapshots` takes it. */
export interface SnapshotRange {
  from?: number;
  to?: number;
}

async function readMarket(client: MsnapApi, market: Market, range: SnapshotRange): Promise<SeriesBuilder> {
  const b = new SeriesBuilder(market, range.from === undefined && range.to === undefined ? market.snapshot_count : 0);
  for await (const page of client.snapshotPages(market.market_id, {
    ...(range.from !== undefined ? { from: range.from } : {}),
    ...(range.to !== undefined ? { to: range.to } : {}),
    includeOrderbook: true,
  })) {
    b.add(page.rows());
  }
  return b;
}

/** A client core, or what wraps one (the library's `createClient()` and `openStore()` readers hold theirs as `core`). */
export type ClientOrCore = MsnapApi | { readonly core: MsnapApi };

const coreOf = (client: ClientOrCore): MsnapApi => ('core' in client ? client.core : client);

/**
 * Use for any MsnapApi (the paced HTTP client, or a local store opened with --db), or the
 * library's reader around one: the given markets (oldest first) one at a time, each read whole
 * with its orderbooks, then let go.
 */
export async function* apiMarketSource(client: ClientOrCore, markets: readonly Market[], range: SnapshotRange = {}): MarketSource {
  const core = coreOf(client);
  for (const market of markets) yield (await readMarket(core, market, range)).finish();
}

/** Use where the same markets serve many runs (a sweep over the service): all of them read once, as cloneable columns. */
export async function readPackedMarkets(client: MsnapApi, markets: readonly Market[], range: SnapshotRange = {}): Promise<PackedSeries[]> {
  const out: PackedSeries[] = [];
  for (const market of markets) out.push((await readMarket(client, market, range)).pack());
  return out;
}

/** Use to run again over markets read once (readPackedMarkets): each unpacked as it is reached. */
export async function* packedSource(packed: readonly PackedSeries[]): MarketSource {
  for (const p of packed) yield unpack(p);
}
