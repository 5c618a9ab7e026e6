// The engine against docs/backtest-model.md: each rule of the model on hand-made markets with figures worked
// out by hand in the comments, then the engine against a plain reference implementation
// (test-support/reference-backtest.ts, written from the spec alone) on random markets.
import { describe, expect, it } from 'vitest';
import type { Market, Snapshot } from '../domain/market.js';
import { loadStrategy, runBacktest, seriesFromSnapshots } from './index.js';
import { handMarket, type HandSnapshot } from './test-support/hand-market.js';
import { referenceBacktest, type RefParams, type RefRule } from './test-support/reference-backtest.js';
import { lastDigit, randomCase, randomMakerCase } from './test-support/random-case.js';

const T0 = 1_795_300_000_000;
const DEFAULTS: RefParams = { cash: 1000, latency_ms: 0, fees: 'taker', no_book: 'quote' };

type Hand = { market: Market; snapshots: Snapshot[] };

async function engine(rule: RefRule, markets: Hand[], params: Partial<RefParams> = {}) {
  const strategy = await loadStrategy(structuredClone(rule) as never, []);
  // A MarketSource yields oldest first (the selection orders them); hand cases may list them in any order.
  const ordered = [...markets].sort((a, b) => a.market.start_time - b.market.start_time);
  async function* source() {
    for (const m of ordered) yield seriesFromSnapshots(m.market, m.snapshots);
  }
  return (await runBacktest(strategy, source(), params)) as unknown as ReturnType<typeof referenceBacktest>;
}

/** Runs both implementations and checks they agree on every number; returns the engine's result. */
async function both(rule: RefRule, markets: Hand[], params: Partial<RefParams> = {}) {
  const got = await engine(rule, markets, params);
  const ref = referenceBacktest(rule, markets, { ...DEFAULTS, ...params });
  // Equal to the last reported digit; a decimal tie (76.516605 / 2) may round either way when two
  // float paths land a hair apart, so one unit of the 6th decimal is allowed, nothing more.
  expect(got.summary).toEqual(lastDigit(ref.summary));
  expect(got.trades).toEqual(lastDigit(ref.trades));
  expect(got.markets).toEqual(lastDigit(ref.markets));
  expect(got.equity).toEqual(lastDigit(ref.equity));
  expect(got.data).toMatchObject(ref.data);
  return got;
}

const buyUp = (over: Partial<RefRule> = {}): RefRule => ({
  name: 'hand',
  side: 'up',
  size: 10,
  entry: [{ field: 'elapsed_ms', op: '>=', value: 0 }],
  ...over,
});

const one = (snaps: HandSnapshot[], winner: 'Up' | 'Down' | null = 'Up') => [handMarket(T0, winner, snaps)];

describe('backtest model, rule by rule (hand-worked figures)', () => {
  it('walks the asks level by level and drops what an exhausted book cannot fill', async () => {
    // 4 @ 0.30 + 3 @ 0.32 = 7 shares for 2.16; fee round5(0.07 × (4×0.3×0.7 + 3×0.32×0.68)) = 0.1045.
    const r = await both(buyUp(), one([{ t: 0, up: 0.3, bookUp: { asks: [[0.3, 4], [0.32, 3]] } }]));
    const buy = r.trades[0]!;
    expect(buy).toMatchObject({ action: 'buy', shares_requested: 10, shares: 7, vwap: 0.308571, fee: 0.1045, levels: 2, depth: true });
    expect(buy.cash_after).toBe(997.7355);
    // Settlement on Up: 7 × 1.00.
    expect(r.trades[1]).toMatchObject({ action: 'settle', shares: 7, vwap: 1, fee: 0 });
    expect(r.summary).toMatchObject({ end_cash: 1004.7355, pnl: 4.7355, fills: 1, shares_bought: 7, fees: 0.1045, wins: 1 });
  });

  it('stops the walk at the limit price', async () => {
    // max_price 0.31: only the 0.30 level; fee round5(4 × 0.07 × 0.3 × 0.7) = 0.0588.
    const r = await both(buyUp({ max_price: 0.31 }), one([{ t: 0, up: 0.3, bookUp: { asks: [[0.3, 4], [0.32, 10]] } }], 'Down'));
    expect(r.trades[0]).toMatchObject({ shares: 4, vwap: 0.3, fee: 0.0588, levels: 1 });
    // Down wins: the 4 Up shares pay 0.
    expect(r.trades[1]).toMatchObject({ action: 'settle', vwap: 0, shares: 4 });
    expect(r.summary).toMatchObject({ end_cash: 998.7412, losses: 1, wins: 0 });
  });

  it('takes only what the cash pays for, level by level, in 0.01-share steps', async () => {
    // cash 2: 4 @ 0.30 cost 1.2 + fee 0.0588 leaves 0.7412; at 0.60 a share costs 0.6 + 0.07×0.24 = 0.6168,
    // so floor(0.7412 / 0.6168, 0.01) = 1.20 shares. 5.2 shares for 1.92, fee round5(0.0588 + 0.02016) = 0.07896.
    const r = await both(buyUp(), one([{ t: 0, up: 0.3, bookUp: { asks: [[0.3, 4], [0.6, 10]] } }]), { cash: 2 });
    expect(r.trades[0]).toMatchObject({ shares: 5.2, vwap: 0.369231, fee: 0.07896, cash_after: 0.00104, levels: 2 });
  });

  it('executes after the latency on the first snapshot at or past it, and expires past the market end', async () => {
    const snaps: HandSnapshot[] = [
      { t: 0, up: 0.3, bookUp: { asks: [[0.3, 100]] } },
      { t: 125, up: 0.31, bookUp: { asks: [[0.31, 100]] } },
      { t: 375, up: 0.35, bookUp: { asks: [[0.35, 100]] } },
    ];
    // latency 200: decided at t=0, executed at t=375 (the first snapshot with time >= 200), at 0.35.
    const r = await both(buyUp(), one(snaps), { latency_ms: 200 });
    expect(r.trades[0]).toMatchObject({ decided_at: T0, filled_at: T0 + 375, vwap: 0.35 });
    // latency 1000: no snapshot that late; the order expires, no trade, and no new decision while it was pending.
    const late = await both(buyUp({ max_entries: 3 }), one(snaps), { latency_ms: 1000 });
    expect(late.summary).toMatchObject({ orders: 1, fills: 0, expired_orders: 1, markets_traded: 0, end_cash: 1000 });
    expect(late.trades).toEqual([]);
  });

  it('fills at the quote without a book (flagged), or rejects with --no-book reject', async () => {
    // 10 @ 0.4, fee round5(10 × 0.07 × 0.4 × 0.6) = 0.168.
    const r = await both(buyUp(), one([{ t: 0, up: 0.4 }]));
    expect(r.trades[0]).toMatchObject({ shares: 10, vwap: 0.4, fee: 0.168, depth: false, levels: 1 });
    expect(r.summary.fills_without_depth).toBe(1);
    const rej = await both(buyUp(), one([{ t: 0, up: 0.4 }]), { no_book: 'reject' });
    expect(rej.summary).toMatchObject({ orders: 1, fills: 0, rejected_orders: 1, fills_without_depth: 0, end_cash: 1000 });
  });

  it('values an unresolved market at its last quotes and counts it', async () => {
    const snaps: HandSnapshot[] = [
      { t: 0, up: 0.3, bookUp: { asks: [[0.3, 50]] } },
      { t: 125, up: 0.55 },
    ];
    // 10 @ 0.30 = 3 + fee 0.147; valued 10 × 0.55 = 5.5.
    const r = await both(buyUp(), one(snaps, null));
    expect(r.summary).toMatchObject({ end_cash: 996.853, pnl: 2.353, unsettled_markets: 1, brier: null });
    expect(r.trades.some((t) => t.action === 'settle')).toBe(false);
  });

  it('rounds the fee of an order to 5 decimals over all its levels', async () => {
    // 1.5 @ 0.123: 1.5 × 0.07 × 0.123 × 0.877 = 0.011326455 → 0.01133; with --fees none, 0.
    const rule = buyUp({ size: 1.5 });
    const r = await both(rule, one([{ t: 0, up: 0.123, bookUp: { asks: [[0.123, 9]] } }]));
    expect(r.trades[0]!.fee).toBe(0.01133);
    const free = await both(rule, one([{ t: 0, up: 0.123, bookUp: { asks: [[0.123, 9]] } }]), { fees: 'none' });
    expect(free.trades[0]!.fee).toBe(0);
  });

  it('sells the whole position down the bids on an exit, never below min_price', async () => {
    const rule = buyUp({ exit: [{ field: 'side_price', op: '>', value: 0.6 }], min_price: 0.5 });
    const snaps: HandSnapshot[] = [
      { t: 0, up: 0.3, bookUp: { asks: [[0.3, 10]] } },
      { t: 125, up: 0.65, bookUp: { bids: [[0.64, 6], [0.55, 2], [0.45, 50]], asks: [[0.66, 10]] } },
    ];
    // Sell 10: 6 @ 0.64 + 2 @ 0.55, the 0.45 level is under min_price; 2 shares left settle on Up.
    const r = await both(rule, one(snaps));
    expect(r.trades.map((t) => [t.action, t.shares])).toEqual([['buy', 10], ['sell', 8], ['settle', 2]]);
    expect(r.trades[1]).toMatchObject({ vwap: 0.6175, levels: 2 });
  });

  it('keeps cash across markets and computes drawdown, sharpe, win rate and brier', async () => {
    const rule = buyUp();
    const markets = [
      handMarket(T0 + 300_000, 'Down', [{ t: 0, up: 0.5, bookUp: { asks: [[0.5, 100]] } }]),
      handMarket(T0, 'Up', [{ t: 0, up: 0.4, bookUp: { asks: [[0.4, 100]] } }]),
      handMarket(T0 + 600_000, 'Up', [{ t: 0, up: 0.2, bookUp: { asks: [[0.2, 100]] } }]),
    ];
    const r = await both(rule, markets, { fees: 'none' });
    // Oldest first: +6 (Up at 0.4), -5 (Down at 0.5), +8 (Up at 0.2).
    expect(r.markets.map((m) => m.pnl)).toEqual([6, -5, 8]);
    expect(r.equity.map((e) => e.equity)).toEqual([1006, 1001, 1009]);
    expect(r.summary).toMatchObject({ max_drawdown: 5, wins: 2, losses: 1, win_rate: 0.666667, avg_pnl_per_market: 3 });
    // sample sd of [6, -5, 8] = 7; sharpe 3 / 7; brier ((0.4-1)² + (0.5-0)² + (0.2-1)²) / 3.
    expect(r.summary.sharpe).toBe(0.428571);
    expect(r.summary.brier).toBe(0.416667);
  });
});

describe('backtest engine against the reference implementation', () => {
  it('agrees on 300 random markets sets, rules and parameters', async () => {
    let trades = 0;
    for (let seed = 1; seed <= Number(process.env.REF_SEEDS ?? 300); seed++) {
      const c = randomCase(seed);
      const r = await both(c.rule, c.markets, c.params).catch((e: Error) => {
        throw new Error(`seed ${seed}: ${e.message}`);
      });
      trades += r.trades.length;
    }
    // The cases must exercise the model, not skip it.
    expect(trades).toBeGreaterThan(300);
  });
});

/** True when the book at a maker fill's snapshot trades through its price (a cross, not a queue fill). */
function throughPrice(markets: Hand[], t: { market_id: string; filled_at: number; side: string; action: string; vwap: number }): boolean {
  const s = markets.find((h) => h.market.market_id === t.market_id)!.snapshots.find((x) => x.time === t.filled_at)!;
  const b = t.side === 'up' ? s.orderbook_up! : s.orderbook_down!;
  return t.action === 'buy' ? b.asks.some((l) => l.price <= t.vwap) : b.bids.some((l) => l.price >= t.vwap);
}

describe('maker orders: the engine against the reference on random cases', () => {
  // REF_MAKER_SEEDS=20000 runs the full count (see docs/testing.md); the unit tier runs 2,000.
  it('agrees on random maker entries and exits under both fill models', async () => {
    const seen = { maker: 0, queue: 0, rebates: 0, crossed: 0, cancelled: 0 };
    for (let seed = 1; seed <= Number(process.env.REF_MAKER_SEEDS ?? 2000); seed++) {
      const c = randomMakerCase(seed);
      const r = await both(c.rule, c.markets, c.params).catch((e: Error) => {
        throw new Error(`maker seed ${seed}: ${e.message}`);
      });
      const makerFills = r.trades.filter((t) => (t as { kind?: string }).kind === 'maker');
      seen.maker += makerFills.length;
      // A queue fill proper: on a snapshot whose book does not trade through the order's price.
      if (c.params.maker_fill === 'queue') seen.queue += makerFills.filter((t) => !throughPrice(c.markets, t)).length;
      const s = r.summary as Record<string, number>;
      if (s.rebates! > 0) seen.rebates++;
      seen.crossed += s.maker_crossed ?? 0;
      seen.cancelled += s.maker_cancelled ?? 0;
    }
    // The cases must exercise every rule: fills, partial queue fills, rebates, crosses, cancels.
    expect(seen.maker).toBeGreaterThan(200);
    expect(seen.queue).toBeGreaterThan(10);
    expect(seen.rebates).toBeGreaterThan(20);
    expect(seen.crossed).toBeGreaterThan(20);
    expect(seen.cancelled).toBeGreaterThan(20);
  });
});
