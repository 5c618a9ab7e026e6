// Fills against a book (docs/backtest-model.md "Orders and fills"): walk the levels best first, take what the
// order, the level, the limit and (for buys) the cash allow, drop the rest (fill-and-kill).
import type { BookLevels } from '../domain/market-series.js';
import { floorHundredths } from './rounding.js';

/** What a walk took: shares, their cost (sum of price × shares), the fee before rounding, levels used. */
export interface Walk {
  shares: number;
  notional: number;
  rawFee: number;
  levels: number;
}

// Shares left below this count as filled: level sizes such as 3.3 + 6.7 leave a binary 1e-16.
const SHARE_EPSILON = 1e-9;

/**
 * Use for a buy: asks lowest first, stopping above `maxPrice`; at each level only as many shares
 * as `cash` (less what earlier levels spent, fees included) pays for, rounded down to 0.01.
 */
export function walkBuy(asks: BookLevels, want: number, maxPrice: number, cash: number, feeRate: number): Walk {
  let remaining = want;
  let budget = cash;
  const w: Walk = { shares: 0, notional: 0, rawFee: 0, levels: 0 };
  for (let k = 0; k < asks.length && remaining > SHARE_EPSILON; k++) {
    const p = asks.prices[k]!;
    if (p > maxPrice) break;
    const feePerShare = feeRate * p * (1 - p);
    const unit = p + feePerShare;
    let q = Math.min(remaining, asks.sizes[k]!);
    if (unit > 0) q = Math.min(q, floorHundredths(budget / unit));
    if (!(q > 0)) continue;
    w.shares += q;
    w.notional += p * q;
    w.rawFee += q * feePerShare;
    w.levels += 1;
    budget -= q * unit;
    remaining -= q;
  }
  return w;
}

/** Use for a sell of at most `want` shares (the caller caps it at the position): bids highest first, stopping below `minPrice`. */
export function walkSell(bids: BookLevels, want: number, minPrice: number, feeRate: number): Walk {
  let remaining = want;
  const w: Walk = { shares: 0, notional: 0, rawFee: 0, levels: 0 };
  for (let k = 0; k < bids.length && remaining > SHARE_EPSILON; k++) {
    const p = bids.prices[k]!;
    if (p < minPrice) break;
    const q = Math.min(remaining, bids.sizes[k]!);
    if (!(q > 0)) continue;
    w.shares += q;
    w.notional += p * q;
    w.rawFee += q * feeRate * p * (1 - p);
    w.levels += 1;
    remaining -= q;
  }
  return w;
}

/** The no-book fallback: one level at the side's quoted probability, as deep as any order. */
export function quoteLevel(price: number): BookLevels {
  return { length: 1, prices: [price], sizes: [Infinity] };
}
