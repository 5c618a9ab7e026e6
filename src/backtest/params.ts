// The run's parameters (docs/backtest-model.md's bracketed flags), their defaults and their checks.
import { UsageError } from '../errors.js';
import { flatFees, MARKET_FEES, NO_FEES, type FeeModel } from './fee-model.js';
import { MAKER_FILL_MODELS, type MakerFillModel } from './maker-fill.js';

/** What a run is told besides the strategy: starting cash, latency, fees and the no-book rule. */
export interface BacktestParams {
  /** Starting cash in USDC (default 1000). */
  cash: number;
  /** Orders execute on the first snapshot at or after decision time + this (default 0: the decision's snapshot). */
  latency_ms: number;
  /** One taker fee rate for every market, version 1's formula in USDC (--fee-rate); undefined: each market's schedule. */
  fee_rate: number | undefined;
  /** 'none': no fees at all (the same as fee_rate 0). */
  fees: 'taker' | 'none';
  /** An order on a snapshot without the side's book: 'quote' fills at the quoted probability, 'reject' refuses it. */
  no_book: 'quote' | 'reject';
  /** How resting (maker) orders fill (--maker-fill): 'cross' (undefined: the default) or 'queue'. */
  maker_fill: MakerFillModel | undefined;
}

/** The model's defaults. */
export const DEFAULT_PARAMS: Readonly<BacktestParams> = Object.freeze({
  cash: 1000,
  latency_ms: 0,
  fee_rate: undefined,
  fees: 'taker',
  no_book: 'quote',
  maker_fill: undefined,
});

/** Use before any data is read: the defaults with `given` over them, each checked (UsageError). */
export function resolveParams(given: Partial<BacktestParams> = {}): BacktestParams {
  for (const key of Object.keys(given)) {
    if (!(key in DEFAULT_PARAMS)) throw new UsageError(`unknown backtest parameter '${key}'; use: ${Object.keys(DEFAULT_PARAMS).join(', ')}`);
  }
  const p = { ...DEFAULT_PARAMS, ...definedOnly(given) };
  if (!(typeof p.cash === 'number' && Number.isFinite(p.cash) && p.cash > 0)) throw new UsageError(`cash must be a number > 0, got ${String(p.cash)}`);
  if (!(Number.isSafeInteger(p.latency_ms) && p.latency_ms >= 0)) {
    throw new UsageError(`latency_ms must be a whole number of milliseconds >= 0, got ${String(p.latency_ms)}`);
  }
  if (p.fee_rate !== undefined && !(typeof p.fee_rate === 'number' && p.fee_rate >= 0 && p.fee_rate < 1)) throw new UsageError(`fee_rate must be a number in [0, 1), got ${String(p.fee_rate)}`);
  if (p.fees !== 'taker' && p.fees !== 'none') throw new UsageError(`fees must be 'taker' or 'none', got '${String(p.fees)}'`);
  if (p.no_book !== 'quote' && p.no_book !== 'reject') throw new UsageError(`no_book must be 'quote' or 'reject', got '${String(p.no_book)}'`);
  if (p.maker_fill !== undefined && !MAKER_FILL_MODELS.includes(p.maker_fill)) {
    throw new UsageError(`maker_fill must be ${MAKER_FILL_MODELS.map((m) => `'${m}'`).join(' or ')}, got '${String(p.maker_fill)}'`);
  }
  return p;
}

/** The flat fee rate the run reports: 0 with fees 'none', null when each market pays its own schedule. */
export function effectiveFeeRate(p: BacktestParams): number | null {
  return p.fees === 'none' ? 0 : (p.fee_rate ?? null);
}

/** The fee model the run is given: none, one flat rate, or each market's schedule (its era's when it stores none). */
export function feeModelOf(p: BacktestParams): FeeModel {
  if (p.fees === 'none') return NO_FEES;
  return p.fee_rate === undefined ? MARKET_FEES : flatFees(p.fee_rate);
}

function definedOnly(given: Partial<BacktestParams>): Partial<BacktestParams> {
  const out: Partial<BacktestParams> = {};
  for (const [k, v] of Object.entries(given)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
