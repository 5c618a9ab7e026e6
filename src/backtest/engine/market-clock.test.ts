// Many markets on one clock (BACKTEST.md "Version 2" → "Many markets on one clock"): overlapping
// markets trade side by side on shared cash, each settles at its end, equity gains a point at each
// end in time order; by hand, and against the plain reference on random overlapping markets.
import { describe, expect, it } from 'vitest';
import { COINS, marketId } from '../../domain/market.js';
import { handMarket, type HandSnapshot } from '../test-support/hand-market.js';
import { lastDigit, randomCase, randomPicks } from '../test-support/random-case.js';
import { engineAndReference, moved } from '../test-support/engine-vs-reference.js';
import type { RefRule } from '../test-support/reference-backtest.js';

const T = 1_795_300_000_000;
const both = engineAndReference;

const buyUp: RefRule = { name: 'clock', side: 'up', size: 10, entry: [{ field: 'elapsed_ms', op: '>=', value: 0 }] };
const one = (up: number, ask: number): HandSnapshot[] => [{ t: 0, up, bookUp: { asks: [[ask, 100]] } }];

describe('markets on one clock (hand-worked)', () => {
  it('an overlapping market trades on the cash the running one left, and each settles at its end', async () => {
    // A: 15m from T, buys 10 at 0.40 (cash 5 → 1). B: 5m from T + 60 s, buys what 1 pays at 0.50: 2 (cash 0).
    // B ends at T + 6 min: +2 (cash 2); equity 2 + A's 10 Up at its last quote 0.40 = 6. A ends at T + 15 min: +10 (cash 12).
    const a = moved(handMarket(T, 'Up', one(0.4, 0.4)), T, '15m');
    const b = moved(handMarket(T, 'Up', one(0.5, 0.5)), T + 60_000, '5m');
    const r = await both(buyUp, [a, b], { cash: 5, fees: 'none' });
    expect(r.trades.map((t) => [t.market_id, t.action, t.shares, t.cash_after])).toEqual([
      [a.market.market_id, 'buy', 10, 1],
      [b.market.market_id, 'buy', 2, 0],
      [b.market.market_id, 'settle', 2, 2],
      [a.market.market_id, 'settle', 10, 12],
    ]);
    expect(r.markets.map((m) => [m.market_id, m.pnl])).toEqual([[b.market.market_id, 1], [a.market.market_id, 6]]);
    expect(r.equity).toEqual([{ time: b.market.end_time, equity: 6 }, { time: a.market.end_time, equity: 12 }]);
    expect(r.summary).toMatchObject({ end_cash: 12, pnl: 7, max_drawdown: 0 });
  });

  it('at one time: the market that started earlier first, then the market id; a settlement before any snapshot', async () => {
    // Both start at T: BTC before ETH by id. With cash 4.5 BTC's buy takes 10 at 0.40, ETH's what the 0.50 left pays at 0.40: 1.25.
    const eth = moved(handMarket(T, 'Down', one(0.4, 0.4)), T, '5m', { coin: 'ETH' });
    const btc = moved(handMarket(T, 'Up', one(0.4, 0.4)), T, '5m', { coin: 'BTC' });
    // The next BTC market starts as the first ends: the settlements (10 and 0) come before its buy.
    const next = moved(handMarket(T, 'Up', one(0.5, 0.5)), T + 300_000, '5m', { coin: 'BTC' });
    const r = await both(buyUp, [eth, btc, next], { cash: 4.5, fees: 'none' });
    expect(r.trades.map((t) => [t.market_id, t.action, t.shares])).toEqual([
      [btc.market.market_id, 'buy', 10],
      [eth.market.market_id, 'buy', 1.25],
      [btc.market.market_id, 'settle', 10],
      [eth.market.market_id, 'settle', 1.25],
      [next.market.market_id, 'buy', 10],
      [next.market.market_id, 'settle', 10],
    ]);
  });
});

describe('markets on one clock against the reference', () => {
  it('agrees on 150 random sets of overlapping markets', async () => {
    let interleaved = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const c = randomCase(seed);
      const { pick } = randomPicks(seed * 104_729);
      let start = T;
      const ids = new Set<string>();
      const hands = c.markets.map((h, k) => {
        start += pick([0, 125, 2_000, 20_000]);
        const coin = COINS[k % COINS.length]!;
        const type = pick(['5m', '15m'] as const);
        while (ids.has(marketId(coin, type, start))) start += 1000;
        ids.add(marketId(coin, type, start));
        return moved(h, start, type, { coin });
      });
      const r = await both(c.rule, hands, c.params, lastDigit).catch((e: Error) => {
        throw new Error(`seed ${seed}: ${e.message}`);
      });
      const order = r.trades.filter((t) => t.action !== 'settle').map((t) => t.market_id);
      if (order.some((id, k) => k > 0 && id !== order[k - 1] && order.slice(0, k - 1).includes(id))) interleaved += 1;
    }
    // The cases must interleave markets' trades, not only run them one after another.
    expect(interleaved).toBeGreaterThan(5);
  });
});
