// Maker orders through the engine's two strategy kinds (docs/backtest-model.md "Maker orders"):
// a module's ctx.post / cancel / orders / reserved, a rule's entry_maker and exit_maker checks, and
// a run without maker orders writing version 2's output unchanged. The fill rules themselves are
// held to the reference in reference-model.test.ts.
import { describe, expect, it } from 'vitest';
import { runBacktest } from './engine.js';
import { checkRule, type ModuleStrategy, type RuleStrategy } from './strategy.js';
import { book, seriesOf, snap, sourceOf, testMarket } from './test-support/markets.js';

const m = testMarket(0, 'Up');
// The Up side: best bid 0.40 (30 shares), best ask 0.45; then the ask comes down to 0.40.
const series = () =>
  seriesOf(m, [
    snap(m, 0, 0.42, { up: book([[0.4, 30]], [[0.45, 50]]), down: book([[0.55, 30]], [[0.58, 50]]) }),
    snap(m, 1000, 0.42, { up: book([[0.4, 30]], [[0.45, 50]]), down: book([[0.55, 30]], [[0.58, 50]]) }),
    snap(m, 2000, 0.41, { up: book([[0.39, 30]], [[0.4, 5]]), down: book([[0.55, 30]], [[0.58, 50]]) }),
  ]);

describe('module strategies post, cancel and see their resting orders', () => {
  it('post returns an id; orders shows the order; reserved holds its cash until it fills', async () => {
    const seen: unknown[] = [];
    const strategy: ModuleStrategy = {
      onSnapshot(s, ctx) {
        if (s.elapsed_ms === 0) {
          seen.push(ctx.post('up', 'buy', 10, 0.4, { ttlMs: 60_000 }));
          // Another market's sells and this Down buy rest side by side: posts are not one at a time.
          seen.push(ctx.post('down', 'buy', 2, 0.55));
        }
        seen.push([s.elapsed_ms, ctx.cash, ctx.reserved, ctx.orders.map((o) => [o.id, o.side, o.price, o.shares, o.live, o.expires_at])]);
        if (s.elapsed_ms === 1000) seen.push(ctx.cancel(2), ctx.cancel(2));
      },
    };
    const r = await runBacktest(strategy, sourceOf(series()));
    // Live at once (latency 0): 10 × 0.40 + 2 × 0.55 = 5.1 held; the Down order is cancelled at 1000;
    // the Up order fills at 2000 (the ask reached 0.40) before the strategy sees the snapshot.
    expect(seen).toEqual([
      1,
      2,
      [0, 1000, 0, [[1, 'up', 0.4, 10, false, m.start_time + 60_000], [2, 'down', 0.55, 2, false, null]]],
      [1000, 1000, 5.1, [[1, 'up', 0.4, 10, true, m.start_time + 60_000], [2, 'down', 0.55, 2, true, null]]],
      true,
      false,
      [2000, 996, 0, []],
    ]);
    expect(r.summary).toMatchObject({ orders: 2, maker_orders: 2, maker_fills: 1, maker_cancelled: 1, fees: 0, rebates: 0.0336 });
  });

  it('refuses a bad post with one usage line', async () => {
    const post = (args: unknown[]) =>
      runBacktest({ onSnapshot: (_s, ctx) => void (ctx.post as (...a: unknown[]) => number)(...args) }, sourceOf(series()));
    await expect(post(['up', 'buy', 10, 1])).rejects.toThrow(/post: price must be a number in \(0, 1\), got 1/);
    await expect(post(['up', 'hold', 10, 0.4])).rejects.toThrow(/post: action must be 'buy' or 'sell'/);
    await expect(post(['up', 'buy', 10, 0.4, { ttlMs: 0 }])).rejects.toThrow(/ttlMs must be a whole number/);
    await expect(post(['left', 'buy', 10, 0.4])).rejects.toThrow(/side must be 'up' or 'down'/);
  });

  it('refuses a post outside onSnapshot', async () => {
    const run = runBacktest({ onSnapshot() {}, onMarketStart: (_m, ctx) => void ctx.post('up', 'buy', 1, 0.4) }, sourceOf(series()));
    await expect(run).rejects.toThrow(/post\(\) is only allowed inside onSnapshot/);
  });
});

describe('rule strategies with maker orders', () => {
  const rule = (over: Partial<RuleStrategy>): RuleStrategy => ({ side: 'up', size: 10, entry: [{ field: 'elapsed_ms', op: '>=', value: 0 }], ...over });

  it('checks entry_maker and exit_maker before any data is read', () => {
    expect(checkRule(rule({ entry_maker: { price: 'bid', offset: -0.01, ttl_ms: 500 } })).entry_maker).toEqual({ price: 'bid', offset: -0.01, ttl_ms: 500 });
    expect(checkRule(rule({ exit_maker: { price: 'ask' } })).exit_maker).toEqual({ price: 'ask', offset: 0, ttl_ms: undefined });
    expect(() => checkRule(rule({ entry_maker: { price: 'mid' } as never }))).toThrow(/entry_maker.price must be one of bid, ask, side_price, got "mid"/);
    expect(() => checkRule(rule({ entry_maker: { price: 'bid', offset: 2 } }))).toThrow(/entry_maker.offset must be a number in \(-1, 1\)/);
    expect(() => checkRule(rule({ exit_maker: { price: 'bid', ttl_ms: 1.5 } }))).toThrow(/exit_maker.ttl_ms must be a whole number/);
    expect(() => checkRule(rule({ entry_maker: { price: 'bid', at: 1 } as never }))).toThrow(/entry_maker: unknown key 'at'/);
    expect(() => checkRule(rule({ entry_maker: 'bid' as never }))).toThrow(/entry_maker must be an object/);
  });

  it('posts at the field plus the offset, and not past the rule limit', async () => {
    // 0.40 + 0.01 rests inside the spread at 0.41 (not 0.41000000000000003) and fills when the ask reaches 0.40.
    const r = await runBacktest(rule({ entry_maker: { price: 'bid', offset: 0.01 } }), sourceOf(series()));
    expect(r.trades[0]).toMatchObject({ vwap: 0.41, filled_at: m.start_time + 2000, kind: 'maker' });
    const capped = await runBacktest(rule({ entry_maker: { price: 'bid' }, max_price: 0.35 }), sourceOf(series()));
    expect(capped.summary).toMatchObject({ orders: 0 });
    expect(capped.params).toEqual({ cash: 1000, latency_ms: 0, fee_rate: null, no_book: 'quote' });
  });
});

describe('a run without maker orders', () => {
  it('writes version 2 output unchanged: no maker keys anywhere', async () => {
    const taker: RuleStrategy = { side: 'up', size: 10, entry: [{ field: 'elapsed_ms', op: '>=', value: 2000 }] };
    const r = await runBacktest(taker, sourceOf(series()));
    expect(Object.keys(r.params)).toEqual(['cash', 'latency_ms', 'fee_rate', 'no_book']);
    expect(Object.keys(r.summary).at(-1)).toBe('unsettled_markets');
    expect(Object.keys(r.trades[0]!).at(-1)).toBe('fee_shares');
    expect(Object.keys(r.markets[0]!).at(-1)).toBe('pnl');
    // --maker-fill given: the maker fields appear (zeros) so sweeps and scripts see one shape.
    const given = await runBacktest(taker, sourceOf(series()), { maker_fill: 'queue' });
    expect(given.params.maker_fill).toBe('queue');
    expect(given.summary).toMatchObject({ rebates: 0, maker_orders: 0 });
    expect(given.trades[0]).toMatchObject({ kind: 'taker', rebate: 0 });
  });
});
