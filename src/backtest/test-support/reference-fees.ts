// The reference's fees, written from BACKTEST.md "Fee schedule per market" alone (not from the
// engine's fee-model.ts): the era table, the per-level fee and its floor, the unit a buy pays in.
import type { Market } from '../../domain/market.js';
import { r5 } from './reference-round.js';

export interface RefSchedule {
  rate: number;
  exponent: number;
  buyFeeIn: 'usdc' | 'shares';
  /** Makers pay nothing. */
  takerOnly: boolean;
  /** A maker earns this share of the taker fee of its fill. */
  rebateRate: number;
}

const plain = (rate: number, exponent: number, buyFeeIn: 'usdc' | 'shares'): RefSchedule => ({ rate, exponent, buyFeeIn, takerOnly: false, rebateRate: 0 });

/** The era table: by start_time (UTC) and type. */
function refEraSchedule(m: Pick<Market, 'market_type' | 'start_time'>): RefSchedule {
  const short = m.market_type === '5m' || m.market_type === '15m';
  if (m.start_time < Date.parse('2026-03-30T00:00:00Z')) return short ? plain(0.25, 2, 'shares') : plain(0, 1, 'shares');
  if (m.start_time < Date.parse('2026-04-28T00:00:00Z')) return plain(0.07, 1, 'shares');
  return { rate: 0.07, exponent: 1, buyFeeIn: 'usdc', takerOnly: true, rebateRate: 0.2 };
}

/** What a run charges a market: --fees none, else --fee-rate (USDC, exponent 1), else the stored schedule, else the era's. */
export function refScheduleOf(m: Market, fees: 'taker' | 'none', feeRate: number | undefined): RefSchedule {
  if (fees === 'none') return plain(0, 1, 'usdc');
  if (feeRate !== undefined) return plain(feeRate, 1, 'usdc');
  const st = m.fee_schedule;
  if (st) return { rate: st.rate, exponent: st.exponent, buyFeeIn: st.buy_fee_in, takerOnly: st.taker_only, rebateRate: st.rebate_rate };
  return refEraSchedule(m);
}

/** F of one level: C × rate × (p × (1 − p))^exponent to 5 decimals; an F under 0.00001 is 0. */
export function refLevelFee(s: RefSchedule, c: number, p: number): number {
  let f = c * s.rate;
  for (let i = 0; i < s.exponent; i++) f *= p * (1 - p);
  if (!Number.isInteger(s.exponent)) f = c * s.rate * (p * (1 - p)) ** s.exponent;
  return f < 0.00001 - 1e-12 ? 0 : r5(f);
}
