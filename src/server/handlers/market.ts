// GET markets/{id} and markets/by-slug/{slug} (a slug equals its market id): one market.
import type { Coin, ServedMarket } from '../../domain/market.js';
import type { CoreRoute } from '../route.js';
import { readableMarket } from './market-lookup.js';

/** One market, 404 unknown, 403 outside the window; the path names it as `:id`. */
export const marketCore: CoreRoute<{ id: string; coin: Coin | undefined }, ServedMarket> = {
  query: (q, params) => ({ id: params.id!, coin: q.scopeCoin() }),
  handle: (ctx, q) => readableMarket(ctx, q.id, q.coin),
};
