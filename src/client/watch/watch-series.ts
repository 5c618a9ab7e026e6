// Which market a watch starts with and which comes next in its series (coin and type): the
// service's own listing, so a series with a gap or a late market is followed as it really is.
import { MARKET_DURATION_MS, parseMarketId, type Coin, type Market, type MarketType } from '../../domain/market.js';
import { NotFoundError } from '../../errors.js';
import type { MsnapApi } from '../types.js';

/** What a watch follows: one market by id, or the current market of a coin and type. */
export type WatchTarget = { marketId: string } | { coin: Coin; marketType: MarketType };

// Markets listed per look for the next one: a watch far behind still finds the earliest.
const LOOK_AHEAD = 100;

/** The earliest market of the series starting at or after `after` (undefined: none yet). */
export async function marketStartingFrom(client: MsnapApi, series: { coin: Coin; marketType: MarketType }, after: number): Promise<Market | undefined> {
  let earliest: Market | undefined;
  const endTime = after + LOOK_AHEAD * MARKET_DURATION_MS[series.marketType];
  for await (const m of client.markets({ ...series, startTime: after, endTime, limit: LOOK_AHEAD })) {
    if (m.start_time >= after && (!earliest || m.start_time < earliest.start_time)) earliest = m;
  }
  return earliest;
}

/**
 * The market a watch starts with: the one named, or the series' active market (the one ending
 * first, should several be active). Undefined when the series has none active now, or the service
 * does not know the market named.
 */
export async function firstMarket(client: MsnapApi, target: WatchTarget): Promise<Market | undefined> {
  if ('marketId' in target) {
    try {
      return await client.market(target.marketId);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }
  let current: Market | undefined;
  for await (const m of client.markets({ coin: target.coin, marketType: target.marketType, status: 'active', limit: 10 })) {
    if (m.status === 'active' && (!current || m.end_time < current.end_time)) current = m;
  }
  return current;
}

/** Use when no market is active: the newest of the series, whose end is where the next one starts. */
export async function newestMarket(client: MsnapApi, series: { coin: Coin; marketType: MarketType }): Promise<Market | undefined> {
  for await (const m of client.markets({ ...series, limit: 1 })) return m;
  return undefined;
}

/** The series of a target, for a market id read from the id itself. */
export function targetSeries(target: WatchTarget): { coin: Coin; marketType: MarketType } {
  if (!('marketId' in target)) return target;
  const parsed = parseMarketId(target.marketId);
  if (!parsed) throw new NotFoundError(`market ${target.marketId} not found`);
  return { coin: parsed.coin, marketType: parsed.marketType };
}
