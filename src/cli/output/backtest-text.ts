// What a backtest shows on a terminal: the summary as aligned pairs, the equity curve (one point
// per traded market) and the first trades. Pure: the result in, text out.
import asciichart from 'asciichart';
import type { BacktestResult } from '../../backtest/result.js';
import { labelWidthFor, plotColumns } from './chart.js';
import { isMakerResult, MAKER_TRADE_SCHEMA, TRADE_SCHEMA } from './backtest-schemas.js';
import { renderTable } from './table.js';

/** Trades a terminal shows; the rest go to --trades FILE or --format json. */
export const TERMINAL_TRADES = 10;

function iso(ms: number | null): string {
  return ms === null ? '–' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

/** The summary as aligned `key value` pairs, as many pairs a line as `width` allows. */
function summaryText(r: BacktestResult, width: number): string {
  const pairs = Object.entries(r.summary).map(([k, v]) => [k, v === null ? '–' : String(v)] as const);
  const keyWidth = Math.max(...pairs.map(([k]) => k.length));
  const cell = keyWidth + 1 + Math.max(...pairs.map(([, v]) => v.length)) + 3;
  const perLine = Math.max(1, Math.min(3, Math.floor(width / cell)));
  const rows = Math.ceil(pairs.length / perLine);
  const lines: string[] = [];
  for (let row = 0; row < rows; row++) {
    let line = '';
    for (let col = 0; col < perLine; col++) {
      const p = pairs[col * rows + row];
      if (p) line += `${p[0].padEnd(keyWidth)} ${p[1]}`.padEnd(cell);
    }
    lines.push(line.trimEnd());
  }
  const d = r.data;
  const p = r.params;
  return [
    `${r.strategy}: ${d.markets} market${d.markets === 1 ? '' : 's'}, ${d.snapshots.toLocaleString('en-US')} snapshots, ${iso(d.from)} to ${iso(d.to)} UTC`,
    `cash ${p.cash}, latency ${p.latency_ms} ms, fee rate ${p.fee_rate ?? 'per market'}, no book: ${p.no_book}${p.maker_fill !== undefined ? `, maker fill: ${p.maker_fill}` : ''}`,
    '',
    ...lines,
    '',
  ].join('\n');
}

/** Equity values fitted to `columns`: each column keeps the last point that falls in it. */
function fitted(values: readonly number[], columns: number): number[] {
  if (values.length <= columns) return [...values];
  const out: number[] = [];
  for (let c = 0; c < columns; c++) out.push(values[Math.min(values.length - 1, Math.floor(((c + 1) * values.length) / columns) - 1)]!);
  return out;
}

/** The summary, the equity chart and the first trades, fitted to `width` characters. */
export function renderBacktestText(r: BacktestResult, width: number, color: boolean): string {
  const parts: string[] = [summaryText(r, width)];
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
    parts.push(renderTable(isMakerResult(r) ? MAKER_TRADE_SCHEMA : TRADE_SCHEMA, shown, { color, width }).trimEnd());
  }
  return `${parts.join('\n')}\n`;
}
