// One market's simulation (docs/backtest-model.md "Orders and fills", "Settlement"): positions, the pending
// order, execution against the book at the execution snapshot, and settlement after the last one.
import type { MarketSeries, OutcomeSide } from '../domain/market-series.js';
import type { Account } from './account.js';
import { quoteLevel, walkBuy, walkSell } from './fills.js';
import type { BacktestParams } from './params.js';
import type { MarketLine } from './result.js';
import { round5, round6 } from './rounding.js';

/** No order is pending. */
const NONE = Number.POSITIVE_INFINITY;
// A position left this close to 0 by binary arithmetic (10 − 3.3 − 6.7) is 0.
const POSITION_EPSILON = 1e-9;

/** Use per market: the engine's loop drives it, a strategy's decider places orders on it. */
export class MarketRun {
  posUp = 0;
  posDown = 0;
  /** Buys decided in this market (rule strategies stop at max_entries). */
  buysDecided = 0;
  /** Execution time of the pending order, NONE when nothing is pending. */
  dueAt = NONE;
  private action: 'buy' | 'sell' = 'buy';
  private side: OutcomeSide = 'up';
  private shares = 0;
  private limit = 0;
  private decidedAt = 0;
  private decisionPrice = 0;
  private entriesFilled = 0;
  private fees = 0;
  private traded = false;
  private readonly cashBefore: number;
  private readonly brierPrices: number[] = [];
  private readonly brierSides: OutcomeSide[] = [];

  constructor(
    readonly series: MarketSeries,
    readonly account: Account,
    private readonly params: BacktestParams,
    private readonly feeRate: number,
  ) {
    this.cashBefore = account.cash;
  }

  /** True while an order waits for its execution snapshot. */
  get pending(): boolean {
    return this.dueAt !== NONE;
  }

  /** Shares of `side` held. */
  position(side: OutcomeSide): number {
    return side === 'up' ? this.posUp : this.posDown;
  }

  /** Decide an order on snapshot i (the caller checked nothing is pending). */
  place(i: number, action: 'buy' | 'sell', side: OutcomeSide, shares: number, limit: number): void {
    const s = this.series;
    this.account.orders += 1;
    if (action === 'buy') this.buysDecided += 1;
    this.action = action;
    this.side = side;
    this.shares = shares;
    this.limit = limit;
    this.decidedAt = s.time[i]!;
    this.decisionPrice = side === 'up' ? s.priceUp[i]! : s.priceDown[i]!;
    this.dueAt = this.decidedAt + this.params.latency_ms;
  }

  /** Execute the pending order on snapshot e (its time has reached dueAt). */
  execute(e: number): void {
    this.dueAt = NONE;
    const s = this.series;
    const book = s.book(e, this.side);
    const acct = this.account;
    if (!book && this.params.no_book === 'reject') {
      acct.rejected += 1;
      return;
    }
    const buy = this.action === 'buy';
    const levels = book ? (buy ? book.asks : book.bids) : quoteLevel(this.side === 'up' ? s.priceUp[e]! : s.priceDown[e]!);
    const walk = buy
      ? walkBuy(levels, this.shares, this.limit, acct.cash, this.feeRate)
      : walkSell(levels, Math.min(this.shares, this.position(this.side)), this.limit, this.feeRate);
    if (!(walk.shares > 0)) {
      acct.rejected += 1;
      return;
    }
    const fee = round5(walk.rawFee);
    acct.fills += 1;
    if (!book) acct.fillsWithoutDepth += 1;
    this.fees += fee;
    this.traded = true;
    if (buy) {
      acct.cash -= walk.notional + fee;
      acct.sharesBought += walk.shares;
      this.entriesFilled += 1;
      this.brierPrices.push(this.decisionPrice);
      this.brierSides.push(this.side);
      this.addPosition(this.side, walk.shares);
    } else {
      acct.cash += walk.notional - fee;
      this.addPosition(this.side, -walk.shares);
    }
    acct.trades.push({
      market_id: s.market.market_id,
      side: this.side,
      action: this.action,
      decided_at: this.decidedAt,
      filled_at: s.time[e]!,
      shares_requested: round6(this.shares),
      shares: round6(walk.shares),
      vwap: round6(walk.notional / walk.shares),
      fee,
      cash_after: round6(acct.cash),
      depth: book !== undefined,
      levels: walk.levels,
    });
  }

  /**
   * After the last snapshot: a pending order expires; a winner pays the winning side 1 and the
   * other 0; without one, positions are valued at the last quotes. Returns the market's line
   * (undefined when nothing filled) after writing it, and its equity point, to the account.
   */
  finish(): MarketLine | undefined {
    const acct = this.account;
    if (this.pending) {
      acct.expired += 1;
      this.dueAt = NONE;
    }
    const m = this.series.market;
    let unsettled = 0;
    if (m.winner !== null) {
      this.settle('up', m.winner === 'Up' ? 1 : 0);
      this.settle('down', m.winner === 'Down' ? 1 : 0);
      for (let k = 0; k < this.brierPrices.length; k++) {
        const outcome = (this.brierSides[k] === 'up') === (m.winner === 'Up') ? 1 : 0;
        acct.brierSum += (this.brierPrices[k]! - outcome) ** 2;
        acct.brierCount += 1;
      }
    } else if (this.posUp > 0 || this.posDown > 0) {
      const last = this.series.length - 1;
      unsettled = this.posUp * this.series.priceUp[last]! + this.posDown * this.series.priceDown[last]!;
      acct.unsettledValue += unsettled;
      acct.unsettledMarkets += 1;
    }
    if (!this.traded) return undefined;
    const line: MarketLine = {
      market_id: m.market_id,
      winner: m.winner,
      settled: m.winner !== null,
      entries: this.entriesFilled,
      fees: round5(this.fees),
      pnl: round6(acct.cash + unsettled - this.cashBefore),
    };
    acct.markets.push(line);
    acct.equity.push({ time: m.end_time, equity: round6(acct.cash + acct.unsettledValue) });
    return line;
  }

  private settle(side: OutcomeSide, payout: number): void {
    const shares = this.position(side);
    if (!(shares > 0)) return;
    const acct = this.account;
    acct.cash += shares * payout;
    this.addPosition(side, -shares);
    const end = this.series.market.end_time;
    acct.trades.push({
      market_id: this.series.market.market_id,
      side,
      action: 'settle',
      decided_at: end,
      filled_at: end,
      shares_requested: round6(shares),
      shares: round6(shares),
      vwap: payout,
      fee: 0,
      cash_after: round6(acct.cash),
      depth: true,
      levels: 0,
    });
  }

  private addPosition(side: OutcomeSide, delta: number): void {
    let v = this.position(side) + delta;
    if (Math.abs(v) < POSITION_EPSILON) v = 0;
    if (side === 'up') this.posUp = v;
    else this.posDown = v;
  }
}
