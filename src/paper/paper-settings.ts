// What `msnap serve` is told about paper trading: the cash a new (or reset) account starts with and
// the fees its fills pay (docs/backtest-model.md "Fees"): each market's schedule, or one flat rate.

/** serve --paper-cash and --paper-fee-rate. */
export interface PaperSettings {
  startCash: number;
  /** One taker rate for every market (--paper-fee-rate); absent: each market's schedule, as the backtest charges by default. */
  feeRate?: number;
}

/** The defaults: 1000 USDC, each market's fee schedule (the backtest's default). */
export const DEFAULT_PAPER: Readonly<PaperSettings> = Object.freeze({ startCash: 1000 });
