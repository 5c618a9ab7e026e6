// GET markets/{id}/snapshot-at/{time}: the hosted service's path form of at-timestamp, answering
// the market with a one-element snapshot list.
import type { Coin, ServedMarket, Snapshot } from '../../domain/market.js';
import type { CoreRoute } from '../route.js';
import { nearestWithin } from './at-timestamp.js';
import { readableMarket } from './market-lookup.js';

/** The market and its snapshot nearest the asked time. */
export interface SnapshotAtResult {
  market: ServedMarket;
  snapshot: Snapshot;
}

/** `{time}` is ms or ISO (v4: ms only); `include_orderbook` adds depth where stored. */
export const snapshotAtCore: CoreRoute<
  { id: string; time: number | undefined; coin: Coin | undefined; includeOrderbook: boolean },
  SnapshotAtResult
> = {
  query: (q, params) => ({
    id: params.id!,
    time: q.pathTime('time', params.time!),
    coin: q.scopeCoin(),
    includeOrderbook: q.flag('include_orderbook') ?? false,
  }),
  handle: async (ctx, q) => {
    const market = await readableMarket(ctx, q.id, q.coin);
    return { market, snapshot: await nearestWithin(ctx, market, q.time!, q.includeOrderbook) };
  },
};
