// Rule conditions compiled once per strategy into one small function over a market's columns, so
// the hot loop reads numbers from arrays and builds no per-snapshot objects.
import type { MarketSeries, OutcomeSide } from '../../domain/market-series.js';
import type { RuleCondition, RuleField } from './strategy.js';

/** True when the conditions hold at snapshot i of the series it was bound to. */
export type SnapshotTest = (i: number) => boolean;

/** Binds a compiled test to one market's columns. */
export type BindTest = (series: MarketSeries) => SnapshotTest;

/** The base `change` is measured from: price_start, else the first snapshot's price. */
export function changeBase(series: MarketSeries): number {
  return series.market.price_start ?? series.price[0] ?? Number.NaN;
}

/** Best price of one side of the side's book at i; NaN without a book or levels (every comparison is then false). */
export function bestPrice(series: MarketSeries, i: number, side: OutcomeSide, which: 'bids' | 'asks'): number {
  if (series.bestPrices) return series.bestPrices(side)[which][i] ?? Number.NaN;
  const book = series.book(i, side);
  if (!book) return Number.NaN;
  const levels = book[which];
  return levels.length > 0 ? levels.prices[0]! : Number.NaN;
}

function fieldExpr(field: RuleField, side: OutcomeSide): string {
  switch (field) {
    case 'price': return 'p[i]';
    case 'price_up': return 'pu[i]';
    case 'price_down': return 'pd[i]';
    case 'side_price': return side === 'up' ? 'pu[i]' : 'pd[i]';
    case 'elapsed_ms': return '(t[i] - st)';
    case 'remaining_ms': return '(et - t[i])';
    case 'change': return '(p[i] / base - 1)';
    case 'bid': return `(bb ? bb[i] : best(s, i, '${side}', 'bids'))`;
    case 'ask': return `(ba ? ba[i] : best(s, i, '${side}', 'asks'))`;
  }
}

/**
 * Use once per strategy: `all` (entry: every condition) or any (exit: one is enough). Fields and
 * ops come from the checked whitelists and values are finite numbers, so the generated source
 * holds nothing a strategy file could inject.
 */
export function compileConditions(conditions: readonly RuleCondition[], side: OutcomeSide, all: boolean): BindTest {
  const terms = conditions.map((c) => `(${fieldExpr(c.field, side)} ${c.op === '==' ? '===' : c.op} (${String(c.value)}))`);
  const body = terms.length === 0 ? String(all) : terms.join(all ? ' && ' : ' || ');
  const factory = new Function(
    'best',
    `return function bind(s, t, p, pu, pd, st, et, base, bb, ba) { return function test(i) { return ${body}; }; };`,
  )(bestPrice) as (...cols: unknown[]) => SnapshotTest;
  // A source with the fast path hands the side's best prices as arrays (read only by a rule on the book).
  const onBook = conditions.some((c) => c.field === 'bid' || c.field === 'ask');
  return (s) => {
    const b = onBook ? s.bestPrices?.(side) : undefined;
    return factory(s, s.time, s.price, s.priceUp, s.priceDown, s.market.start_time, s.market.end_time, changeBase(s), b?.bids, b?.asks);
  };
}
