// One market's simulation (docs/backtest-model.md "Orders and fills", "Maker orders", "Settlement"):
// positions, the pending order, execution against the book at the execution snapshot, the resting
// maker orders with what they reserve, and settlement after the last snapshot.
import type { MarketSeries, OutcomeSide } from '../../domain/market-series.js';
import type { Account } from './account.js';
import { makerBuyReserve, makerFee, type FeeSchedule } from '../model/fee-model.js';
import { makerGoLive, makerOrder, makerStep, type MakerOrderState } from '../model/maker-fill.js';
import { addShares, fillOrder, payoutOf, settleLine, tradeLine, type Fill } from '../model/order-fill.js';
import type { BacktestParams } from './params.js';
import type { MarketLine } from '../model/result.js';
import { round5, round6 } from '../model/rounding.js';

/** No order is pending. */
const NONE = Number.POSITIVE_INFINITY;
// Reserved cash left this close to 0 by binary arithmetic is 0; a post may use this much past the free cash.
const CASH_EPSILON = 1e-9;

/** A maker order of one market, from its decision until it fills, is cancelled or the market ends. */
export interface RestingOrder extends MakerOrderState {
  readonly id: number;
  readonly side: OutcomeSide;
  /** Shares asked for (a sell's, capped at the free position when it went live). */
  requested: number;
  readonly decidedAt: number;
  /** It goes live on the first snapshot at or after this time. */
  readonly dueAt: number;
  /** Cancelled on the first snapshot at or after this time (Infinity: no time to live). */
  readonly expiresAt: number;
  live: boolean;
  /** Held while it rests: cash for a buy, shares for a sell. */
  reserved: number;
  /** The side's quote at the decision (an entry's Brier term). */
  readonly decisionPrice: number;
  filled: boolean;
}

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
  /** Maker orders decided and not yet done (pending, then live), oldest first. */
  readonly orders: RestingOrder[] = [];
  /** Shares of each side held for resting sells. */
  private reservedUp = 0;
  private reservedDown = 0;
  /** Rebates earned by this market's maker fills, paid at its end. */
  private rebates = 0;
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
    const reserved = acct.reservedCash;
    const taken = fillOrder(s, e, ticket, acct.freeCash, this.freePosition(this.side), this.fees, this.params.no_book);
    if (!taken) {
      acct.rejected += 1;
      return;
    }
    // Cash held for resting buys was never offered to the fill: it is still there after it.
    const fill = reserved === 0 ? taken : { ...taken, cashAfter: acct.cash + (taken.cashAfter - (acct.cash - reserved)) };
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
    // Resting orders are cancelled at the last snapshot; a post that never went live expired.
    for (const o of this.orders) {
      if (o.live) acct.makerCancelled += 1;
      else acct.expired += 1;
      this.release(o);
    }
    this.orders.length = 0;
    if (this.rebates > 0) {
      acct.cash += this.rebates;
      this.flow += this.rebates;
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
      ...(this.rebates > 0 ? { rebates: round5(this.rebates) } : {}),
    };
    acct.markets.push(line);
    acct.equity.push({ time: m.end_time, equity: round6(acct.cash + acct.unsettledValue + openValue) });
    return line;
  }

  /** True while a maker order of this market is pending or live. */
  get hasOrders(): boolean {
    return this.orders.length > 0;
  }

  /** Shares of `side` not held for resting sells. */
  freePosition(side: OutcomeSide): number {
    return addShares(this.position(side), -(side === 'up' ? this.reservedUp : this.reservedDown));
  }

  /** Decide a maker order on snapshot i: `shares` at limit `price`, cancelled after `ttlMs` (from the decision) when given. Returns its id. */
  post(i: number, action: 'buy' | 'sell', side: OutcomeSide, shares: number, price: number, ttlMs?: number): number {
    const s = this.series;
    const acct = this.account;
    acct.orders += 1;
    acct.makerOrders += 1;
    if (action === 'buy') this.buysDecided += 1;
    const t = s.time[i]!;
    const id = ++acct.lastOrderId;
    this.orders.push({
      // Prices are decimals: a bid plus an offset (0.41 + 0.01) is 0.42, not a binary hair off it.
      ...makerOrder(action, round6(price), shares),
      id,
      side,
      requested: shares,
      decidedAt: t,
      dueAt: t + this.params.latency_ms,
      expiresAt: ttlMs === undefined ? Infinity : t + ttlMs,
      live: false,
      reserved: 0,
      decisionPrice: side === 'up' ? s.priceUp[i]! : s.priceDown[i]!,
      filled: false,
    });
    return id;
  }

  /** Cancel maker order `id` of this market (pending or live); false when it is not (or no longer) there. */
  cancel(id: number): boolean {
    const k = this.orders.findIndex((o) => o.id === id);
    if (k < 0) return false;
    const o = this.orders[k]!;
    this.orders.splice(k, 1);
    this.release(o);
    this.account.makerCancelled += 1;
    return true;
  }

  /**
   * On snapshot i before anything else of it: orders past their time to live are cancelled, live
   * orders fill by the fill model (oldest first), and posts due go live.
   */
  restingStep(i: number): void {
    const t = this.series.time[i]!;
    for (const o of [...this.orders]) if (t >= o.expiresAt) this.cancel(o.id);
    const model = this.params.maker_fill ?? 'cross';
    for (const o of [...this.orders]) {
      if (!o.live) continue;
      const q = makerStep(o, this.series.book(i, o.side), model);
      if (q > 0) this.makerFilled(o, q, i);
    }
    this.goLive(i);
  }

  /** Posts due at snapshot i go live: post-only (`crosses` is rejected), then what they hold is reserved (too little free is rejected). */
  goLive(i: number): void {
    const t = this.series.time[i]!;
    const acct = this.account;
    for (const o of [...this.orders]) {
      if (o.live || t < o.dueAt) continue;
      const book = this.series.book(i, o.side);
      if (makerGoLive(o, book, this.params.maker_fill ?? 'cross') === 'crosses') {
        acct.rejected += 1;
        acct.makerCrossed += 1;
        this.drop(o);
        continue;
      }
      if (o.action === 'buy') {
        const need = makerBuyReserve(this.fees, o.remaining, o.price);
        if (need > acct.freeCash + CASH_EPSILON) {
          acct.rejected += 1;
          this.drop(o);
          continue;
        }
        acct.reservedCash += need;
        o.reserved = need;
      } else {
        const free = this.freePosition(o.side);
        if (!(free > 0)) {
          acct.rejected += 1;
          this.drop(o);
          continue;
        }
        o.remaining = Math.min(o.remaining, free);
        o.requested = o.remaining;
        o.reserved = o.remaining;
        this.holdShares(o.side, o.remaining);
      }
      o.live = true;
    }
  }

  /** A resting order filled `q` shares at its price on snapshot i. */
  private makerFilled(o: RestingOrder, q: number, i: number): void {
    const acct = this.account;
    const f = makerFee(this.fees, o.action, q, o.price);
    const notional = o.price * q;
    const cashFee = f.feeShares > 0 ? 0 : f.fee;
    const delta = o.action === 'buy' ? -(notional + cashFee) : notional - cashFee;
    if (o.action === 'buy') {
      const release = Math.min(o.reserved, notional + cashFee);
      o.reserved -= release;
      this.unreserveCash(release);
      acct.sharesBought += q;
      if (!o.filled) {
        this.entriesFilled += 1;
        this.brierPrices.push(o.decisionPrice);
        this.brierSides.push(o.side);
      }
      this.addPosition(o.side, addShares(q, -f.feeShares));
    } else {
      o.reserved = addShares(o.reserved, -q);
      this.holdShares(o.side, -q);
      this.addPosition(o.side, -q);
    }
    o.filled = true;
    acct.cash += delta;
    this.flow += delta;
    this.feesPaid += f.fee;
    this.rebates += f.rebate;
    this.traded = true;
    acct.fills += 1;
    acct.makerFills += 1;
    const fill: Fill = { shares: q, notional, fee: f.fee, feeShares: f.feeShares, received: q, levels: 1, depth: true, cashAfter: acct.cash };
    const ticket = { action: o.action, side: o.side, shares: o.requested, limit: o.price };
    acct.trades.push({ ...tradeLine(this.series.market.market_id, ticket, o.decidedAt, this.series.time[i]!, fill), kind: 'maker', rebate: f.rebate });
    if (!(o.remaining > 0)) this.drop(o);
  }

  /** An order leaves the book: what it held is free again. */
  private drop(o: RestingOrder): void {
    const k = this.orders.indexOf(o);
    if (k >= 0) this.orders.splice(k, 1);
    this.release(o);
  }

  private release(o: RestingOrder): void {
    if (!o.live) return;
    if (o.action === 'buy') this.unreserveCash(o.reserved);
    else this.holdShares(o.side, -o.reserved);
    o.reserved = 0;
  }

  private unreserveCash(amount: number): void {
    const left = this.account.reservedCash - amount;
    this.account.reservedCash = Math.abs(left) < CASH_EPSILON ? 0 : left;
  }

  private holdShares(side: OutcomeSide, delta: number): void {
    if (side === 'up') this.reservedUp = addShares(this.reservedUp, delta);
    else this.reservedDown = addShares(this.reservedDown, delta);
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
