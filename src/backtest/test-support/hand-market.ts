// Hand-made markets for backtest tests: a few snapshots with books written as [price, size] pairs,
// so a case reads like the table one would draw on paper to check it.
import { marketId, type Market, type OrderbookSide, type Snapshot } from '../../domain/market.js';

/** A level written as [price, size]. */
export type Pair = [number, number];

/** One snapshot of a hand-made market: time offset from the start, quotes and optional books. */
export interface HandSnapshot {
  t: number;
  up: number;
  down?: number;
  price?: number;
  bookUp?: { bids?: Pair[]; asks?: Pair[] };
  bookDown?: { bids?: Pair[]; asks?: Pair[] };
}

const side = (b: { bids?: Pair[]; asks?: Pair[] }): OrderbookSide => ({
  bids: (b.bids ?? []).map(([price, size]) => ({ price, size })),
  asks: (b.asks ?? []).map(([price, size]) => ({ price, size })),
});

/** Use to build a 5m BTC market starting at `start` (epoch ms) with the given snapshots and winner. */
export function handMarket(
  start: number,
  winner: 'Up' | 'Down' | null,
  snaps: HandSnapshot[],
  priceStart: number | null = 100,
): { market: Market; snapshots: Snapshot[] } {
  const id = marketId('BTC', '5m', start);
  const market: Market = {
    market_id: id,
    slug: id,
    coin: 'BTC',
    market_type: '5m',
    status: winner ? 'resolved' : 'active',
    start_time: start,
    end_time: start + 300_000,
    price_start: priceStart,
    price_end: winner ? 101 : null,
    winner,
    snapshot_count: snaps.length,
  };
  const snapshots = snaps.map((s, i): Snapshot => {
    const snap: Snapshot = {
      id: i + 1,
      market_id: id,
      time: start + s.t,
      price: s.price ?? 100,
      price_up: s.up,
      price_down: s.down ?? Math.round((1 - s.up) * 1e4) / 1e4,
    };
    if (s.bookUp) snap.orderbook_up = side(s.bookUp);
    if (s.bookDown) snap.orderbook_down = side(s.bookDown);
    return snap;
  });
  return { market, snapshots };
}
