// A market's snapshots as columns, the shape the backtest engine (and any other consumer that
// walks a whole market) reads: no per-row objects and no JSON on the hot path. Every source (the
// local SQLite store's dense blocks, PostgreSQL, the API through the client) yields the same
// numbers that JSON.parse gives for the contract's snapshot records, so results never depend on
// where the data came from.
import type { Market } from './market.js';

/** A side of the book at one snapshot: `prices[k]`, `sizes[k]` for k < length, best first. */
export interface BookLevels {
  readonly length: number;
  readonly prices: ArrayLike<number>;
  readonly sizes: ArrayLike<number>;
}

/** One outcome's orderbook (the Up token's or the Down token's): bids highest first, asks lowest first. */
export interface SideBook {
  readonly bids: BookLevels;
  readonly asks: BookLevels;
}

/** One outcome's best bid and best ask at every snapshot: NaN where the snapshot holds no book or the list no level. */
export interface BestPrices {
  readonly bids: ArrayLike<number>;
  readonly asks: ArrayLike<number>;
}

/** Which outcome of an up/down market. */
export type OutcomeSide = 'up' | 'down';

/** Use to hand a whole market to a consumer that reads it column by column, oldest snapshot first. */
export interface MarketSeries {
  /** The contract's market record (winner, start/end, price_start). */
  readonly market: Market;
  /** Number of snapshots. */
  readonly length: number;
  /** Epoch ms, ascending. */
  readonly time: ArrayLike<number>;
  /** The asset's price. */
  readonly price: ArrayLike<number>;
  readonly priceUp: ArrayLike<number>;
  readonly priceDown: ArrayLike<number>;
  /**
   * The outcome's book at snapshot i, or undefined when that snapshot holds none. A source may
   * hand out the same object for every call of an outcome: read it before the next call.
   */
  book(i: number, side: OutcomeSide): SideBook | undefined;
  /**
   * Optional fast path for consumers that read only the top of the book on many snapshots: the
   * outcome's best prices for the whole market, the same numbers as book(i, side)'s first levels.
   * Without it, read book().
   */
  bestPrices?(side: OutcomeSide): BestPrices;
}

/**
 * Markets one at a time, oldest start_time first. A series stays valid after the next one is read
 * (the backtest runs overlapping markets on one clock, holding them side by side); only the
 * objects book() hands out are reused from call to call.
 */
export type MarketSource = AsyncIterable<MarketSeries>;
