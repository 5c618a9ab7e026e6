// The two fill models of a resting (maker) limit order (docs/backtest-model.md "Maker orders"), as
// pure functions over one side's book: `cross` (fills only when the book trades through the
// order's price) and `queue` (joins the back of its level and fills as the size ahead of it is
// taken from the front, hftbacktest's queue model with every fall taken from the front). The
// backtest and paper trading both hold resting orders through these, so the model is written once.
import type { BookLevels, SideBook } from '../domain/market-series.js';
import { round6 } from './rounding.js';

/** Which bound a resting order's fills take: `cross` (conservative, the default) or `queue` (optimistic). */
export type MakerFillModel = 'cross' | 'queue';

/** The fill models by name, in the order --help lists them. */
export const MAKER_FILL_MODELS: readonly MakerFillModel[] = ['cross', 'queue'];

/** Use to hold one resting order between snapshots; makerGoLive and makerStep update it. */
export interface MakerOrderState {
  action: 'buy' | 'sell';
  /** The limit price P: a buy rests on the bids at P, a sell on the asks. */
  price: number;
  /** Shares still resting. */
  remaining: number;
  /** `queue`: shares ahead of the order at P (Infinity until the size at P has been seen). */
  ahead: number;
  /** `queue`: the size at P last seen on the order's side, undefined while it has not been seen. */
  lastSize: number | undefined;
}

// Book prices and strategy prices (a bid plus an offset) meet within this much of each other.
const PRICE_EPSILON = 1e-9;
// Shares left this close to 0 by binary arithmetic count as filled.
const SHARE_EPSILON = 1e-9;

/** Use to make a resting order's state before it goes live. */
export function makerOrder(action: 'buy' | 'sell', price: number, shares: number): MakerOrderState {
  return { action, price, remaining: shares, ahead: Infinity, lastSize: undefined };
}

/**
 * Use when the order becomes live (after the latency): post-only, so an order that would trade
 * against `book` at once is `crosses` (rejected); else it is `live`, and under `queue` it joins the
 * back of its level (`ahead` = the size at P now; unknown when P lies beyond the recorded depth or
 * the snapshot has no book, then `ahead` is set from the first size seen). A snapshot without a
 * book cannot cross (msnap decision).
 */
export function makerGoLive(order: MakerOrderState, book: SideBook | undefined, model: MakerFillModel): 'crosses' | 'live' {
  if (book && crosses(order, book)) return 'crosses';
  order.ahead = Infinity;
  order.lastSize = undefined;
  if (model === 'queue' && book) see(order, sizeAt(order, book));
  return 'live';
}

/**
 * Use on each snapshot after the one the order went live on: the shares filled at P (0 when none),
 * with `remaining` (and the queue) updated. A cross fills all that remains (both models); under
 * `queue` a fall of the size at P is taken from `ahead` first and what passes 0 fills the order.
 * A snapshot without a book fills nothing and changes nothing (msnap decision).
 */
export function makerStep(order: MakerOrderState, book: SideBook | undefined, model: MakerFillModel): number {
  if (!book || !(order.remaining > SHARE_EPSILON)) return 0;
  if (crosses(order, book)) return take(order, order.remaining);
  if (model === 'cross') return 0;
  const size = sizeAt(order, book);
  if (size === undefined) return 0;
  if (order.lastSize === undefined) {
    see(order, size);
    return 0;
  }
  // Sizes are decimals: 10.3 − 7.1 is 3.2, not a binary hair above it.
  const fall = round6(order.lastSize - size);
  order.lastSize = size;
  if (!(fall > 0)) return 0;
  const passed = fall - order.ahead;
  order.ahead = Math.max(0, order.ahead - fall);
  return passed > 0 ? take(order, Math.min(round6(passed), order.remaining)) : 0;
}

/** True when a buy at P meets an ask at or below P, or a sell at P a bid at or above P. */
function crosses(order: MakerOrderState, book: SideBook): boolean {
  if (order.action === 'buy') return book.asks.length > 0 && book.asks.prices[0]! <= order.price + PRICE_EPSILON;
  return book.bids.length > 0 && book.bids.prices[0]! >= order.price - PRICE_EPSILON;
}

/**
 * The size at P on the order's side (bids for a buy, asks for a sell): the level's size; 0 when no
 * level is at P but a worse one shows (the level is empty); undefined when every shown level is
 * better than P (beyond the recorded depth, or an empty side).
 */
export function sizeAt(order: Pick<MakerOrderState, 'action' | 'price'>, book: SideBook): number | undefined {
  const levels: BookLevels = order.action === 'buy' ? book.bids : book.asks;
  const P = order.price;
  for (let k = 0; k < levels.length; k++) {
    const p = levels.prices[k]!;
    if (Math.abs(p - P) <= PRICE_EPSILON) return levels.sizes[k]!;
    const worse = order.action === 'buy' ? p < P : p > P;
    if (worse) return 0;
  }
  return undefined;
}

function see(order: MakerOrderState, size: number | undefined): void {
  if (size === undefined) return;
  order.lastSize = size;
  order.ahead = size;
}

function take(order: MakerOrderState, shares: number): number {
  const left = order.remaining - shares;
  order.remaining = left < SHARE_EPSILON ? 0 : left;
  return shares;
}
