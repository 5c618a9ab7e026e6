// What a synthetic market holds, as a pure function of (seed, coin, market type, start, time):
// its metadata, its snapshots and their orderbooks. The seed and the live world both write
// through this, so a row is the same whichever of them wrote it, and whenever.
import {
  COINS,
  MARKET_DURATION_MS,
  MARKET_TYPES,
  SNAPSHOT_INTERVAL_MS,
  marketId,
  type Coin,
  type MarketType,
} from '../../domain/market.js';
import type { MarketWrite } from '../core/write-records.js';
import { toScaled } from '../core/price-scale.js';
import { seededDetails } from './market-details.js';
import { emptyPair, type BookPair } from '../core/book-codec.js';
import { orderbookPairLevels } from './orderbook-levels.js';
import { COARSE_STEP_MS, pricePath, yearsOf, type PricePath } from './price-path.js';
import { hashKeys, mulberry32, normalCdf } from '../../random/prng.js';

/** Realistic levels and annualised volatilities: each coin's path wanders around its level. */
const COIN_MODELS: Record<Coin, { startPrice: number; sigma: number; decimals: number }> = {
  BTC: { startPrice: 97_000, sigma: 0.55, decimals: 2 },
  ETH: { startPrice: 3_500, sigma: 0.7, decimals: 2 },
  SOL: { startPrice: 200, sigma: 0.85, decimals: 3 },
};

// Key streams per coin: 0-3 the price path's levels, then one per market type for spreads and
// one per market type for orderbooks.
const STREAMS_PER_COIN = 16;
const SPREAD_STREAM = 4;
const BOOK_STREAM = 10;

/** One snapshot as stored (values scaled, see price-scale.ts); t is the offset from the market's start. */
export interface SyntheticRow {
  t: number;
  price: number;
  priceUp: number;
  priceDown: number;
}

/** Use for everything synthetic about one coin under one seed (its path is shared by every market type). */
export class SyntheticCoin {
  readonly path: PricePath;
  private readonly round: (v: number) => number;
  private readonly coinIndex: number;

  constructor(
    readonly seed: number,
    readonly coin: Coin,
  ) {
    const model = COIN_MODELS[coin];
    this.coinIndex = COINS.indexOf(coin);
    this.path = pricePath({ seed, stream: this.coinIndex * STREAMS_PER_COIN, startPrice: model.startPrice, sigma: model.sigma });
    const f = 10 ** model.decimals;
    this.round = (v) => Math.round(v * f) / f;
  }

  /** The coin's price at a 125 ms step, rounded as the service quotes it. */
  priceAt(time: number): number {
    return this.round(this.path.priceAt(time));
  }

  /** The market row as known at `now`: price_end and winner once it has ended. */
  marketWrite(type: MarketType, start: number, now: number): MarketWrite {
    const end = start + MARKET_DURATION_MS[type];
    const priceStart = this.priceAt(start);
    const priceEnd = end <= now ? this.priceAt(end) : null;
    const id = marketId(this.coin, type, start);
    return {
      marketId: id,
      coin: this.coin,
      marketType: type,
      startTime: start,
      endTime: end,
      priceStart,
      priceEnd,
      winner: priceEnd === null ? null : priceEnd >= priceStart ? 'Up' : 'Down',
      details: seededDetails(this.seed, id, start, end, now),
    };
  }

  /**
   * Calls `emit` for every snapshot of the market at times [from, to] (both on the 125 ms grid,
   * clipped to the market), oldest first; `depthFrom`: snapshots at or after it also get orderbooks
   * (both books as scaled levels, in a pair reused by the next call).
   */
  snapshots(
    type: MarketType,
    start: number,
    from: number,
    to: number,
    depthFrom: number,
    emit: (row: SyntheticRow, book: BookPair | undefined) => void,
  ): void {
    const end = start + MARKET_DURATION_MS[type];
    const first = Math.max(from, start);
    const last = Math.min(to, end - SNAPSHOT_INTERVAL_MS);
    const logStart = Math.log(this.priceAt(start));
    const typeIndex = MARKET_TYPES.indexOf(type);
    const spreadStream = this.coinIndex * STREAMS_PER_COIN + SPREAD_STREAM + typeIndex;
    const bookStream = this.coinIndex * STREAMS_PER_COIN + BOOK_STREAM + typeIndex;
    const row: SyntheticRow = { t: 0, price: 0, priceUp: 0, priceDown: 0 };
    const pair = emptyPair();
    for (let time = first; time <= last; time += SNAPSHOT_INTERVAL_MS) {
      const price = this.priceAt(time);
      // P(end >= start): the log-move so far against the volatility of the time left.
      const sd = this.path.sigma * Math.sqrt(yearsOf(end - time));
      const up = clampProbability(Math.round(normalCdf((Math.log(price) - logStart) / sd) * 100) / 100);
      // Keyed by the 5-minute window and the step in it (both small integers).
      const window = Math.floor(time / COARSE_STEP_MS);
      const step = (time - window * COARSE_STEP_MS) / SNAPSHOT_INTERVAL_MS;
      // The two sides are quoted separately and carry a small spread: they sum to 1.00-1.02.
      const spread = Math.floor((hashKeys(this.seed, spreadStream, window, step) / 4294967296) * 3) / 100;
      const down = clampProbability(Math.round((1 - up + spread) * 100) / 100);
      row.t = time - start;
      row.price = toScaled(price);
      row.priceUp = toScaled(up);
      row.priceDown = toScaled(down);
      const book = time >= depthFrom ? orderbookPairLevels(this.seed, bookStream, time, up, down, pair) : undefined;
      emit(row, book);
    }
  }
}

function clampProbability(p: number): number {
  return Math.min(0.99, Math.max(0.01, p));
}
