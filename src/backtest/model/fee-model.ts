// The fee seam (docs/backtest-model.md "Fees"): a FeeModel gives each market its schedule, and
// takerFee prices one level of a taker fill by it. The backtest engine and paper trading are
// given a FeeModel (as hftbacktest's engine is given its FeeModel): the market's own schedule,
// else its era's; or one flat rate (--fee-rate); or none (--fees none).
import { FLAT_FEES_FROM, USDC_FEES_FROM, type FeeSchedule } from '../../domain/fee-schedule.js';
import type { Market } from '../../domain/market.js';
import { round5 } from './rounding.js';

export type { FeeSchedule } from '../../domain/fee-schedule.js';

/** What charges fees: the schedule a market's fills pay. */
export interface FeeModel {
  scheduleFor(market: FeeMarket): FeeSchedule;
}

/** What a fee model reads of a market. */
export type FeeMarket = Pick<Market, 'market_type' | 'start_time' | 'fee_schedule'>;

const schedule = (rate: number, exponent: number, buyFeeIn: 'usdc' | 'shares', takerOnly = false, rebate = 0): FeeSchedule =>
  Object.freeze({ rate, exponent, taker_only: takerOnly, rebate_rate: rebate, buy_fee_in: buyFeeIn });

const SHORT_EARLY = schedule(0.25, 2, 'shares');
const LONG_EARLY = schedule(0, 1, 'shares');
const FLAT = schedule(0.07, 1, 'shares');
const CURRENT = schedule(0.07, 1, 'usdc', true, 0.2);
const ZERO = schedule(0, 1, 'usdc');

/** Use for a market without a stored schedule: its era's, by start_time and type. */
export function eraSchedule(market: Pick<Market, 'market_type' | 'start_time'>): FeeSchedule {
  if (market.start_time >= USDC_FEES_FROM) return CURRENT;
  if (market.start_time >= FLAT_FEES_FROM) return FLAT;
  return market.market_type === '5m' || market.market_type === '15m' ? SHORT_EARLY : LONG_EARLY;
}

/** The default: each market's stored schedule, else its era's. */
export const MARKET_FEES: FeeModel = Object.freeze({ scheduleFor: (m: FeeMarket) => m.fee_schedule ?? eraSchedule(m) });

/** No fees at all (--fees none). */
export const NO_FEES: FeeModel = Object.freeze({ scheduleFor: () => ZERO });

/** Version 1's flat rate for every market (--fee-rate R): R × p × (1 − p) a share, in USDC. */
export function flatFees(rate: number): FeeModel {
  const s = schedule(rate, 1, 'usdc');
  return Object.freeze({ scheduleFor: () => s });
}

// An F this far under 0.00001 (binary residue of a decimal product) still counts as 0.00001.
const FLOOR_SLACK = 1e-12;

/**
 * Use per level filled: the fee of a taker fill of `shares` at `price`, in the schedule's unit
 * (shares for a buy where buys pay in shares, else USDC), rounded to 5 decimals; under 0.00001 it is 0.
 */
export function takerFee(s: FeeSchedule, shares: number, price: number): number {
  if (s.rate === 0) return 0;
  const raw = shares * s.rate * Math.pow(price * (1 - price), s.exponent);
  return raw < 0.00001 - FLOOR_SLACK ? 0 : round5(raw);
}

/**
 * The cash a maker buy of `shares` at `price` holds while it rests (the backtest and paper trading
 * alike): its cost and, where makers pay fees in USDC, a taker's fee on it.
 */
export function makerBuyReserve(s: FeeSchedule, shares: number, price: number): number {
  if (!(shares > 0)) return 0;
  const feeInCash = !s.taker_only && s.buy_fee_in === 'usdc';
  return shares * price + (feeInCash ? takerFee(s, shares, price) : 0);
}

/** What a maker fill of `shares` at `price` pays and earns (docs/backtest-model.md "Maker orders"). */
export interface MakerFee {
  /** USDC (or, paid in shares, the USDC value of `feeShares`); 0 where the schedule is taker only. */
  fee: number;
  /** Shares a maker buy gives up where buys pay in shares and makers pay; else 0. */
  feeShares: number;
  /** USDC earned back: rebate_rate × the USDC fee a taker would have paid on the same fill, to 5 decimals. */
  rebate: number;
}

/**
 * Use per maker fill: nothing to pay where the schedule is taker only, else the taker formula
 * (msnap decision: no public schedule names another maker fee); the rebate is earned either way.
 */
export function makerFee(s: FeeSchedule, action: 'buy' | 'sell', shares: number, price: number): MakerFee {
  const f = takerFee(s, shares, price);
  const inShares = action === 'buy' && s.buy_fee_in === 'shares';
  const usdc = inShares ? round5(f * price) : f;
  const rebate = s.rebate_rate > 0 ? round5(s.rebate_rate * usdc) : 0;
  if (s.taker_only) return { fee: 0, feeShares: 0, rebate };
  return { fee: usdc, feeShares: inShares ? f : 0, rebate };
}
