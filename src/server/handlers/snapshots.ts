// GET /api/v1/markets/{id}/snapshots: a page of one market's snapshots, oldest first. The body is
// concatenated around the store's pre-serialised JSON array: no per-row objects on the hot path.
import { clampToMax, warningField } from '../list-limit.js';
import { HttpException } from '../http-error.js';
import { defineRoute } from '../route.js';
import { readableMarket } from './market-lookup.js';

/** Default and maximum `limit` of the snapshots list. */
export const SNAPSHOTS_LIMIT = { default: 1000, max: 10_000 } as const;

/** The snapshots list route. */
export const snapshotsRoute = defineRoute({
  pattern: 'markets/:id/snapshots',
  query: (q) => ({
    limit: q.limit('limit'),
    offset: q.integer('offset'),
    from: q.time('start_time'),
    before: q.time('end_time'),
    includeOrderbook: q.flag('include_orderbook') ?? false,
  }),
  handle: (ctx, q) => {
    const market = readableMarket(ctx, ctx.params.id!);
    const offset = q.offset ?? 0;
    const { limit, warnings } = clampToMax(q.limit, SNAPSHOTS_LIMIT.default, SNAPSHOTS_LIMIT.max);
    if (!Number.isSafeInteger(offset + limit)) throw new HttpException(400, 'Parameter offset is too large.');
    const page = ctx.store.snapshotPageJson(market.market_id, {
      limit,
      offset,
      from: q.from,
      before: q.before,
      includeOrderbook: q.includeOrderbook,
    });
    const warning = warningField(warnings).warning;
    return (
      '{"market":' +
      JSON.stringify(market) +
      ',"snapshots":' +
      page.json +
      ',"total":' +
      page.total +
      ',"limit":' +
      limit +
      ',"offset":' +
      offset +
      (warning === undefined ? '' : ',"warning":' + JSON.stringify(warning)) +
      '}'
    );
  },
});
