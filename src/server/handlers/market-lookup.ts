// Finding the market a path or query names: 404 when unknown (or of another coin than the request
// is scoped to), 403 when outside the window.
import { parseMarketId, type Coin, type ServedMarket } from '../../domain/market.js';
import type { MarketPage, SnapshotFormat, SnapshotQuery } from '../../store/store.js';
import { assertInWindow } from '../data-window.js';
import { HttpException, quote } from '../http-error.js';
import type { KeyedContext } from '../route.js';

/** Use in handlers that serve one market's data: the market, readable by this caller. */
export async function readableMarket(ctx: KeyedContext, id: string, coin?: Coin): Promise<ServedMarket> {
  // Ids that cannot be market ids never reach the store.
  const market = parseMarketId(id) ? await ctx.store.getMarket(id, ctx.now) : undefined;
  return admitMarket(ctx, id, market, coin);
}

/**
 * Use for a page of one market's snapshots: the market, readable by this caller, and its page in
 * `format(coin)`, read together where the store can (one PostgreSQL round trip for both).
 */
export async function readableMarketPage(
  ctx: KeyedContext,
  id: string,
  coin: Coin | undefined,
  q: Omit<SnapshotQuery, 'format'>,
  format: (coin: Coin) => SnapshotFormat,
): Promise<MarketPage> {
  const { store } = ctx;
  if (!store.marketSnapshotPage || !parseMarketId(id)) {
    const market = await readableMarket(ctx, id, coin);
    return { market, page: await store.snapshotPageJson(market.market_id, { ...q, format: format(market.coin) }) };
  }
  const found = await store.marketSnapshotPage(id, ctx.now, q, async (m) => format((await admitMarket(ctx, id, m, coin)).coin));
  return found ?? { market: await admitMarket(ctx, id, undefined, coin), page: { json: '[]', count: 0, total: 0 } };
}

async function admitMarket(ctx: KeyedContext, id: string, market: ServedMarket | undefined, coin: Coin | undefined): Promise<ServedMarket> {
  if (!market || (coin !== undefined && market.coin !== coin)) {
    const of = coin !== undefined && market ? ` of coin ${coin}` : '';
    throw new HttpException(404, `No market${of} with id ${quote(id)}.`, {}, {}, { kind: 'market_not_found' });
  }
  await assertInWindow(ctx.store, market, ctx.caller.account.plan);
  return market;
}
