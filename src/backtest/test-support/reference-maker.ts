// The reference's maker orders, written from BACKTEST.md "Maker orders" and the decisions of
// docs/backtest-model.md alone (not from the engine's maker-fill.ts): the size at P, the post-only
// test, one snapshot of each fill model, the maker fee and rebate.
import type { OrderbookLevel, OrderbookSide } from '../../domain/market.js';
import { refLevelFee, type RefSchedule } from './reference-fees.js';
import { r5, round } from './reference-round.js';

/** One maker order as the reference tracks it. */
export interface RefMakerOrder {
  buy: boolean;
  price: number;
  left: number;
  /** Queue ahead; undefined until the size at P has been seen. */
  ahead: number | undefined;
  /** The size at P last seen. */
  seen: number | undefined;
}

const same = (a: number, b: number) => Math.abs(a - b) < 1e-9;

/** A buy rests on the bids, a sell on the asks. */
function ownSide(o: Pick<RefMakerOrder, 'buy'>, book: OrderbookSide): OrderbookLevel[] {
  return o.buy ? book.bids : book.asks;
}

/**
 * The size at P: the level at P; 0 when no level is at P but a worse one is shown; undefined when
 * only better levels are shown (P beyond the recorded depth) or none.
 */
function refSizeAtP(o: Pick<RefMakerOrder, 'buy' | 'price'>, book: OrderbookSide): number | undefined {
  const levels = ownSide(o, book);
  const at = levels.find((l) => same(l.price, o.price));
  if (at) return at.size;
  const worse = levels.some((l) => (o.buy ? l.price < o.price : l.price > o.price));
  return worse ? 0 : undefined;
}

/** Would trade at once: a buy at P against the best ask at or under P, a sell against the best bid at or over P. */
export function refCrosses(o: Pick<RefMakerOrder, 'buy' | 'price'>, book: OrderbookSide): boolean {
  if (o.buy) return book.asks.length > 0 && Math.min(...book.asks.map((l) => l.price)) <= o.price + 1e-9;
  return book.bids.length > 0 && Math.max(...book.bids.map((l) => l.price)) >= o.price - 1e-9;
}

/** The order joins its level when it goes live: ahead = the size at P (when known). */
export function refJoin(o: RefMakerOrder, book: OrderbookSide | undefined): void {
  o.ahead = undefined;
  o.seen = undefined;
  if (!book) return;
  const size = refSizeAtP(o, book);
  if (size !== undefined) {
    o.ahead = size;
    o.seen = size;
  }
}

/** The shares order `o` fills on a later snapshot with `book` under `model`; `o.left` is reduced. */
export function refMakerFill(o: RefMakerOrder, book: OrderbookSide | undefined, model: 'cross' | 'queue'): number {
  if (!book || o.left <= 0) return 0;
  let fill = 0;
  if (refCrosses(o, book)) {
    fill = o.left;
  } else if (model === 'queue') {
    const size = refSizeAtP(o, book);
    if (size === undefined) return 0;
    if (o.seen === undefined) {
      // First sight of the level: the order stands behind all of it.
      o.seen = size;
      o.ahead = size;
      return 0;
    }
    const fall = round(o.seen - size, 6);
    o.seen = size;
    if (fall <= 0) return 0;
    const past = round(fall - o.ahead!, 6);
    o.ahead = Math.max(0, o.ahead! - fall);
    if (past > 0) fill = Math.min(past, o.left);
  }
  o.left = o.left - fill < 1e-9 ? 0 : o.left - fill;
  return fill;
}

/** A maker fill of q at P: the fee (nothing where the schedule is taker only, else the taker formula), fee shares, and the rebate. */
export function refMakerFee(s: RefSchedule, buy: boolean, q: number, p: number): { fee: number; feeShares: number; rebate: number } {
  const f = refLevelFee(s, q, p);
  const paidInShares = buy && s.buyFeeIn === 'shares';
  const usdc = paidInShares ? r5(f * p) : f;
  const rebate = r5(s.rebateRate * usdc);
  if (s.takerOnly) return { fee: 0, feeShares: 0, rebate };
  return { fee: usdc, feeShares: paidInShares ? f : 0, rebate };
}

/** What a resting buy of n at P holds: P × n, plus the fee where makers pay it in USDC. */
export function refBuyReserve(s: RefSchedule, n: number, p: number): number {
  return p * n + (s.takerOnly || s.buyFeeIn === 'shares' ? 0 : refLevelFee(s, n, p));
}
