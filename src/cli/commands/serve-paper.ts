// `serve --paper-cash N --paper-fee-rate R --paper-maker-fill M`: paper trading's starting cash,
// taker fee rate and maker fill model, checked.
import type { MakerFillModel } from '../../backtest/model/maker-fill.js';
import { UsageError } from '../../errors.js';
import { DEFAULT_PAPER, type PaperSettings } from '../../paper/paper-settings.js';

/** Raw values of the paper flags as commander hands them over. */
export interface RawPaperFlags {
  paperCash?: string;
  paperFeeRate?: string;
  paperMakerFill?: string;
}

/** The most starting cash an account may be given (USDC). */
const MAX_PAPER_CASH = 1e12;

const DECIMAL = /^\d+(\.\d+)?$/;

/** Use in parseServeFlags: the settings, defaults where a flag is absent; a UsageError for a bad value. */
export function parsePaperFlags(raw: RawPaperFlags): PaperSettings {
  const cashText = raw.paperCash ?? String(DEFAULT_PAPER.startCash);
  const startCash = DECIMAL.test(cashText) ? Number(cashText) : NaN;
  if (!(startCash > 0 && startCash <= MAX_PAPER_CASH)) {
    throw new UsageError(`--paper-cash must be a number of USDC > 0 and at most ${MAX_PAPER_CASH}; got "${cashText.slice(0, 40)}"`);
  }
  const fill = raw.paperMakerFill;
  // Named here, not read from backtest/maker-fill.ts: the CLI loads no backtest code at start (as backtest's --maker-fill).
  if (fill !== undefined && fill !== 'cross' && fill !== 'queue') throw new UsageError(`--paper-maker-fill must be cross or queue; got "${fill.slice(0, 40)}"`);
  const makerFill = fill !== undefined ? { makerFill: fill as MakerFillModel } : {};
  if (raw.paperFeeRate === undefined) return { startCash, ...makerFill };
  const rateText = raw.paperFeeRate;
  const feeRate = DECIMAL.test(rateText) ? Number(rateText) : NaN;
  if (!(feeRate >= 0 && feeRate <= 1)) {
    throw new UsageError(`--paper-fee-rate must be a number from 0 to 1 (0.07 = Polymarket's crypto taker rate); got "${rateText.slice(0, 40)}"`);
  }
  return { startCash, feeRate, ...makerFill };
}
