// The paper account's arithmetic: an order fills with exactly the numbers the backtest engine (and
// the spec's plain reference implementation) give on the same snapshot, sells realise against the
// average price, resolved markets settle as the backtest settles them, and refusals say why.
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../backtest/engine/engine.js';
import { flatFees, MARKET_FEES } from '../backtest/model/fee-model.js';
import type { Trade } from '../backtest/model/result.js';
import type { RuleStrategy } from '../backtest/strategy/strategy.js';
import { referenceBacktest } from '../backtest/test-support/reference-backtest.js';
import { book, seriesOf, snap, sourceOf, testMarket } from '../backtest/test-support/markets.js';
import type { Market, Snapshot } from '../domain/market.js';
import { accountView, executeOrder, settleResolved, type OrderRequest, type PaperBook } from './paper-account.js';

const RATE = 0.07;
const FEES = flatFees(RATE);
const fresh = (cash = 1000): PaperBook => ({ money: { cash, realizedPnl: 0, fees: 0, rebates: 0 }, positions: [], resting: [], pendingRebates: new Map() });
const active = (m: Market): Market => ({ ...m, status: 'active', winner: null });

/** The engine's first trade when a strategy buys `size` of `side` on the one snapshot `s`. */
async function engineBuy(m: Market, s: Snapshot, side: 'up' | 'down', size: number, cash: number, maxPrice?: number): Promise<Trade> {
  const rule: RuleStrategy = { name: 'once', side, size, entry: [{ field: 'price_up', op: '>=', value: 0 }], ...(maxPrice !== undefined ? { max_price: maxPrice } : {}) };
  const r = await runBacktest(rule, sourceOf(seriesOf(m, [s])), { cash });
  return r.trades[0]!;
}

/** The spec's reference implementation on the same snapshot. */
function referenceBuy(m: Market, s: Snapshot, side: 'up' | 'down', size: number, cash: number, maxPrice?: number): Record<string, unknown> {
  const rule = { name: 'once', side, size, entry: [{ field: 'price_up', op: '>=' as const, value: 0 }], ...(maxPrice !== undefined ? { max_price: maxPrice } : {}) };
  const r = referenceBacktest(rule, [{ market: m, snapshots: [s] }], { cash, latency_ms: 0, fee_rate: RATE, fees: 'taker', no_book: 'quote' });
  return r.trades[0] as Record<string, unknown>;
}

const NUMBERS = ['shares_requested', 'shares', 'vwap', 'fee', 'cash_after', 'depth', 'levels', 'filled_at'] as const;
const numbersOf = (t: Record<string, unknown>) => Object.fromEntries(NUMBERS.map((k) => [k, t[k]]));

describe('an order fills as the backtest fills it', () => {
  const m = testMarket(0, 'Up');
  const cases: { name: string; s: Snapshot; side: 'up' | 'down'; size: number; cash: number; maxPrice?: number }[] = [
    { name: 'across levels, fill-and-kill', s: snap(m, 0, 0.3, { up: book([[0.29, 50]], [[0.3, 4], [0.32, 3]]) }), side: 'up', size: 10, cash: 1000 },
    { name: 'up to the limit price', s: snap(m, 125, 0.3, { up: book([], [[0.3, 4], [0.32, 3]]) }), side: 'up', size: 10, cash: 1000, maxPrice: 0.31 },
    { name: 'within the cash, to 0.01 share', s: snap(m, 250, 0.3, { up: book([], [[0.3, 4], [0.32, 10]]) }), side: 'up', size: 10, cash: 2 },
    { name: 'at the quote without a book', s: snap(m, 375, 0.41), side: 'down', size: 12.5, cash: 1000 },
    { name: 'decimal level sizes', s: snap(m, 500, 0.5, { down: book([], [[0.47, 3.3], [0.48, 6.7], [0.5, 100]]) }), side: 'down', size: 28.65, cash: 1000 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const b = fresh(c.cash);
      const req: OrderRequest = { market_id: m.market_id, side: c.side, action: 'buy', shares: c.size, ...(c.maxPrice !== undefined ? { max_price: c.maxPrice } : {}) };
      const step = executeOrder(b, req, active(m), c.s, FEES, c.s.time + 40);
      const line = step.lines[0]!;
      const engine = await engineBuy(m, c.s, c.side, c.size, c.cash, c.maxPrice);
      expect(numbersOf(line as unknown as Record<string, unknown>)).toEqual(numbersOf(engine as unknown as Record<string, unknown>));
      expect(numbersOf(line as unknown as Record<string, unknown>)).toEqual(numbersOf(referenceBuy(m, c.s, c.side, c.size, c.cash, c.maxPrice)));
      expect(line.status).toBe(line.shares < c.size ? 'partial' : 'filled');
      expect(line.created_at).toBe(c.s.time + 40);
      expect(b.positions).toEqual([{ marketId: m.market_id, side: c.side, shares: engine.shares, cost: expect.any(Number) }]);
    });
  }

  it('settles as the engine settles: the winning side pays 1, the other 0, up first', async () => {
    const s = snap(m, 0, 0.3, { up: book([], [[0.3, 10]]), down: book([], [[0.71, 10]]) });
    const b = fresh();
    executeOrder(b, { market_id: m.market_id, side: 'down', action: 'buy', shares: 5 }, active(m), s, FEES, s.time);
    executeOrder(b, { market_id: m.market_id, side: 'up', action: 'buy', shares: 10 }, active(m), s, FEES, s.time);
    const step = settleResolved(b, () => m, m.end_time + 5);
    expect(step.lines.map((l) => [l.side, l.vwap, l.shares, l.filled_at])).toEqual([
      ['up', 1, 10, m.end_time],
      ['down', 0, 5, m.end_time],
    ]);
    expect(b.positions.every((p) => p.shares === 0)).toBe(true);
    // 10 up at 0.3 (fee 0.147) and 5 down at 0.71 (fee 0.07 × 5 × 0.71 × 0.29 = 0.072065 → 0.07207): cash 1000 − 3.147 − 3.62207 + 10.
    expect(step.lines.at(-1)!.cash_after).toBe(1003.23093);
    expect(accountView(b)).toEqual({ cash: 1003.23093, positions: [], realized_pnl: 3.45, fees: 0.21907, reserved_cash: 0, rebates: 0 });
    // Settling twice pays nothing more.
    expect(settleResolved(b, () => m, m.end_time + 10).lines).toEqual([]);
  });
});

describe('the account', () => {
  const m = testMarket(1, 'Down');
  const s = snap(m, 0, 0.4, { up: book([[0.38, 100], [0.36, 100]], [[0.4, 100]]) });

  it('sells against the average price: realized pnl without fees, fees apart, cash adds up', () => {
    const b = fresh();
    executeOrder(b, { market_id: m.market_id, side: 'up', action: 'buy', shares: 100 }, active(m), s, FEES, s.time);
    // 100 at 0.40, fee 100 × 0.07 × 0.4 × 0.6 = 1.68.
    const sell = executeOrder(b, { market_id: m.market_id, side: 'up', action: 'sell', shares: 60, min_price: 0.37 }, active(m), s, FEES, s.time);
    // 60 at 0.38 (the best bid), fee 60 × 0.07 × 0.38 × 0.62 = 0.98952; realized 60 × (0.38 − 0.40) = −1.2.
    expect(sell.lines[0]).toMatchObject({ status: 'filled', shares: 60, vwap: 0.38, levels: 1, fee: 0.98952, cash_after: 980.13048 });
    const view = accountView(b);
    expect(view).toEqual({ cash: 980.13048, positions: [{ market_id: m.market_id, side: 'up', shares: 40, avg_price: 0.4 }], realized_pnl: -1.2, fees: 2.66952, reserved_cash: 0, rebates: 0 });
    // cash = start − shares × avg_price + realized − fees.
    expect(view.cash).toBeCloseTo(1000 - 40 * 0.4 + view.realized_pnl - view.fees, 9);
    // A sell larger than the position sells the position (no shorting) and says partial.
    const rest = executeOrder(b, { market_id: m.market_id, side: 'up', action: 'sell', shares: 50, min_price: 0.37 }, active(m), s, FEES, s.time);
    expect(rest.lines[0]).toMatchObject({ status: 'partial', shares_requested: 50, shares: 40 });
    expect(accountView(b).positions).toEqual([]);
    expect(accountView(b).realized_pnl).toBe(-2);
  });

  it('leaves no binary residue when a decimal position is sold whole', () => {
    const b = fresh();
    const d = snap(m, 0, 0.5, { up: book([[0.47, 3.3], [0.46, 6.7], [0.45, 100]], [[0.47, 3.3], [0.48, 6.7], [0.5, 100]]) });
    executeOrder(b, { market_id: m.market_id, side: 'up', action: 'buy', shares: 28.65 }, active(m), d, FEES, d.time);
    executeOrder(b, { market_id: m.market_id, side: 'up', action: 'sell', shares: 28.65 }, active(m), d, FEES, d.time);
    expect(b.positions[0]).toMatchObject({ shares: 0, cost: 0 });
  });

  it('rejects with a reason and changes nothing', () => {
    const cases: [string, PaperBook, OrderRequest, Market, Snapshot | undefined][] = [
      ['market_closed', fresh(), { market_id: m.market_id, side: 'up', action: 'buy', shares: 1 }, m, s],
      ['no_snapshot', fresh(), { market_id: m.market_id, side: 'up', action: 'buy', shares: 1 }, active(m), undefined],
      ['no_position', fresh(), { market_id: m.market_id, side: 'up', action: 'sell', shares: 1 }, active(m), s],
      ['insufficient_cash', fresh(0.004), { market_id: m.market_id, side: 'up', action: 'buy', shares: 1 }, active(m), s],
      ['no_fill', fresh(), { market_id: m.market_id, side: 'up', action: 'buy', shares: 1, max_price: 0.39 }, active(m), s],
    ];
    for (const [reason, b, req, market, snapshot] of cases) {
      const before = JSON.stringify(b);
      const step = executeOrder(b, req, market, snapshot, FEES, 7);
      expect(step.lines).toEqual([
        {
          created_at: 7, status: 'rejected', reason, market_id: m.market_id, side: 'up', action: req.action,
          shares_requested: 1, shares: 0, vwap: null, fee: 0, filled_at: 7, depth: false, levels: 0, cash_after: b.money.cash, fee_shares: 0, type: 'market', price: null, rebate: 0, expires_at: null,
        },
      ]);
      expect(step.touched).toEqual([]);
      expect(JSON.stringify({ ...b, positions: b.positions.filter((p) => p.shares > 0) })).toBe(before);
    }
  });

  it('settles only markets the clock shows resolved with a winner', () => {
    const b = fresh();
    executeOrder(b, { market_id: m.market_id, side: 'up', action: 'buy', shares: 10 }, active(m), s, FEES, s.time);
    expect(settleResolved(b, () => active(m), 1).lines).toEqual([]);
    expect(settleResolved(b, () => ({ ...m, winner: null }), 1).lines).toEqual([]);
    expect(settleResolved(b, () => undefined, 1).lines).toEqual([]);
    const step = settleResolved(b, () => m, 9);
    expect(step.lines).toEqual([
      {
        created_at: 9, status: 'filled', market_id: m.market_id, side: 'up', action: 'settle', shares_requested: 10, shares: 10,
        vwap: 0, fee: 0, filled_at: m.end_time, depth: true, levels: 0, cash_after: 995.832, fee_shares: 0, type: 'market', price: null, rebate: 0, expires_at: null,
      },
    ]);
    expect(accountView(b)).toMatchObject({ cash: 995.832, realized_pnl: -4, fees: 0.168 });
  });
});

describe('paper fills pay the fee schedule the backtest pays', () => {
  const at = (start: number, fees?: Market['fee_schedule']): Market => {
    const m = testMarket(0, 'Up');
    const id = `btc-updown-5m-${start / 1000}`;
    return { ...m, market_id: id, slug: id, start_time: start, end_time: start + 300_000, ...(fees ? { fee_schedule: fees } : {}) };
  };
  const cases: [string, Market][] = [
    ['a 5m market before 2026-03-30: 0.25, exponent 2, paid in shares', at(Date.UTC(2026, 2, 1))],
    ['a market from 2026-03-30: 0.07 paid in shares', at(Date.UTC(2026, 3, 10))],
    ['a market from 2026-04-28: 0.07 in USDC', at(Date.UTC(2026, 4, 1))],
    ['a stored schedule', at(Date.UTC(2026, 2, 1), { rate: 0.1, exponent: 1, taker_only: true, rebate_rate: 0.2, buy_fee_in: 'usdc' })],
  ];
  for (const [name, m] of cases) {
    it(name, async () => {
      const s = snap(m, 0, 0.5, { up: book([[0.49, 100]], [[0.5, 60], [0.52, 100]]) });
      const b = fresh();
      const line = executeOrder(b, { market_id: m.market_id, side: 'up', action: 'buy', shares: 100 }, active(m), s, MARKET_FEES, s.time).lines[0]!;
      const engine = await engineBuy(m, s, 'up', 100, 1000);
      expect(numbersOf(line as unknown as Record<string, unknown>)).toEqual(numbersOf(engine as unknown as Record<string, unknown>));
      // The position holds what the buyer received: the shares less a fee paid in shares.
      expect(b.positions[0]!.shares).toBeCloseTo(engine.shares - engine.fee_shares, 9);
      expect(accountView(b).fees).toBe(engine.fee);
    });
  }
});
