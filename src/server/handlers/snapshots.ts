// GET markets/{id}/snapshots: a page of one market's snapshots, oldest first, already serialised
// by the store in the format the dialect asked for: no per-row objects on the hot path.
import type { Coin, ServedMarket } from '../../domain/market.js';
import type { SnapshotFormat } from '../../store/store.js';
import { clampToMax, type ListLimits, type ListPage } from '../list-limit.js';
import { badParameter, type QueryReader } from '../query.js';
import type { CoreRoute } from '../route.js';
import { readableMarket, readableMarketPage } from './market-lookup.js';

/** A page of snapshots: `json` is the array, printed in the format the route was given. */
export interface SnapshotsResult extends ListPage {
  market: ServedMarket;
  json: string;
}

function readQuery(q: QueryReader, params: Readonly<Record<string, string>>) {
  return {
    id: params.id!,
    coin: q.scopeCoin(),
    limit: q.limit('limit'),
    offset: q.integer('offset'),
    from: q.time('start_time'),
    before: q.endTime('end_time'),
    includeOrderbook: q.flag('include_orderbook') ?? false,
    includeTotal: q.includeTotal(),
  };
}

/** The snapshots list with a dialect's limits and snapshot format (per coin: v2 and v4 print `btc_price`). */
export function snapshotsCore(limits: ListLimits, format: (coin: Coin) => SnapshotFormat): CoreRoute<ReturnType<typeof readQuery>, SnapshotsResult> {
  return {
    query: readQuery,
    handle: async (ctx, q) => {
      const offset = q.offset ?? 0;
      const { limit, warnings } = clampToMax(q.limit, limits);
      if (!Number.isSafeInteger(offset + limit)) {
        // An unknown or unreadable market is said first.
        await readableMarket(ctx, q.id, q.coin);
        throw badParameter('offset', 'Parameter offset is too large.');
      }
      const query = { limit, offset, from: q.from, before: q.before, includeOrderbook: q.includeOrderbook };
      const { market, page } = await readableMarketPage(ctx, q.id, q.coin, query, format);
      return { market, json: page.json, total: page.total, limit, offset, count: page.count, warnings, includeTotal: q.includeTotal };
    },
  };
}
