// GET /api/v1/markets: filtered, paged market list; a builder sees only its window.
import { HttpException } from '../http-error.js';
import { windowOf, outsideWindow } from '../data-window.js';
import { clampToMax, warningField } from '../list-limit.js';
import { defineRoute } from '../route.js';

/** Default and maximum `limit` of the markets list. */
export const MARKETS_LIMIT = { default: 100, max: 1000 } as const;

/** The markets list route. */
export const marketsRoute = defineRoute({
  pattern: 'markets',
  query: (q) => ({
    coin: q.coin('coin'),
    marketType: q.marketType('market_type'),
    status: q.status('status'),
    limit: q.limit('limit'),
    offset: q.integer('offset'),
    startFrom: q.time('start_time'),
    startBefore: q.time('end_time'),
  }),
  handle: ({ store, now, caller }, q) => {
    const plan = caller.account.plan;
    const window = windowOf(plan);
    const offset = q.offset ?? 0;
    let { limit, warnings } = clampToMax(q.limit, MARKETS_LIMIT.default, MARKETS_LIMIT.max);
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
    if (!Number.isSafeInteger(offset + limit)) throw new HttpException(400, 'Parameter offset is too large.');
    const { markets, total } = store.listMarkets({
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
    return JSON.stringify({ markets, total, limit, offset, ...warningField(warnings) });
  },
});
