// The account across markets: cash, the counters the summary reports, and the lists (trades,
// markets, equity) in the order they happened. Markets change it one after another.
import type { MarketLine, Trade } from './result.js';

/** Use once per run; a MarketRun writes into it. */
export class Account {
  cash: number;
  orders = 0;
  fills = 0;
  rejected = 0;
  expired = 0;
  sharesBought = 0;
  fillsWithoutDepth = 0;
  unsettledMarkets = 0;
  /** Value of the positions of markets without a winner, at their last quotes. */
  unsettledValue = 0;
  /** (side price at decision − outcome)² of each filled entry in a settled market. */
  brierSum = 0;
  brierCount = 0;
  readonly trades: Trade[] = [];
  readonly markets: MarketLine[] = [];
  readonly equity: { time: number; equity: number }[] = [];

  constructor(readonly startCash: number) {
    this.cash = startCash;
  }
}
