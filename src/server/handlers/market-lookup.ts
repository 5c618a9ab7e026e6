// Finding the market a path or query names: 404 when unknown, 403 when outside the window.
import { parseMarketId, type Market } from '../../domain/market.js';
import { assertInWindow } from '../data-window.js';
import { HttpException, quote } from '../http-error.js';
import type { RouteContext } from '../route.js';

/** Use in handlers that serve one market's data: the market, readable by this caller. */
export function readableMarket(ctx: RouteContext, id: string): Market {
  // Ids that cannot be market ids never reach the store.
  const market = parseMarketId(id) ? ctx.store.getMarket(id, ctx.now) : undefined;
  if (!market) throw new HttpException(404, `No market with id ${quote(id)}.`);
  assertInWindow(ctx.store, market, ctx.caller.account.plan);
  return market;
}
