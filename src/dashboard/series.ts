// The chart data of one market, as columns: every snapshot of a short market, or one snapshot
// per time step of a long one (a 24hr market holds 691,200; a chart shows at most ~1,200).
import type { Market, Snapshot } from '../domain/market.js';
import type { Store } from '../store/store.js';

/** The most points a chart gets; longer markets are sampled at even time steps. */
const MAX_CHART_POINTS = 1200;

/** Columns of the chart: epoch ms, asset price, probability of up, probability of down. */
export interface Series {
  t: number[];
  price: number[];
  up: number[];
  down: number[];
}

/** Use for /markets/ID/series: the market's snapshots, all of them or sampled, oldest first. */
export async function marketSeries(store: Store, market: Market, maxPoints = MAX_CHART_POINTS): Promise<Series> {
  const out: Series = { t: [], price: [], up: [], down: [] };
  const push = (s: Pick<Snapshot, 'time' | 'price' | 'price_up' | 'price_down'>) => {
    if (out.t.length && out.t[out.t.length - 1]! >= s.time) return;
    out.t.push(s.time);
    out.price.push(s.price);
    out.up.push(s.price_up);
    out.down.push(s.price_down);
  };
  if (market.snapshot_count <= maxPoints) {
    const page = await store.snapshotPageJson(market.market_id, { limit: maxPoints, offset: 0, includeOrderbook: false });
    for (const s of JSON.parse(page.json) as Snapshot[]) push(s);
    return out;
  }
  const step = (market.end_time - market.start_time) / maxPoints;
  // All lookups at once: a network store pipelines them instead of paying one round trip each.
  const points = await Promise.all(
    Array.from({ length: maxPoints }, (_, i) => store.nearestSnapshot(market.market_id, Math.round(market.start_time + i * step))),
  );
  for (const s of points) if (s) push(s);
  return out;
}
