// What `msnap serve` is told about paper trading: the cash a new (or reset) account starts with and
// the taker fee rate its fills pay (docs/backtest-model.md "Fees").

/** serve --paper-cash and --paper-fee-rate. */
export interface PaperSettings {
  startCash: number;
  feeRate: number;
}

/** The defaults: 1000 USDC, Polymarket's crypto taker rate 0.07 (the backtest's). */
export const DEFAULT_PAPER: Readonly<PaperSettings> = Object.freeze({ startCash: 1000, feeRate: 0.07 });
