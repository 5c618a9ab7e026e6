// What `msnap serve` is told about paper trading: the cash a new (or reset) account starts with,
// the fees its fills pay (docs/backtest-model.md "Fees"): each market's schedule, or one flat
// rate, and the fill model its resting limit orders are posted under.
import type { MakerFillModel } from '../backtest/model/maker-fill.js';

/** serve --paper-cash, --paper-fee-rate and --paper-maker-fill. */
export interface PaperSettings {
  startCash: number;
  /** One taker rate for every market (--paper-fee-rate); absent: each market's schedule, as the backtest charges by default. */
  feeRate?: number;
  /** The maker fill model new limit orders rest under (--paper-maker-fill); absent: `cross`, the backtest's default. */
  makerFill?: MakerFillModel;
}

/** The defaults: 1000 USDC, each market's fee schedule (the backtest's default), the `cross` maker fill model. */
export const DEFAULT_PAPER: Readonly<PaperSettings> = Object.freeze({ startCash: 1000 });
