// What a backtest shows on a terminal after its summary table: the equity curve (one point per
// traded market) and the first trades. Pure: the result in, text out.
import asciichart from 'asciichart';
import type { BacktestResult } from '../../backtest/result.js';
import { labelWidthFor, plotColumns } from './chart.js';
import { TRADE_SCHEMA } from './backtest-schemas.js';
import { renderTable } from './table.js';

/** Trades a terminal shows; the rest go to --trades FILE or --format json. */
export const TERMINAL_TRADES = 10;

/** Equity values fitted to `columns`: each column keeps the last point that falls in it. */
function fitted(values: readonly number[], columns: number): number[] {
  if (values.length <= columns) return [...values];
  const out: number[] = [];
  for (let c = 0; c < columns; c++) out.push(values[Math.min(values.length - 1, Math.floor(((c + 1) * values.length) / columns) - 1)]!);
  return out;
}

/** The equity chart and the first trades, fitted to `width` characters. */
export function renderBacktestText(r: BacktestResult, width: number, color: boolean): string {
  const parts: string[] = [];
  const equity = [r.summary.start_cash, ...r.equity.map((e) => e.equity)];
  if (r.equity.length > 0) {
    const labelWidth = labelWidthFor(equity);
    const pad = ' '.repeat(labelWidth);
    parts.push(`equity (USDC) after each of ${r.equity.length} traded market${r.equity.length === 1 ? '' : 's'}`);
    parts.push(
      asciichart.plot(fitted(equity, plotColumns(width, labelWidth)), {
        height: 10,
        format: (x) => (pad + x.toFixed(2)).slice(-labelWidth),
        ...(color ? { colors: [asciichart.green] } : {}),
      }),
    );
  } else {
    parts.push('no market traded');
  }
  if (r.trades.length > 0) {
    const shown = r.trades.slice(0, TERMINAL_TRADES);
    parts.push(`first ${shown.length} of ${r.trades.length} trades (all of them: --trades FILE or --format json)`);
    parts.push(renderTable(TRADE_SCHEMA, shown, { color, width }).trimEnd());
  }
  return `${parts.join('\n')}\n`;
}
