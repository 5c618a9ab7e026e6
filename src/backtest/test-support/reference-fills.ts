// The reference backtest's plain pieces, written from docs/backtest-model.md alone: rounding, the
// rule fields, conditions, and the walk of one order down a book.
import type { Market, OrderbookLevel, Snapshot } from '../../domain/market.js';

/** A rule's condition: `field op value`. */
export interface RefCondition {
  field: string;
  op: '<' | '<=' | '>' | '>=' | '==';
  value: number;
}

// Decimal rounding, half away from zero: a decimal tie such as 0.0175 × 10^5 lands a hair off .5 in
// binary, so a 1e-7 unit of slack counts it as the tie it stands for.
export const round = (x: number, d: number): number => {
  const f = 10 ** d;
  const r = (Math.sign(x) * Math.round(Math.abs(x) * f + 1e-7)) / f;
  return Object.is(r, -0) ? 0 : r;
};
export const r6 = (x: number): number => round(x, 6);
export const r5 = (x: number): number => round(x, 5);

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
  feeRaw: number;
  levels: number;
  depth: boolean;
}

/** Walks `levels` (already in walking order) for an order of n shares under a limit and, for buys, the cash. */
export function walk(levels: OrderbookLevel[], n: number, buy: boolean, limit: number, cash: number, rate: number): Fill {
  let remaining = n;
  let cashLeft = cash;
  const fill: Fill = { shares: 0, cost: 0, feeRaw: 0, levels: 0, depth: true };
  for (const l of levels) {
    if (remaining <= 1e-12) break;
    if (buy ? l.price > limit : l.price < limit) break;
    let take = Math.min(remaining, l.size);
    let cashBound = false;
    if (buy) {
      const perShare = l.price + rate * l.price * (1 - l.price);
      const affordable = Math.floor((cashLeft / perShare) * 100 + 1e-9) / 100;
      if (affordable < take) {
        take = affordable;
        cashBound = true;
      }
    }
    if (take > 0) {
      fill.shares += take;
      fill.cost += take * l.price;
      fill.feeRaw += take * rate * l.price * (1 - l.price);
      fill.levels++;
      remaining -= take;
      if (buy) cashLeft -= take * l.price + take * rate * l.price * (1 - l.price);
    }
    if (cashBound) break;
  }
  return fill;
}

