// The reference backtest's plain pieces, written from docs/backtest-model.md alone: rounding, the
// rule fields, conditions, and the walk of one order down a book.
import type { Market, OrderbookLevel, Snapshot } from '../../domain/market.js';
import { refLevelFee, type RefSchedule } from './reference-fees.js';
import { r5 } from './reference-round.js';

/** A rule's condition: `field op value`. */
export interface RefCondition {
  field: string;
  op: '<' | '<=' | '>' | '>=' | '==';
  value: number;
}

export { r5, r6, round } from './reference-round.js';

export function bookOf(s: Snapshot, side: 'up' | 'down') {
  return side === 'up' ? s.orderbook_up : s.orderbook_down;
}

export function fieldValue(f: string, s: Snapshot, m: Market, first: Snapshot, side: 'up' | 'down'): number | undefined {
  switch (f) {
    case 'price':
      return s.price;
    case 'price_up':
      return s.price_up;
    case 'price_down':
      return s.price_down;
    case 'side_price':
      return side === 'up' ? s.price_up : s.price_down;
    case 'elapsed_ms':
      return s.time - m.start_time;
    case 'remaining_ms':
      return m.end_time - s.time;
    case 'change':
      return s.price / (m.price_start ?? first.price) - 1;
    case 'bid': {
      const b = bookOf(s, side);
      if (!b || b.bids.length === 0) return undefined;
      return Math.max(...b.bids.map((l) => l.price));
    }
    case 'ask': {
      const b = bookOf(s, side);
      if (!b || b.asks.length === 0) return undefined;
      return Math.min(...b.asks.map((l) => l.price));
    }
  }
  throw new Error(`unknown field ${f}`);
}

export function holds(c: RefCondition, v: number | undefined): boolean {
  if (v === undefined) return false;
  switch (c.op) {
    case '<':
      return v < c.value;
    case '<=':
      return v <= c.value;
    case '>':
      return v > c.value;
    case '>=':
      return v >= c.value;
    case '==':
      return v === c.value;
  }
}

export interface Fill {
  shares: number;
  cost: number; // sum of price * shares
  /** The fee in USDC: per-level 5-decimal fees summed, or (paid in shares) their per-level USDC values F × p summed. */
  fee: number;
  /** Shares a buy gave up as its fee where buys pay in shares. */
  feeShares: number;
  levels: number;
  depth: boolean;
}

/** Walks `levels` (already in walking order) for an order of n shares under a limit and, for buys, the cash. */
export function walk(levels: OrderbookLevel[], n: number, buy: boolean, limit: number, cash: number, fees: RefSchedule): Fill {
  let remaining = n;
  let cashLeft = cash;
  const inShares = buy && fees.buyFeeIn === 'shares';
  const cashCost = (q: number, p: number) => q * p + (inShares ? 0 : refLevelFee(fees, q, p));
  const fill: Fill = { shares: 0, cost: 0, fee: 0, feeShares: 0, levels: 0, depth: true };
  for (const l of levels) {
    if (remaining <= 1e-12) break;
    if (buy ? l.price > limit : l.price < limit) break;
    let take = Math.min(remaining, l.size);
    let cashBound = false;
    if (buy && cashCost(take, l.price) > cashLeft + 1e-9) {
      // The most whole cents of shares the cash pays for, price and this level's rounded fee.
      take = Math.floor((cashLeft / l.price) * 100 + 1e-9) / 100;
      while (take > 0 && cashCost(take, l.price) > cashLeft + 1e-9) take = Math.round(take * 100 - 1) / 100;
      cashBound = true;
    }
    if (take > 0) {
      const f = refLevelFee(fees, take, l.price);
      fill.shares += take;
      fill.cost += take * l.price;
      if (inShares) {
        fill.feeShares += f;
        fill.fee += r5(f * l.price);
      } else {
        fill.fee += f;
      }
      fill.levels++;
      remaining -= take;
      if (buy) cashLeft -= cashCost(take, l.price);
    }
    if (cashBound) break;
  }
  fill.fee = r5(fill.fee);
  fill.feeShares = r5(fill.feeShares);
  return fill;
}
