// A market's fee schedule (BACKTEST.md "Fee schedule per market"): what a taker fill pays, and in
// what unit a buy pays it. Imported markets store it (markets.fee_schedule, JSON); the backtest
// and paper trading read it through the market record.

/** Polymarket's crypto fee: F = shares × rate × (p × (1 − p))^exponent per level filled. */
export interface FeeSchedule {
  rate: number;
  exponent: number;
  /** Makers pay nothing (else a maker fill pays the taker formula). */
  taker_only: boolean;
  /** Share of a taker's fee a maker earns back on the same fill (paid at the market's end). */
  rebate_rate: number;
  /** The unit a buy's fee is paid in; a sell's is always USDC. */
  buy_fee_in: 'usdc' | 'shares';
}

// Polymarket's published history of the crypto Up or Down fees (BACKTEST.md's era table), UTC.
/** From this start time buys pay in shares at rate 0.07, exponent 1, on every type. */
export const FLAT_FEES_FROM = Date.UTC(2026, 2, 30);
/** From this start on a buy's fee is paid in USDC, before it in shares; makers pay nothing and earn 20% back. */
export const USDC_FEES_FROM = Date.UTC(2026, 3, 28);

type Fields = Record<string, unknown>;

function pick(o: Fields, snake: string, camel: string): unknown {
  return o[snake] !== undefined ? o[snake] : o[camel];
}

/**
 * Use to read a stored schedule (the column's JSON text): snake_case keys, or the camelCase ones
 * an import writes (takerOnly, rebateRate, buyFeeIn). Undefined when the text is null or not a
 * schedule (the market then gets its era's).
 */
export function parseFeeSchedule(text: string | null | undefined): FeeSchedule | undefined {
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return undefined;
  const f = o as Fields;
  const rate = f['rate'];
  const exponent = f['exponent'];
  const buyFeeIn = pick(f, 'buy_fee_in', 'buyFeeIn');
  if (typeof rate !== 'number' || !(rate >= 0) || typeof exponent !== 'number' || !(exponent > 0)) return undefined;
  const rebate = pick(f, 'rebate_rate', 'rebateRate');
  return {
    rate,
    exponent,
    taker_only: pick(f, 'taker_only', 'takerOnly') === true,
    rebate_rate: typeof rebate === 'number' && rebate >= 0 ? rebate : 0,
    buy_fee_in: buyFeeIn === 'shares' ? 'shares' : 'usdc',
  };
}
