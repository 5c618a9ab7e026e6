// `msnap backtest` with a rule on bid/ask: over a store without orderbooks the conditions never
// hold, and the run says why on stderr (exit 0, the result as usual); over a store with books, or
// for a rule that reads no book, nothing is said.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, msnap, seed } from './support/msnap-process.js';

let dir: string;
const SEED = ['--days', '1', '--full', '5m=2,15m=0,1hr=0,4hr=0,24hr=0'];
const BID_RULE = { name: 'bid', side: 'up', size: 5, entry: [{ field: 'ask', op: '<', value: 0.9 }], exit: [{ field: 'bid', op: '>', value: 0.95 }] };
const PRICE_RULE = { name: 'price', side: 'up', size: 5, entry: [{ field: 'price_up', op: '<', value: 0.9 }] };

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-book-hint-'));
  await Promise.all([seed(path.join(dir, 'no-books.db'), [...SEED, '--orderbook-minutes', '0']), seed(path.join(dir, 'books.db'), [...SEED, '--orderbook-days', '1'])]);
  writeFileSync(path.join(dir, 'bid.json'), JSON.stringify(BID_RULE));
  writeFileSync(path.join(dir, 'price.json'), JSON.stringify(PRICE_RULE));
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const backtest = (rule: string, db: string) => msnap(['backtest', path.join(dir, rule), 'BTC', '5m', '--last', '2', '--json', '--quiet', '--db', path.join(dir, db)], { cwd: dir });

describe('msnap backtest: a rule on the book over a store without books', () => {
  it('says that no snapshot had a book, and still writes the result (0 orders)', async () => {
    const r = await backtest('bid.json', 'no-books.db');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).summary.orders).toBe(0);
    expect(r.stderr).toBe(
      'msnap: note: the rule reads ask/bid but no snapshot of the 2 markets had a book, so those conditions never held ' +
        '(a store with books: msnap pull --orderbook, msnap serve seed --orderbook-days N)',
    );
  }, 60_000);

  it('says nothing where the markets hold books, or the rule reads none', async () => {
    const withBooks = await backtest('bid.json', 'books.db');
    expect(withBooks.exitCode, withBooks.stderr).toBe(0);
    expect(JSON.parse(withBooks.stdout).summary.orders).toBeGreaterThan(0);
    expect(withBooks.stderr).toBe('');
    const price = await backtest('price.json', 'no-books.db');
    expect(price.exitCode, price.stderr).toBe(0);
    expect(price.stderr).toBe('');
  }, 60_000);
});
