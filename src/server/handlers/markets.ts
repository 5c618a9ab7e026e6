// GET markets: filtered, paged market list; a builder sees only its window.
import type { ServedMarket } from '../../domain/market.js';
import { outsideWindow, windowOf } from '../data-window.js';
import { clampToMax, type ListLimits, type ListPage } from '../list-limit.js';
import { badParameter, type QueryReader } from '../query.js';
import type { CoreRoute } from '../route.js';

/** A page of markets, newest first. */
export interface MarketsResult extends ListPage {
  markets: ServedMarket[];
}

function readQuery(q: QueryReader) {
  return {
    coin: q.coin('coin'),
    marketType: q.marketType('market_type'),
    status: q.status(),
    limit: q.limit('limit'),
    offset: q.integer('offset'),
    startFrom: q.time('start_time'),
    startBefore: q.endTime('end_time'),
    includeTotal: q.includeTotal(),
  };
}

/** The markets list with a dialect's default and maximum limit. */
export function marketsCore(limits: ListLimits): CoreRoute<ReturnType<typeof readQuery>, MarketsResult> {
  return {
    query: readQuery,
    handle: async ({ store, now, caller }, q) => {
      const plan = caller.account.plan;
      const window = windowOf(plan);
      const offset = q.offset ?? 0;
      let { limit, warnings } = clampToMax(q.limit, limits);
      if (window && q.coin && q.marketType) {
        const cap = window[q.marketType];
        if (offset >= cap) throw outsideWindow(plan, q.marketType, cap);
        if (offset + limit > cap) {
          limit = cap - offset;
          warnings = [
            ...warnings,
            `Your ${plan} plan only includes the most recent ${cap.toLocaleString('en-US')} ${q.marketType} markets; limit clamped to ${limit}.`,
          ];
        }
      }
      if (!Number.isSafeInteger(offset + limit)) throw badParameter('offset', 'Parameter offset is too large.');
      const { markets, total } = await store.listMarkets({
        coin: q.coin,
        marketType: q.marketType,
        status: q.status,
        startFrom: q.startFrom,
        startBefore: q.startBefore,
        limit,
        offset,
        window,
        now,
      });
      return { markets, total, limit, offset, count: markets.length, warnings, includeTotal: q.includeTotal };
    },
  };
}
