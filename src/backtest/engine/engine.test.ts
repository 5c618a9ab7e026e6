// Each rule of docs/backtest-model.md on hand-made markets; expected numbers are worked out by hand in the
// comments (prices × shares, Polymarket's fee shares × 0.07 × p × (1 − p), rounded to 5).
import { describe, expect, it } from 'vitest';
import { runBacktest } from './engine.js';
import type { BacktestProgress } from '../model/result.js';
import type { ModuleStrategy, RuleStrategy } from '../strategy/strategy.js';
import { book, seriesOf, snap, sourceOf, testMarket } from '../test-support/markets.js';

const cheapUp = (over: Partial<RuleStrategy> = {}): RuleStrategy => ({
  name: 'cheap-up',
  side: 'up',
  size: 10,
  entry: [{ field: 'price_up', op: '<', value: 0.5 }],
  ...over,
});

describe('fills walk the book', () => {
  it('takes what the book holds when it runs out mid-order (fill-and-kill)', async () => {
    const m = testMarket(0, 'Up');
    const s = seriesOf(m, [snap(m, 0, 0.3, { up: book([[0.29, 50]], [[0.3, 4], [0.32, 3]]) })]);
    const r = await runBacktest(cheapUp(), sourceOf(s));
    // 4 × 0.30 + 3 × 0.32 = 2.16; fee 4 × 0.07 × 0.3 × 0.7 + 3 × 0.07 × 0.32 × 0.68 = 0.104496 → 0.1045
    expect(r.trades[0]).toEqual({
      market_id: m.market_id, side: 'up', action: 'buy', decided_at: m.start_time, filled_at: m.start_time,
      shares_requested: 10, shares: 7, vwap: 0.308571, fee: 0.1045, cash_after: 997.7355, depth: true, levels: 2, fee_shares: 0,
    });
    // Settlement: 7 winning shares pay 7.
    expect(r.trades[1]).toMatchObject({ action: 'settle', shares: 7, vwap: 1, fee: 0, cash_after: 1004.7355, levels: 0 });
    expect(r.summary).toMatchObject({ end_cash: 1004.7355, pnl: 4.7355, fills: 1, orders: 1, shares_bought: 7, fees: 0.1045, wins: 1 });
  });

  it('stops at the limit price', async () => {
    const m = testMarket(0, 'Down');
    const s = seriesOf(m, [snap(m, 0, 0.3, { up: book([], [[0.3, 4], [0.32, 3]]) })]);
    const r = await runBacktest(cheapUp({ max_price: 0.31 }), sourceOf(s));
    expect(r.trades[0]).toMatchObject({ shares: 4, vwap: 0.3, levels: 1, fee: 0.0588 });
    // Down won: the 4 up shares pay 0; pnl = −1.2 − 0.0588.
    expect(r.trades[1]).toMatchObject({ action: 'settle', vwap: 0, shares: 4, cash_after: 998.7412 });
    expect(r.markets).toEqual([{ market_id: m.market_id, winner: 'Down', settled: true, entries: 1, fees: 0.0588, pnl: -1.2588 }]);
    expect(r.summary.losses).toBe(1);
  });

  it('spends no more than the cash: level by level, price plus fee, rounded down to 0.01 share', async () => {
    const m = testMarket(0, 'Up');
    const s = seriesOf(m, [snap(m, 0, 0.3, { up: book([], [[0.3, 4], [0.32, 10]]) })]);
    const r = await runBacktest(cheapUp(), sourceOf(s), { cash: 2 });
    // Level 1: 4 shares cost 4 × (0.3 + 0.0147) = 1.2588, leaving 0.7412.
    // Level 2: 0.7412 / (0.32 + 0.015232) = 2.211 → 2.21 shares. Fee 0.0588 + 0.03366272 → 0.09246.
    // Cash: 2 − (1.2 + 0.7072) − 0.09246 = 0.00034.
    expect(r.trades[0]).toMatchObject({ shares: 6.21, vwap: 0.307118, fee: 0.09246, cash_after: 0.00034, levels: 2 });
  });

  it('rejects an order that fills nothing (no cash for 0.01 share)', async () => {
    const m = testMarket(0, 'Up');
    const s = seriesOf(m, [snap(m, 0, 0.3, { up: book([], [[0.3, 4]]) })]);
    const r = await runBacktest(cheapUp(), sourceOf(s), { cash: 0.003 });
    expect(r.summary).toMatchObject({ orders: 1, fills: 0, rejected_orders: 1, markets_traded: 0, end_cash: 0.003 });
    expect(r.trades).toEqual([]);
  });
});

describe('latency and pending orders', () => {
  const m = testMarket(0, 'Up');
  const snaps = [
    snap(m, 0, 0.3, { up: book([], [[0.3, 100]]) }),
    snap(m, 500, 0.3, { up: book([], [[0.4, 100]]) }),
    snap(m, 1000, 0.3, { up: book([], [[0.5, 100]]) }),
  ];

  it('executes on the first snapshot at or after decision + latency', async () => {
    const r = await runBacktest(cheapUp(), sourceOf(seriesOf(m, snaps)), { latency_ms: 600, fees: 'none' });
    expect(r.trades[0]).toMatchObject({ decided_at: m.start_time, filled_at: m.start_time + 1000, vwap: 0.5, fee: 0 });
    // One entry: no second decision was taken while the first was pending.
    expect(r.summary.orders).toBe(1);
  });

  it('expires an order when the market ends before its execution time', async () => {
    const r = await runBacktest(cheapUp(), sourceOf(seriesOf(m, snaps)), { latency_ms: 1001 });
    expect(r.summary).toMatchObject({ orders: 1, fills: 0, expired_orders: 1, rejected_orders: 0, markets_traded: 0 });
    expect(r.trades).toEqual([]);
    expect(r.equity).toEqual([]);
  });
});

describe('no book', () => {
  const m = testMarket(0, 'Up');
  const s = () => seriesOf(m, [snap(m, 0, 0.25)]);

  it('fills the whole order at the quoted probability, flagged depth: false', async () => {
    const r = await runBacktest(cheapUp(), sourceOf(s()));
    // Fee 10 × 0.07 × 0.25 × 0.75 = 0.13125.
    expect(r.trades[0]).toMatchObject({ shares: 10, vwap: 0.25, fee: 0.13125, depth: false, levels: 1, cash_after: 997.36875 });
    expect(r.summary.fills_without_depth).toBe(1);
  });

  it('rejects the order with no_book reject', async () => {
    const r = await runBacktest(cheapUp(), sourceOf(s()), { no_book: 'reject' });
    expect(r.summary).toMatchObject({ orders: 1, fills: 0, rejected_orders: 1, fills_without_depth: 0 });
    // Each market pays its own schedule: no one rate to report.
    expect(r.params).toEqual({ cash: 1000, latency_ms: 0, fee_rate: null, no_book: 'reject' });
  });
});

describe('settlement', () => {
  it('values an unresolved market at its last quote and counts it', async () => {
    const m = testMarket(0, null);
    const s = seriesOf(m, [snap(m, 0, 0.3, { up: book([], [[0.3, 100]]) }), snap(m, 1000, 0.6)]);
    const r = await runBacktest(cheapUp(), sourceOf(s));
    // Cash 1000 − 3 − 0.147; the 10 shares are worth 6 at the last quote.
    expect(r.summary).toMatchObject({ end_cash: 996.853, pnl: 2.853, return: 0.002853, unsettled_markets: 1, brier: null });
    expect(r.markets).toEqual([{ market_id: m.market_id, winner: null, settled: false, entries: 1, fees: 0.147, pnl: 2.853 }]);
    expect(r.equity).toEqual([{ time: m.end_time, equity: 1002.853 }]);
    expect(r.trades.map((t) => t.action)).toEqual(['buy']);
  });
});

describe('fees', () => {
  it('rounds the order fee to 5 decimals, half up', async () => {
    const m = testMarket(0, 'Up');
    const s = seriesOf(m, [snap(m, 0, 0.5, { up: book([], [[0.5, 1]]) })]);
    // 0.01 × 0.07 × 0.5 × 0.5 = 0.000175 → 0.00018.
    const r = await runBacktest(cheapUp({ size: 0.01, entry: [{ field: 'price_up', op: '<=', value: 0.5 }] }), sourceOf(s));
    expect(r.trades[0]!.fee).toBe(0.00018);
  });

  it('charges nothing with fees none, and reports fee_rate 0', async () => {
    const m = testMarket(0, 'Up');
    const s = seriesOf(m, [snap(m, 0, 0.3, { up: book([], [[0.3, 100]]) })]);
    const r = await runBacktest(cheapUp(), sourceOf(s), { fees: 'none' });
    expect(r.trades[0]).toMatchObject({ fee: 0, cash_after: 997 });
    expect(r.params.fee_rate).toBe(0);
  });
});

describe('rules', () => {
  it('exits the whole position on the bids, stops at min_price, and re-enters up to max_entries', async () => {
    const m = testMarket(0, 'Down');
    const s = seriesOf(m, [
      snap(m, 0, 0.3, { up: book([[0.29, 100]], [[0.3, 100]]) }),
      snap(m, 1000, 0.7, { up: book([[0.7, 6], [0.5, 100]], [[0.71, 100]]) }),
      snap(m, 2000, 0.7, { up: book([[0.69, 100]], [[0.71, 100]]) }),
      snap(m, 3000, 0.4, { up: book([[0.39, 100]], [[0.4, 100]]) }),
      snap(m, 4000, 0.3, { up: book([[0.29, 100]], [[0.3, 100]]) }),
    ]);
    const rule = cheapUp({ exit: [{ field: 'bid', op: '>', value: 0.6 }], min_price: 0.6, max_entries: 2 });
    const r = await runBacktest(rule, sourceOf(s), { fees: 'none' });
    expect(r.trades.map((t) => [t.action, t.filled_at - m.start_time, t.shares, t.vwap])).toEqual([
      ['buy', 0, 10, 0.3],
      ['sell', 1000, 6, 0.7], // 0.5 is under min_price: the rest stays held
      ['sell', 2000, 4, 0.69],
      ['buy', 3000, 10, 0.4], // second entry; the third chance at 4000 is past max_entries
      ['settle', 300_000, 10, 0],
    ]);
    expect(r.markets[0]!.entries).toBe(2);
  });

  it('reads change from the first price when price_start is null, and elapsed_ms from start_time', async () => {
    const m = testMarket(0, 'Up', null);
    const s = seriesOf(m, [snap(m, 0, 0.5, {}, 100), snap(m, 1000, 0.5, {}, 101), snap(m, 2000, 0.5, {}, 102)]);
    const rule = cheapUp({ entry: [{ field: 'change', op: '>', value: 0.015 }, { field: 'elapsed_ms', op: '>=', value: 1000 }] });
    const r = await runBacktest(rule, sourceOf(s));
    expect(r.trades[0]!.filled_at).toBe(m.start_time + 2000);
  });
});

describe('statistics', () => {
  it('reports drawdown, sharpe, win rate and brier over traded markets', async () => {
    const mk = (i: number, winner: 'Up' | 'Down', ask: number) => {
      const m = testMarket(i, winner);
      return seriesOf(m, [snap(m, 0, ask, { up: book([], [[ask, 100]]) })]);
    };
    const r = await runBacktest(cheapUp(), sourceOf(mk(0, 'Up', 0.4), mk(1, 'Down', 0.2), mk(2, 'Up', 0.3)), { fees: 'none' });
    // pnl per market: +6, −2, +7.
    expect(r.markets.map((x) => x.pnl)).toEqual([6, -2, 7]);
    expect(r.equity.map((e) => e.equity)).toEqual([1006, 1004, 1011]);
    const mean = 11 / 3;
    const sd = Math.sqrt(((6 - mean) ** 2 + (-2 - mean) ** 2 + (7 - mean) ** 2) / 2);
    expect(r.summary).toMatchObject({
      pnl: 11, wins: 2, losses: 1, win_rate: 0.666667, avg_pnl_per_market: 3.666667, max_drawdown: 2,
      sharpe: Math.round((mean / sd) * 1e6) / 1e6,
      // (0.4 − 1)² + (0.2 − 0)² + (0.3 − 1)² = 0.36 + 0.04 + 0.49, over 3.
      brier: 0.296667,
    });
    expect(r.data).toEqual({ markets: 3, snapshots: 3, from: testMarket(0, null).start_time, to: testMarket(2, null).end_time });
  });

  it('gives null statistics without trades', async () => {
    const m = testMarket(0, 'Up');
    const r = await runBacktest(cheapUp(), sourceOf(seriesOf(m, [snap(m, 0, 0.9)])));
    expect(r.summary).toMatchObject({ markets_traded: 0, win_rate: null, avg_pnl_per_market: null, sharpe: null, brier: null, max_drawdown: 0 });
    expect(Object.keys(r)).toEqual(['strategy', 'params', 'data', 'summary', 'markets', 'trades', 'equity']);
  });
});

describe('module strategies', () => {
  it('see the market without its outcome until it ends, and place one order per snapshot', async () => {
    const m = testMarket(0, 'Up');
    const s = seriesOf(m, [snap(m, 0, 0.3, { up: book([], [[0.3, 100]]) }), snap(m, 1000, 0.3, { up: book([], [[0.3, 100]]) })]);
    const seen: unknown[] = [];
    const r = await runBacktest(
      {
        name: 'peek',
        onSnapshot(snapshot, ctx) {
          seen.push(ctx.market.winner, ctx.market.price_end);
          // The second order of a call is refused while the first is pending.
          if (snapshot.elapsed_ms === 0) seen.push(ctx.buy('up', 1), ctx.buy('up', 1));
        },
        onMarketEnd(market) {
          seen.push(market.winner);
        },
      },
      sourceOf(s),
    );
    expect(seen).toEqual([null, null, true, false, null, null, 'Up']);
    expect(r.summary.orders).toBe(1);
  });

  it('turn a throwing hook into one usage line naming the hook and the snapshot', async () => {
    const m = testMarket(0, 'Up');
    const run = runBacktest({ onSnapshot() { throw new TypeError('x is undefined'); } }, sourceOf(seriesOf(m, [snap(m, 0, 0.3)])));
    await expect(run).rejects.toThrow(`strategy error: x is undefined (in onSnapshot at ${m.market_id} ${new Date(m.start_time).toISOString()})`);
  });

  it('say NaN shares are NaN, not null', async () => {
    const m = testMarket(0, 'Up');
    const run = runBacktest({ onSnapshot(_s, ctx) { ctx.buy('up', Number.NaN); } }, sourceOf(seriesOf(m, [snap(m, 0, 0.3)])));
    await expect(run).rejects.toThrow(/^strategy error: buy: shares must be a positive number, got NaN \(in onSnapshot at /);
  });
});

describe('progress', () => {
  it('reports within a long market as its snapshots pass, and watching changes no result', async () => {
    const markets = [testMarket(0, 'Up'), testMarket(1, 'Down')];
    // Two snapshots a second, prices wandering around the entry threshold.
    const series = () => markets.map((m) => seriesOf(m, Array.from({ length: 600 }, (_, k) => snap(m, k * 500, 0.2 + ((k * 7) % 20) / 50))));
    // A module is never idle: every snapshot of the market is decided on.
    const rule: ModuleStrategy = {
      onSnapshot(s, ctx) {
        if (s.price_up < 0.3 && ctx.position('up') === 0) ctx.buy('up', 5);
        else if (s.price_up > 0.5 && ctx.position('up') > 0) ctx.sell('up', ctx.position('up'));
      },
    };
    const seen: BacktestProgress[] = [];
    const watched = await runBacktest(rule, sourceOf(...series()), {}, { onProgress: async (p) => void seen.push(p) });
    const plain = await runBacktest(rule, sourceOf(...series()));
    expect(JSON.stringify(watched)).toBe(JSON.stringify(plain));
    expect(plain.summary.fills).toBeGreaterThan(2);
    // Reports inside the first market, before the second is read, every 128 snapshots passed.
    const inFirst = seen.filter((p) => p.markets === 1);
    expect(inFirst.map((p) => p.passed)).toEqual([...inFirst.map((p) => p.passed)].sort((a, b) => a - b));
    expect(inFirst.at(-1)!.passed).toBeGreaterThan(0);
    expect(inFirst.map((p) => p.passed)).toEqual([0, 0, 128, 256, 384, 512]);
    expect(seen.at(-1)!.passed).toBeLessThan(1200);
  });
});

describe('sources', () => {
  it('must give markets oldest first', async () => {
    const a = testMarket(0, 'Up');
    const b = testMarket(1, 'Up');
    const run = runBacktest(cheapUp(), sourceOf(seriesOf(b, [snap(b, 0, 0.9)]), seriesOf(a, [snap(a, 0, 0.9)])));
    await expect(run).rejects.toThrow(/oldest first/);
  });
});
