// What the bulk writers take and report, whatever the backend: a market's metadata as seed and
// import write it, and the row counts of every table.
import type { Coin, MarketDetails, MarketType } from '../../domain/market.js';

/** Market metadata as seed and import write it. */
export interface MarketWrite {
  marketId: string;
  coin: Coin;
  marketType: MarketType;
  startTime: number;
  endTime: number;
  priceStart: number | null;
  priceEnd: number | null;
  winner: 'Up' | 'Down' | null;
  /** The hosted service's descriptive fields, when known; null (or absent) ones keep what is stored. */
  details?: Partial<MarketDetails>;
}

/** Row counts of every table, for reports and tests. */
export interface TableCounts {
  markets: number;
  snapshots: number;
  orderbooks: number;
  accounts: number;
  keys: number;
}
