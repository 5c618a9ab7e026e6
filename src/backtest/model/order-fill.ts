// One order executed on one snapshot (docs/backtest-model.md "Orders and fills", "Fees"): the book
// or the quote, the walk, the fee rounding and the cash it leaves, plus the trade line it reports.
// The backtest's MarketRun and the server's paper accounts (src/paper) both execute through it, so
// the model is written once.
import type { MarketSeries, OutcomeSide } from '../../domain/market-series.js';
import type { FeeSchedule } from './fee-model.js';
import { quoteLevel, walkBuy, walkSell } from './fills.js';
import type { Trade } from './result.js';
import { round6 } from './rounding.js';

/** What an order asks for: `limit` is max_price for buys, min_price for sells. */
export interface OrderTicket {
  action: 'buy' | 'sell';
  side: OutcomeSide;
  shares: number;
  limit: number;
}

/**
 * A fill of more than 0 shares matched: `notional` = sum of price × shares, `fee` (USDC, or the
 * USDC value of `feeShares`) rounded to 5 decimals; `received` = the shares a buy adds to the
 * position (`shares − feeShares`) or a sell takes from it (`shares`).
 */
export interface Fill {
  shares: number;
  notional: number;
  fee: number;
  feeShares: number;
  received: number;
  levels: number;
  /** False when the snapshot had no book for the side (filled at the quote). */
  depth: boolean;
  cashAfter: number;
}

// A position left this close to 0 by binary arithmetic (10 − 3.3 − 6.7) is 0.
const POSITION_EPSILON = 1e-9;

/**
 * Use to execute `t` on snapshot `e` of `series` with `cash` available and `position` shares of
 * the side held (sells are capped at it). Undefined when the order fills nothing: 0 shares, or no
 * book under the `reject` rule.
 */
export function fillOrder(
  series: MarketSeries,
  e: number,
  t: OrderTicket,
  cash: number,
  position: number,
  fees: FeeSchedule,
  noBook: 'quote' | 'reject' = 'quote',
): Fill | undefined {
  const book = series.book(e, t.side);
  if (!book && noBook === 'reject') return undefined;
  const buy = t.action === 'buy';
  const levels = book ? (buy ? book.asks : book.bids) : quoteLevel(t.side === 'up' ? series.priceUp[e]! : series.priceDown[e]!);
  const walk = buy ? walkBuy(levels, t.shares, t.limit, cash, fees) : walkSell(levels, Math.min(t.shares, position), t.limit, fees);
  if (!(walk.shares > 0)) return undefined;
  // A fee paid in shares is not paid in cash: the buyer receives fewer shares.
  const cashFee = walk.feeShares > 0 ? 0 : walk.fee;
  const cashAfter = buy ? cash - (walk.notional + cashFee) : cash + (walk.notional - cashFee);
  return {
    shares: walk.shares,
    notional: walk.notional,
    fee: walk.fee,
    feeShares: walk.feeShares,
    received: addShares(walk.shares, -walk.feeShares),
    levels: walk.levels,
    depth: book !== undefined,
    cashAfter,
  };
}

/** Use for the trade line of a fill, with the model's rounding. */
export function tradeLine(marketId: string, t: OrderTicket, decidedAt: number, filledAt: number, fill: Fill): Trade {
  return {
    market_id: marketId,
    side: t.side,
    action: t.action,
    decided_at: decidedAt,
    filled_at: filledAt,
    shares_requested: round6(t.shares),
    shares: round6(fill.shares),
    vwap: round6(fill.notional / fill.shares),
    fee: fill.fee,
    cash_after: round6(fill.cashAfter),
    depth: fill.depth,
    levels: fill.levels,
    fee_shares: fill.feeShares,
  };
}

/** Use for a settlement line: `shares` of `side` paid `payout` (1 or 0) at the market's end. */
export function settleLine(marketId: string, side: OutcomeSide, shares: number, payout: number, end: number, cashAfter: number): Trade {
  return {
    market_id: marketId,
    side,
    action: 'settle',
    decided_at: end,
    filled_at: end,
    shares_requested: round6(shares),
    shares: round6(shares),
    vwap: payout,
    fee: 0,
    cash_after: round6(cashAfter),
    depth: true,
    levels: 0,
    fee_shares: 0,
  };
}

/** What one share of `side` pays when the market's winner is `winner`. */
export function payoutOf(winner: 'Up' | 'Down', side: OutcomeSide): number {
  return (winner === 'Up') === (side === 'up') ? 1 : 0;
}

/** Use for every change of a position: `position + delta`, with binary residue (28.65 − 28.65) made 0. */
export function addShares(position: number, delta: number): number {
  const v = position + delta;
  return Math.abs(v) < POSITION_EPSILON ? 0 : v;
}
