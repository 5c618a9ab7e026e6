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
  /** Cash held for resting maker buys (of every market): taker buys and new posts see `cash − reservedCash`. */
  reservedCash = 0;
  /** The run was given a maker fill model (--maker-fill): it reports maker fields even without a post. */
  makerFillGiven = false;
  /** The last maker order id handed out (ids are unique across the run). */
  lastOrderId = 0;
  makerOrders = 0;
  makerFills = 0;
  makerCrossed = 0;
  makerCancelled = 0;
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

  /** Cash not held for resting buys. */
  get freeCash(): number {
    return this.cash - this.reservedCash;
  }
}
