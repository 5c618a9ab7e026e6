// Finding the market a path or query names: 404 when unknown (or of another coin than the request
// is scoped to), 403 when outside the window.
import { parseMarketId, type Coin, type ServedMarket } from '../../domain/market.js';
import { assertInWindow } from '../data-window.js';
import { HttpException, quote } from '../http-error.js';
import type { KeyedContext } from '../route.js';

/** Use in handlers that serve one market's data: the market, readable by this caller. */
export async function readableMarket(ctx: KeyedContext, id: string, coin?: Coin): Promise<ServedMarket> {
  // Ids that cannot be market ids never reach the store.
  const market = parseMarketId(id) ? await ctx.store.getMarket(id, ctx.now) : undefined;
  if (!market || (coin !== undefined && market.coin !== coin)) {
    const of = coin !== undefined && market ? ` of coin ${coin}` : '';
    throw new HttpException(404, `No market${of} with id ${quote(id)}.`, {}, {}, { kind: 'market_not_found' });
  }
  await assertInWindow(ctx.store, market, ctx.caller.account.plan);
  return market;
}
