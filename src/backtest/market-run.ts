// One market's simulation (docs/backtest-model.md "Orders and fills", "Settlement"): positions, the pending
// order, execution against the book at the execution snapshot, and settlement after the last one.
import type { MarketSeries, OutcomeSide } from '../domain/market-series.js';
import type { Account } from './account.js';
import type { FeeSchedule } from './fee-model.js';
import { addShares, fillOrder, payoutOf, settleLine, tradeLine } from './order-fill.js';
import type { BacktestParams } from './params.js';
import type { MarketLine } from './result.js';
import { round5, round6 } from './rounding.js';

/** No order is pending. */
const NONE = Number.POSITIVE_INFINITY;

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
  private feesPaid = 0;
  private traded = false;
  /** What this market's fills and settlement did to the cash (its pnl, other markets apart). */
  private flow = 0;
  private readonly brierPrices: number[] = [];
  private readonly brierSides: OutcomeSide[] = [];

  constructor(
    readonly series: MarketSeries,
    readonly account: Account,
    private readonly params: BacktestParams,
    private readonly fees: FeeSchedule,
  ) {
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
    const acct = this.account;
    const ticket = { action: this.action, side: this.side, shares: this.shares, limit: this.limit };
    const fill = fillOrder(s, e, ticket, acct.cash, this.position(this.side), this.fees, this.params.no_book);
    if (!fill) {
      acct.rejected += 1;
      return;
    }
    acct.fills += 1;
    if (!fill.depth) acct.fillsWithoutDepth += 1;
    this.feesPaid += fill.fee;
    this.traded = true;
    this.flow += fill.cashAfter - acct.cash;
    acct.cash = fill.cashAfter;
    if (this.action === 'buy') {
      acct.sharesBought += fill.shares;
      this.entriesFilled += 1;
      this.brierPrices.push(this.decisionPrice);
      this.brierSides.push(this.side);
      this.addPosition(this.side, fill.received);
    } else {
      this.addPosition(this.side, -fill.shares);
    }
    acct.trades.push(tradeLine(s.market.market_id, ticket, this.decidedAt, s.time[e]!, fill));
  }

  /**
   * After the last snapshot: a pending order expires; a winner pays the winning side 1 and the
   * other 0; without one, positions are valued at the last quotes. Returns the market's line
   * (undefined when nothing filled) after writing it, and its equity point, to the account;
   * `openValue` is what the positions of markets still running are worth (they count in equity).
   */
  finish(openValue = 0): MarketLine | undefined {
    const acct = this.account;
    if (this.pending) {
      acct.expired += 1;
      this.dueAt = NONE;
    }
    const m = this.series.market;
    let unsettled = 0;
    if (m.winner !== null) {
      this.settle('up', payoutOf(m.winner, 'up'));
      this.settle('down', payoutOf(m.winner, 'down'));
      for (let k = 0; k < this.brierPrices.length; k++) {
        const outcome = payoutOf(m.winner, this.brierSides[k]!);
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
      fees: round5(this.feesPaid),
      pnl: round6(this.flow + unsettled),
    };
    acct.markets.push(line);
    acct.equity.push({ time: m.end_time, equity: round6(acct.cash + acct.unsettledValue + openValue) });
    return line;
  }

  private settle(side: OutcomeSide, payout: number): void {
    const shares = this.position(side);
    if (!(shares > 0)) return;
    const acct = this.account;
    acct.cash += shares * payout;
    this.flow += shares * payout;
    this.addPosition(side, -shares);
    acct.trades.push(settleLine(this.series.market.market_id, side, shares, payout, this.series.market.end_time, acct.cash));
  }

  private addPosition(side: OutcomeSide, delta: number): void {
    const v = addShares(this.position(side), delta);
    if (side === 'up') this.posUp = v;
    else this.posDown = v;
  }
}
