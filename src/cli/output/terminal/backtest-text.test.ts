// The terminal view of a backtest: aligned summary pairs that never run together, the equity
// chart, the first trades.
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../../backtest/engine/engine.js';
import { book, seriesOf, snap, sourceOf, testMarket } from '../../../backtest/test-support/markets.js';
import { renderBacktestText, TERMINAL_TRADES } from './backtest-text.js';
import { sweepSchema } from '../schemas/backtest-schemas.js';
import { renderTable } from './table.js';

async function result(markets: number) {
  const list = Array.from({ length: markets }, (_, k) => {
    const m = testMarket(k, k % 2 ? 'Up' : 'Down');
    return seriesOf(m, [snap(m, 0, 0.3, { up: book([], [[0.3, 100]]) })]);
  });
  return runBacktest({ name: 'view', side: 'up', size: 10, entry: [{ field: 'price_up', op: '<', value: 0.5 }] }, sourceOf(...list));
}

describe('renderBacktestText', () => {
  it('lays the summary out in columns with at least one space between a value and the next key', async () => {
    const text = renderBacktestText(await result(12), 100, false);
    const line = text.split('\n').find((l) => l.startsWith('start_cash'))!;
    expect(line).toMatch(/^start_cash +1000 +\S+ +\S+ +\S+ +\S+$/);
    expect(text).toContain('equity (USDC) after each of 12 traded markets');
    expect(text).toContain(`first ${TERMINAL_TRADES} of 24 trades`);
    expect(text).not.toMatch(/\u001b\[/);
  });

  it('says so when nothing traded, and keeps to one pair a line on a narrow terminal', async () => {
    const empty = await runBacktest({ side: 'up', size: 1, entry: [{ field: 'price_up', op: '<', value: 0 }] }, sourceOf());
    const text = renderBacktestText(empty, 30, false);
    expect(text).toContain('no market traded');
    expect(text.split('\n').find((l) => l.startsWith('start_cash'))).toBe('start_cash          1000');
  });
});

describe('a sweep table on a narrow terminal', () => {
  it('keeps the swept values, pnl and return whole, dropping the constant and the minor columns first', async () => {
    const summary = (await result(4)).summary;
    const rows = [0.25, 0.35].map((v) => ({ values: { 'entry.0.value': v, size: 10 }, summary }));
    const fitted: string[] = [];
    const text = renderTable(sweepSchema(['entry.0.value', 'size'], new Set(['entry.0.value', 'size'])), rows, { color: false, width: 80, onFitted: (f) => fitted.push(...f.dropped) });
    const lines = text.trimEnd().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    const head = lines[1]!.split('│').map((c) => c.trim()).filter((c) => c !== '');
    expect(head.slice(0, 4)).toEqual(['entry.0.value', 'size', 'pnl', 'return']);
    expect(head).toContain('win_rate');
    expect(fitted.slice(0, 2)).toEqual(['start_cash', 'end_cash']);
    expect(lines[3]).toContain(String(summary.pnl));
    expect(text).not.toContain('…');
  });
});
