// Fills against a book (docs/backtest-model.md "Orders and fills", "Fees"): walk the levels best first, take what the
// order, the level, the limit and (for buys) the cash allow, drop the rest (fill-and-kill). Each
// level's fee is priced and rounded on its own (version 2's rule).
import type { BookLevels } from '../../domain/market-series.js';
import { takerFee, type FeeSchedule } from './fee-model.js';
import { floorHundredths, round5 } from './rounding.js';

/**
 * What a walk took: shares matched, their cost (sum of price × shares), levels used, and the fee:
 * `fee` in USDC (for a buy paying in shares, the USDC value of `feeShares`), `feeShares` the
 * shares a buy paying in shares gives up (0 otherwise). Fees are sums of per-level 5-decimal figures.
 */
export interface Walk {
  shares: number;
  notional: number;
  fee: number;
  feeShares: number;
  levels: number;
}

// Shares left below this count as filled: level sizes such as 3.3 + 6.7 leave a binary 1e-16.
const SHARE_EPSILON = 1e-9;
// Cash spent this far past the budget is binary residue, not an overdraft.
const CASH_EPSILON = 1e-9;

const emptyWalk = (): Walk => ({ shares: 0, notional: 0, fee: 0, feeShares: 0, levels: 0 });

/**
 * Use for a buy: asks lowest first, stopping above `maxPrice`; at each level only as many shares
 * as `cash` (less what earlier levels spent, fees in USDC included) pays for, rounded down to 0.01.
 */
export function walkBuy(asks: BookLevels, want: number, maxPrice: number, cash: number, fees: FeeSchedule): Walk {
  const inShares = fees.buy_fee_in === 'shares';
  let remaining = want;
  let budget = cash;
  const w = emptyWalk();
  for (let k = 0; k < asks.length && remaining > SHARE_EPSILON; k++) {
    const p = asks.prices[k]!;
    if (p > maxPrice) break;
    const q = affordable(fees, p, Math.min(remaining, asks.sizes[k]!), budget);
    const f = takerFee(fees, q, p);
    if (!(q > 0)) continue;
    w.shares += q;
    w.notional += p * q;
    if (inShares) {
      w.feeShares += f;
      w.fee += round5(f * p);
    } else {
      w.fee += f;
    }
    budget -= p * q + (inShares ? 0 : f);
    w.levels += 1;
    remaining -= q;
  }
  return rounded(w);
}

/**
 * The shares a buy takes at `p`: `cap` when `budget` pays for them and their rounded fee, else the
 * most multiple of 0.01 it pays for, found from the figure with the fee unrounded (the level's
 * rounding moves it a cent at most).
 */
function affordable(fees: FeeSchedule, p: number, cap: number, budget: number): number {
  const inShares = fees.buy_fee_in === 'shares';
  const cost = (q: number): number => p * q + (inShares ? 0 : takerFee(fees, q, p));
  if (cost(cap) <= budget + CASH_EPSILON) return cap;
  const unit = inShares ? p : p + fees.rate * Math.pow(p * (1 - p), fees.exponent);
  let q = Math.min(floorHundredths(budget / unit), floorHundredths(cap));
  while (q > 0 && cost(q) > budget + CASH_EPSILON) q = floorHundredths(q - 0.01);
  while (q + 0.01 <= cap && cost(q + 0.01) <= budget + CASH_EPSILON) q = floorHundredths(q + 0.01);
  return q;
}

/** Use for a sell of at most `want` shares (the caller caps it at the position): bids highest first, stopping below `minPrice`; the fee is USDC. */
export function walkSell(bids: BookLevels, want: number, minPrice: number, fees: FeeSchedule): Walk {
  let remaining = want;
  const w = emptyWalk();
  for (let k = 0; k < bids.length && remaining > SHARE_EPSILON; k++) {
    const p = bids.prices[k]!;
    if (p < minPrice) break;
    const q = Math.min(remaining, bids.sizes[k]!);
    if (!(q > 0)) continue;
    w.shares += q;
    w.notional += p * q;
    w.fee += takerFee(fees, q, p);
    w.levels += 1;
    remaining -= q;
  }
  return rounded(w);
}

/** Sums of 5-decimal figures, kept free of binary residue. */
function rounded(w: Walk): Walk {
  w.fee = round5(w.fee);
  w.feeShares = round5(w.feeShares);
  return w;
}

/** The no-book fallback: one level at the side's quoted probability, as deep as any order. */
export function quoteLevel(price: number): BookLevels {
  return { length: 1, prices: [price], sizes: [Infinity] };
}
