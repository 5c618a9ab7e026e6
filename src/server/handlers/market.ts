// GET /api/v1/markets/{id}: one market.
import { defineRoute, noQuery } from '../route.js';
import { readableMarket } from './market-lookup.js';

/** `{ market }`, 404 unknown, 403 outside the window. */
export const marketRoute = defineRoute({
  pattern: 'markets/:id',
  query: noQuery,
  handle: (ctx) => JSON.stringify({ market: readableMarket(ctx, ctx.params.id!) }),
});
