// Resting (maker, post-only) limit orders on a paper account, pure: posted on the newest snapshot
// at the server's now, stepped on each later snapshot by the backtest's maker fill model
// (backtest/maker-fill.ts, the very functions the engine runs), their fills booked with the
// market's fee schedule (taker_only: no fee; rebate_rate × a taker's fee earned, paid at the
// market's end), closed when
// filled, cancelled, expired or at their market's end (docs/bots.md "Maker orders"). The desk
// (paper-desk.ts) reads the snapshots, runs these inside the account's transaction and stores
// what they changed.
import type { Market } from '../domain/market.js';
import type { MarketSeries, OutcomeSide } from '../domain/market-series.js';
import { addShares } from '../backtest/model/order-fill.js';
import { makerBuyReserve, makerFee, type FeeSchedule } from '../backtest/model/fee-model.js';
import { makerGoLive, makerOrder, makerStep, type MakerFillModel, type MakerOrderState } from '../backtest/model/maker-fill.js';
import { round5, round6 } from '../backtest/model/rounding.js';
import type { PaperOrderLine, PaperPosition, RestingOrder } from '../store/paper-ledger.js';
import { reservedShares, unfilledLine, type PaperBook, type RejectReason } from './paper-account.js';

/** A limit order as the API takes it (checked): post-only, resting at `price` until filled, cancelled or expired. */
export interface LimitRequest {
  market_id: string;
  side: OutcomeSide;
  action: 'buy' | 'sell';
  shares: number;
  price: number;
  /** Time to live on the server's clock, ms; absent: it rests until its market ends. */
  ttl_ms?: number;
}

/** Why a limit order was not posted: a market order's reasons, or `crosses` (post-only). */
export type PostRejectReason = RejectReason | 'crosses';

/** What posting did: its order line, and its resting state unless it was rejected (the desk gives it its id). */
export interface Posted {
  line: PaperOrderLine;
  resting?: Omit<RestingOrder, 'orderId'>;
}

/** Why a resting order closes without filling all of it. */
export type CloseReason = 'cancelled' | 'expired' | 'market_end';

/**
 * Use to post `req` at data time `at` on `market` (as the clock shows it), going live on
 * `series`' only snapshot (the newest visible; undefined when there is none). Post-only: an order
 * the book would fill at once is rejected (`crosses`). A buy takes its cash out of the account's
 * cash while it rests; a sell rests for at most the shares held and not promised to another sell
 * (the engine's cap).
 */
export function postLimit(book: PaperBook, req: LimitRequest, market: Market, series: MarketSeries | undefined, schedule: FeeSchedule, model: MakerFillModel, at: number): Posted {
  const expiresAt = req.ttl_ms !== undefined ? at + req.ttl_ms : undefined;
  const limit = { type: 'limit', price: req.price, rebate: 0, expires_at: expiresAt ?? null } as const;
  const reject = (reason: PostRejectReason): Posted => ({ line: { ...unfilledLine(req, book.money.cash, at, limit), reason } });
  if (market.status !== 'active') return reject('market_closed');
  if (!series || series.length === 0) return reject('no_snapshot');
  const state = makerOrder(req.action, req.price, req.shares);
  if (makerGoLive(state, series.book(0, req.side), model) === 'crosses') return reject('crosses');
  let reserved = 0;
  let shares = req.shares;
  if (req.action === 'buy') {
    reserved = makerBuyReserve(schedule, req.shares, req.price);
    if (reserved > book.money.cash + 1e-9) return reject('insufficient_cash');
    book.money.cash -= reserved;
  } else {
    const held = book.positions.find((p) => p.marketId === req.market_id && p.side === req.side)?.shares ?? 0;
    const free = addShares(held, -reservedShares(book.resting, req.market_id, req.side));
    if (!(free > 0)) return reject('no_position');
    // As the engine does: a sell rests for at most the shares held and not promised to another sell.
    shares = Math.min(req.shares, free);
  }
  const time = series.time[0]!;
  return {
    line: { ...unfilledLine(req, book.money.cash, at, limit), status: 'open', shares_requested: round6(shares), filled_at: time },
    resting: {
      marketId: req.market_id,
      side: req.side,
      action: req.action,
      model,
      price: req.price,
      remaining: shares,
      ahead: state.ahead,
      lastSize: state.lastSize,
      reserved,
      evaluatedTo: time,
      expiresAt,
    },
  };
}

/** Whether stepResting would change `r`: a snapshot it has not seen, or (caught up) its expiry or its market's end reached. */
export function restingDue(r: RestingOrder, market: Market, series: MarketSeries | undefined, at: number, caughtUp: boolean): boolean {
  if (series && series.length > 0 && series.time[series.length - 1]! > r.evaluatedTo) return true;
  return caughtUp && ((r.expiresAt !== undefined && at >= r.expiresAt) || at >= market.end_time);
}

/** What stepping a resting order did: whether it changed, whether it closed, the position it touched. */
export interface Stepped {
  changed: boolean;
  closed: boolean;
  touched: PaperPosition[];
}

/**
 * Use to step resting order `r` (its order line `line`, both changed in place) on every snapshot
 * of `series` after `r.evaluatedTo` and before its expiry, in time order, with the fill model it
 * was posted under; each fill is booked on `book`. `caughtUp`: the series holds every snapshot
 * visible at `at`; then an order past its expiry expires and one whose market has ended
 * (`at >= end_time`) is cancelled (`market_end`), after its last snapshot was stepped.
 */
export function stepResting(book: PaperBook, r: RestingOrder, line: PaperOrderLine, market: Market, series: MarketSeries | undefined, schedule: FeeSchedule, at: number, caughtUp: boolean): Stepped {
  const out: Stepped = { changed: false, closed: false, touched: [] };
  const state: MakerOrderState = { action: r.action, price: r.price, remaining: r.remaining, ahead: r.ahead, lastSize: r.lastSize };
  for (let i = 0; series && i < series.length; i++) {
    const t = series.time[i]!;
    if (t <= r.evaluatedTo) continue;
    if (r.expiresAt !== undefined && t >= r.expiresAt) break;
    const filled = makerStep(state, series.book(i, r.side), r.model);
    r.evaluatedTo = t;
    r.ahead = state.ahead;
    r.lastSize = state.lastSize;
    out.changed = true;
    if (filled > 0) {
      out.touched.push(bookFill(book, r, line, filled, t, schedule));
      r.remaining = state.remaining;
      if (!(r.remaining > 0)) {
        closeResting(book, r, line, 'filled');
        out.closed = true;
        return out;
      }
    }
  }
  if (!caughtUp) return out;
  const reason = r.expiresAt !== undefined && at >= r.expiresAt ? 'expired' : at >= market.end_time ? 'market_end' : undefined;
  if (reason) {
    closeResting(book, r, line, reason);
    out.changed = true;
    out.closed = true;
  }
  return out;
}

/**
 * Use when resting order `r` stops resting: what a buy still holds reserved goes back to cash and
 * its line's status says why (`filled`; `cancelled`, `expired`; `market_end` is `cancelled` with
 * that reason).
 */
export function closeResting(book: PaperBook, r: RestingOrder, line: PaperOrderLine, why: 'filled' | CloseReason): void {
  book.money.cash += r.reserved;
  r.reserved = 0;
  line.status = why === 'filled' ? 'filled' : why === 'expired' ? 'expired' : 'cancelled';
  if (why === 'market_end') line.reason = 'market_end';
  line.cash_after = round6(book.money.cash);
}

/** Books a fill of `c` shares at the order's price on snapshot time `t`: cash, fee, rebate, position, line. */
function bookFill(book: PaperBook, r: RestingOrder, line: PaperOrderLine, c: number, t: number, schedule: FeeSchedule): PaperPosition {
  const P = r.price;
  const buy = r.action === 'buy';
  // The engine's own maker fee: none where the schedule is taker only, else a taker's on the same
  // fill; the rebate (rebate_rate × a taker's USDC fee) either way.
  const f = makerFee(schedule, r.action, c, P);
  const inShares = f.feeShares > 0;
  const notional = c * P;
  const money = book.money;
  let position = book.positions.find((p) => p.marketId === r.marketId && p.side === r.side);
  if (!position) {
    position = { marketId: r.marketId, side: r.side, shares: 0, cost: 0 };
    book.positions.push(position);
  }
  if (buy) {
    const left = makerBuyReserve(schedule, r.remaining - c, P);
    money.cash += r.reserved - left - notional - (inShares ? 0 : f.fee);
    r.reserved = left;
    position.shares = addShares(position.shares, c - f.feeShares);
    position.cost += notional;
  } else {
    const closedCost = (position.cost / position.shares) * c;
    money.cash += notional - f.fee;
    money.realizedPnl += notional - closedCost;
    position.shares = addShares(position.shares, -c);
    position.cost = position.shares > 0 ? position.cost - closedCost : 0;
  }
  // Earned now, paid into cash at the market's end (settleResolved), as the backtest pays it.
  if (f.rebate > 0) book.pendingRebates.set(r.marketId, (book.pendingRebates.get(r.marketId) ?? 0) + f.rebate);
  money.fees += f.fee;
  money.rebates += f.rebate;
  line.shares = round6(line.shares + c);
  line.vwap = P;
  line.fee = round5(line.fee + f.fee);
  line.fee_shares = round5(line.fee_shares + f.feeShares);
  line.rebate = round5(line.rebate + f.rebate);
  line.filled_at = t;
  line.depth = true;
  line.levels += 1;
  line.cash_after = round6(money.cash);
  return position;
}
