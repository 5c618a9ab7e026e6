// Whether a rule that reads the book (`bid`, `ask`) met any book at all: over a store without
// orderbooks such a condition is never true, so the run places no order, and the reason is said.
import type { MarketSeries, MarketSource } from '../../domain/market-series.js';
import type { RuleStrategy, Strategy } from '../../backtest/strategy/strategy.js';

/** The book fields a rule condition names, in the order the rule names them (empty for a module strategy). */
export function bookFieldsOf(strategy: Strategy): string[] {
  if (!('entry' in strategy)) return [];
  const rule = strategy as RuleStrategy;
  const fields = [...rule.entry, ...(rule.exit ?? [])].map((c) => c.field).filter((f) => f === 'bid' || f === 'ask');
  return [...new Set(fields)];
}

function holdsBook(s: MarketSeries): boolean {
  for (let i = 0; i < s.length; i++) if (s.book(i, 'up') !== undefined || s.book(i, 'down') !== undefined) return true;
  return false;
}

/** A source that counts its markets and whether any snapshot of them held a book (looked for until one is found). */
export function watchBooks(source: MarketSource): { source: MarketSource; markets(): number; anyBook(): boolean } {
  let markets = 0;
  let found = false;
  async function* counted(): MarketSource {
    for await (const s of source) {
      markets += 1;
      if (!found) found = holdsBook(s);
      yield s;
    }
  }
  return { source: counted(), markets: () => markets, anyBook: () => found };
}

/** The note for a rule on the book whose markets held none (undefined when there is nothing to say). */
export function noBookNote(fields: readonly string[], markets: number, anyBook: boolean): string | undefined {
  if (fields.length === 0 || anyBook || markets === 0) return undefined;
  return (
    `the rule reads ${fields.join('/')} but no snapshot of the ${markets} market${markets === 1 ? '' : 's'} had a book, so those conditions never held ` +
    '(a store with books: msnap pull --orderbook, msnap serve seed --orderbook-days N)'
  );
}
