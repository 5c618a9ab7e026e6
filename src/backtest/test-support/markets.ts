// Hand-made markets for the engine's tests: a 5-minute market and snapshots with optional books.
import type { Market, OrderbookSide, Snapshot } from '../../domain/market.js';
import type { MarketSeries, MarketSource } from '../../domain/market-series.js';
import { seriesFromSnapshots } from '../series/snapshot-series.js';

/** Start of the first test market. */
export const T0 = 1_795_300_000_000;

/** A 5-minute BTC market starting `index` markets after T0. */
export function testMarket(index: number, winner: 'Up' | 'Down' | null, priceStart: number | null = 100): Market {
  const start = T0 + index * 300_000;
  return {
    market_id: `btc-updown-5m-${start / 1000}`,
    slug: `btc-updown-5m-${start / 1000}`,
    coin: 'BTC',
    market_type: '5m',
    status: winner === null ? 'active' : 'resolved',
    start_time: start,
    end_time: start + 300_000,
    price_start: priceStart,
    price_end: null,
    winner,
    snapshot_count: 0,
  };
}

/** Levels as [price, size] pairs. */
export type Levels = [number, number][];

/** One side's book from bid and ask pairs. */
export function book(bids: Levels, asks: Levels): OrderbookSide {
  return { bids: bids.map(([price, size]) => ({ price, size })), asks: asks.map(([price, size]) => ({ price, size })) };
}

/** A snapshot `offsetMs` into market `m`; books optional. */
export function snap(m: Market, offsetMs: number, up: number, books: { up?: OrderbookSide; down?: OrderbookSide } = {}, price = 100): Snapshot {
  return {
    id: 0,
    market_id: m.market_id,
    time: m.start_time + offsetMs,
    price,
    price_up: up,
    price_down: Math.round((1 - up) * 1000) / 1000,
    ...(books.up ? { orderbook_up: books.up } : {}),
    ...(books.down ? { orderbook_down: books.down } : {}),
  };
}

/** A source over ready series. */
export async function* sourceOf(...series: MarketSeries[]): MarketSource {
  for (const s of series) yield s;
}

/** seriesFromSnapshots, shorter. */
export function seriesOf(m: Market, snaps: Snapshot[]): MarketSeries {
  return seriesFromSnapshots(m, snaps);
}
