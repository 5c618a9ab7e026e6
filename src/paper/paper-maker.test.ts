// Resting limit orders on a paper account, on hand-made books with the numbers worked out by hand:
// post-only, the reserve, fills by each maker model, fees and rebates by the market's schedule,
// expiry, the market's end, promised shares, and settlement waiting for an order still open.
import { describe, expect, it } from 'vitest';
import { eraSchedule, flatFees, MARKET_FEES } from '../backtest/model/fee-model.js';
import type { MakerFillModel } from '../backtest/model/maker-fill.js';
import { book, seriesOf, snap, testMarket, type Levels } from '../backtest/test-support/markets.js';
import type { Market, Snapshot } from '../domain/market.js';
import type { FeeSchedule } from '../domain/fee-schedule.js';
import type { PaperOrderLine, RestingOrder } from '../store/paper-ledger.js';
import { accountView, executeOrder, settleResolved, type PaperBook } from './paper-account.js';
import { postLimit, stepResting, type LimitRequest } from './paper-maker.js';

const m: Market = testMarket(0, null);
const fresh = (cash = 1000): PaperBook => ({ money: { cash, realizedPnl: 0, fees: 0, rebates: 0 }, positions: [], resting: [], pendingRebates: new Map() });
/** A snapshot `ms` into the market with the up side's book. */
const at = (ms: number, bids: Levels, asks: Levels): Snapshot => snap(m, ms, 0.5, { up: book(bids, asks) });
const buy = (price: number, shares = 10, extra: Partial<LimitRequest> = {}): LimitRequest => ({ market_id: m.market_id, side: 'up', action: 'buy', shares, price, ...extra });

/** Posts `req` on `live`, then steps it on `later` at clock `now`; the book, the line and the resting state. */
function run(b: PaperBook, req: LimitRequest, live: Snapshot, later: Snapshot[], schedule: FeeSchedule, model: MakerFillModel, now: number, caughtUp = true) {
  const posted = postLimit(b, req, m, seriesOf(m, [live]), schedule, model, live.time + 1);
  const line: PaperOrderLine = { ...posted.line };
  if (!posted.resting) return { line, resting: undefined, stepped: undefined };
  const resting: RestingOrder = { ...posted.resting, orderId: 1 };
  b.resting.push(resting);
  const stepped = stepResting(b, resting, line, m, later.length ? seriesOf(m, later) : undefined, schedule, now, caughtUp);
  return { line, resting, stepped };
}

describe('posting', () => {
  it('rejects an order the book would fill at once (crosses) and changes nothing', () => {
    const b = fresh();
    const s = at(0, [[0.44, 100]], [[0.47, 50]]);
    expect(postLimit(b, buy(0.47), m, seriesOf(m, [s]), eraSchedule(m), 'cross', 5).line).toMatchObject({ status: 'rejected', reason: 'crosses', type: 'limit', price: 0.47 });
    const sell = { ...buy(0.44), action: 'sell' as const };
    b.positions.push({ marketId: m.market_id, side: 'up', shares: 10, cost: 4 });
    expect(postLimit(b, sell, m, seriesOf(m, [s]), eraSchedule(m), 'cross', 5).line).toMatchObject({ status: 'rejected', reason: 'crosses' });
    expect(b.money.cash).toBe(1000);
  });

  it('rejects without a snapshot, on a closed market, and beyond the cash', () => {
    const b = fresh(4);
    const s = at(0, [[0.44, 100]], [[0.47, 50]]);
    expect(postLimit(b, buy(0.45), m, undefined, eraSchedule(m), 'cross', 5).line.reason).toBe('no_snapshot');
    expect(postLimit(b, buy(0.45), { ...m, status: 'resolved' }, seriesOf(m, [s]), eraSchedule(m), 'cross', 5).line.reason).toBe('market_closed');
    // 10 × 0.45 = 4.5 > 4.
    expect(postLimit(b, buy(0.45), m, seriesOf(m, [s]), eraSchedule(m), 'cross', 5).line.reason).toBe('insufficient_cash');
    expect(b.money.cash).toBe(4);
  });

  it('holds a buy\'s cost (and a USDC maker fee) apart from the cash while it rests', () => {
    const s = at(0, [[0.44, 100]], [[0.47, 50]]);
    const taker = fresh();
    const posted = postLimit(taker, buy(0.45), m, seriesOf(m, [s]), eraSchedule(m), 'cross', 7);
    // Taker-only schedule: makers pay no fee, so only 10 × 0.45 is held.
    expect(posted.line).toMatchObject({ status: 'open', shares: 0, vwap: null, filled_at: s.time, created_at: 7, cash_after: 995.5 });
    expect(posted.resting).toMatchObject({ reserved: 4.5, remaining: 10, evaluatedTo: s.time });
    taker.resting.push({ ...posted.resting!, orderId: 1 });
    expect(accountView(taker)).toMatchObject({ cash: 995.5, reserved_cash: 4.5 });
    // A flat 0.07 paid by makers in USDC: 10 × 0.07 × 0.45 × 0.55 = 0.17325 is held too.
    const flat = fresh();
    expect(postLimit(flat, buy(0.45), m, seriesOf(m, [s]), flatFees(0.07).scheduleFor(m), 'cross', 7).resting?.reserved).toBeCloseTo(4.67325, 9);
  });
});

describe('fills', () => {
  it('cross: fills all at P on the first snapshot whose ask is at or below P; taker-only: no fee, a rebate of 0.2 × the taker fee', () => {
    const b = fresh();
    const s0 = at(0, [[0.44, 100]], [[0.47, 50]]);
    const { line, stepped } = run(b, buy(0.45), s0, [at(1000, [[0.44, 100]], [[0.46, 50]]), at(2000, [[0.44, 100]], [[0.45, 3]])], MARKET_FEES.scheduleFor(m), 'cross', m.start_time + 2500);
    // Taker fee 10 × 0.07 × 0.45 × 0.55 = 0.17325; rebate 0.2 × it = 0.03465, paid at the market's end.
    expect(line).toMatchObject({ status: 'filled', shares: 10, vwap: 0.45, fee: 0, rebate: 0.03465, filled_at: m.start_time + 2000, levels: 1, depth: true, cash_after: 995.5 });
    expect(stepped).toMatchObject({ changed: true, closed: true });
    expect(b.money).toEqual({ cash: 995.5, realizedPnl: 0, fees: 0, rebates: 0.03465 });
    expect(b.pendingRebates).toEqual(new Map([[m.market_id, 0.03465]]));
    expect(b.positions).toEqual([{ marketId: m.market_id, side: 'up', shares: 10, cost: 4.5 }]);
    // Paid into cash once the market has ended, before its settlement line; not before (the desk
    // drops a closed order from the book).
    b.resting.length = 0;
    expect(settleResolved(b, () => m, m.end_time - 1).lines).toEqual([]);
    expect(b.money.cash).toBe(995.5);
    const settled = settleResolved(b, () => ({ ...m, status: 'resolved', winner: 'Up' }), m.end_time);
    expect(settled.lines[0]).toMatchObject({ action: 'settle', shares: 10, cash_after: 1005.53465 });
    expect(b.pendingRebates.size).toBe(0);
  });

  it('queue: joins behind the size at P; falls are taken from the front, what passes the order fills it; a fee paid in USDC', () => {
    const b = fresh();
    const fees = flatFees(0.07).scheduleFor(m);
    const s0 = at(0, [[0.45, 30]], [[0.47, 50]]);
    const later = [
      at(1000, [[0.45, 40]], [[0.47, 50]]), // a rise joins behind: nothing
      at(2000, [[0.45, 4]], [[0.47, 50]]), // a fall of 36: 30 ahead, 6 fill
      at(3000, [[0.44, 9]], [[0.45, 2]]), // the ask reaches P: the 4 left fill
    ];
    const { line, resting } = run(b, buy(0.45), s0, later, fees, 'queue', m.start_time + 3500);
    // Fees 6 × 0.07 × 0.2475 = 0.10395 and 4 × 0.07 × 0.2475 = 0.0693; cash pays 4.5 + 0.17325.
    expect(line).toMatchObject({ status: 'filled', shares: 10, vwap: 0.45, fee: 0.17325, rebate: 0, levels: 2, filled_at: m.start_time + 3000 });
    expect(resting?.reserved).toBe(0);
    expect(b.money.cash).toBeCloseTo(1000 - 4.5 - 0.17325, 9);
    expect(b.money.fees).toBeCloseTo(0.17325, 9);
  });

  it('queue: a partial fill leaves the rest resting with its reserve', () => {
    const b = fresh();
    const s0 = at(0, [[0.45, 30]], [[0.47, 50]]);
    const { line, resting, stepped } = run(b, buy(0.45), s0, [at(1000, [[0.45, 24]], [[0.47, 50]])], MARKET_FEES.scheduleFor(m), 'queue', m.start_time + 1500);
    // A fall of 6 against 30 ahead: nothing passes yet; then 30 − 6 = 24 ahead.
    expect(line.status).toBe('open');
    expect(resting).toMatchObject({ remaining: 10, ahead: 24, lastSize: 24, evaluatedTo: m.start_time + 1000, reserved: 4.5 });
    expect(stepped).toMatchObject({ changed: true, closed: false });
    const step2 = stepResting(b, resting!, line, m, seriesOf(m, [at(2000, [[0.45, 17]], [[0.47, 50]])]), MARKET_FEES.scheduleFor(m), m.start_time + 2500, true);
    // A fall of 7 against 24 ahead: still nothing. Then a fall of 17 + 10: the level empties (a worse bid shows): 24 − 7 = 17 ahead, 0 passes.
    expect(step2.closed).toBe(false);
    const step3 = stepResting(b, resting!, line, m, seriesOf(m, [at(3000, [[0.44, 5]], [[0.47, 50]])]), MARKET_FEES.scheduleFor(m), m.start_time + 3500, true);
    expect(step3.closed).toBe(false);
    expect(line).toMatchObject({ status: 'open', shares: 0 });
    expect(resting).toMatchObject({ ahead: 0, remaining: 10 });
  });

  it('pays a buy\'s fee in shares where the schedule says so (the 2026-03-30 era): fewer shares, cash pays the cost only', () => {
    const early = { ...m, start_time: Date.UTC(2026, 3, 1), end_time: Date.UTC(2026, 3, 1) + 300_000 };
    const schedule = eraSchedule(early);
    expect(schedule).toMatchObject({ buy_fee_in: 'shares', taker_only: false });
    const b = fresh();
    const { line } = run(b, buy(0.45), at(0, [[0.44, 100]], [[0.47, 50]]), [at(1000, [[0.44, 100]], [[0.45, 50]])], schedule, 'cross', m.start_time + 1500);
    // 0.17325 shares as the fee, worth 0.17325 × 0.45 = 0.0779625 → 0.07796.
    expect(line).toMatchObject({ shares: 10, fee: 0.07796, fee_shares: 0.17325, rebate: 0 });
    expect(b.positions[0]!.shares).toBeCloseTo(9.82675, 9);
    expect(b.money.cash).toBeCloseTo(995.5, 9);
  });

  it('sells: promised shares are not for a market sell, nor for a second resting sell', () => {
    const b = fresh();
    b.positions.push({ marketId: m.market_id, side: 'up', shares: 10, cost: 4 });
    const s = at(0, [[0.52, 100]], [[0.56, 50]]);
    const sell = (shares: number): LimitRequest => ({ ...buy(0.55, shares), action: 'sell' });
    const first = postLimit(b, sell(6), m, seriesOf(m, [s]), eraSchedule(m), 'cross', 1);
    expect(first.line.status).toBe('open');
    b.resting.push({ ...first.resting!, orderId: 1 });
    // A second sell rests for the 4 shares not promised yet, as the engine caps it (checked on a copy).
    const copy: PaperBook = { money: { ...b.money }, positions: b.positions.map((p) => ({ ...p })), resting: [...b.resting] };
    const capped = postLimit(copy, sell(5), m, seriesOf(m, [s]), eraSchedule(m), 'cross', 1);
    expect([capped.line.status, capped.line.shares_requested, capped.resting?.remaining]).toEqual(['open', 4, 4]);
    const market = executeOrder(b, { market_id: m.market_id, side: 'up', action: 'sell', shares: 10 }, m, s, MARKET_FEES, 2);
    expect(market.lines[0]).toMatchObject({ status: 'partial', shares: 4 });
    expect(postLimit(b, sell(1), m, seriesOf(m, [s]), eraSchedule(m), 'cross', 1).line.reason).toBe('no_position');
    // The resting sell fills when the bid reaches 0.55: 6 × 0.55 in, against the average cost 0.4.
    const line = { ...first.line };
    stepResting(b, b.resting[0]!, line, m, seriesOf(m, [at(1000, [[0.55, 9]], [[0.57, 50]])]), eraSchedule(m), m.start_time + 1500, true);
    expect(line).toMatchObject({ status: 'filled', shares: 6, vwap: 0.55, fee: 0 });
    expect(b.positions[0]!.shares).toBe(0);
    expect(b.money.realizedPnl).toBeCloseTo(4 * (0.52 - 0.4) + 6 * (0.55 - 0.4), 9);
  });
});

describe('closing', () => {
  it('expires at its time to live: snapshots from then on are not stepped, the reserve comes back', () => {
    const b = fresh();
    const s0 = at(0, [[0.44, 100]], [[0.47, 50]]);
    const { line, stepped } = run(b, buy(0.45, 10, { ttl_ms: 1000 }), s0, [at(500, [[0.44, 100]], [[0.46, 5]]), at(1500, [[0.44, 100]], [[0.45, 5]])], MARKET_FEES.scheduleFor(m), 'cross', s0.time + 2000);
    expect(line).toMatchObject({ status: 'expired', shares: 0, expires_at: s0.time + 1001, cash_after: 1000 });
    expect(stepped?.closed).toBe(true);
    expect(b.money.cash).toBe(1000);
  });

  it('rests on until the clock passes its expiry with every snapshot read', () => {
    const b = fresh();
    const s0 = at(0, [[0.44, 100]], [[0.47, 50]]);
    const { line } = run(b, buy(0.45, 10, { ttl_ms: 1000 }), s0, [at(500, [[0.44, 100]], [[0.46, 5]])], MARKET_FEES.scheduleFor(m), 'cross', s0.time + 2000, false);
    expect(line.status).toBe('open');
  });

  it('is cancelled at its market\'s end after its last snapshot is stepped; a fill there counts', () => {
    const end = m.end_time;
    const last = snap(m, 300_000, 0.5, { up: book([[0.44, 100]], [[0.46, 5]]) });
    const open = run(fresh(), buy(0.45), at(0, [[0.44, 100]], [[0.47, 50]]), [last], MARKET_FEES.scheduleFor(m), 'cross', end + 1);
    expect(open.line).toMatchObject({ status: 'cancelled', reason: 'market_end', cash_after: 1000 });
    const crossing = snap(m, 300_000, 0.5, { up: book([[0.44, 100]], [[0.45, 5]]) });
    expect(run(fresh(), buy(0.45), at(0, [[0.44, 100]], [[0.47, 50]]), [crossing], MARKET_FEES.scheduleFor(m), 'cross', end + 1).line.status).toBe('filled');
    // Not every snapshot read yet: it waits.
    expect(run(fresh(), buy(0.45), at(0, [[0.44, 100]], [[0.47, 50]]), [last], MARKET_FEES.scheduleFor(m), 'cross', end + 1, false).line.status).toBe('open');
  });

  it('settlement waits for a market\'s resting orders to close', () => {
    const b = fresh();
    b.positions.push({ marketId: m.market_id, side: 'up', shares: 10, cost: 4 });
    const { resting } = run(b, buy(0.45), at(0, [[0.44, 100]], [[0.47, 50]]), [], MARKET_FEES.scheduleFor(m), 'cross', m.start_time + 10);
    const resolved: Market = { ...m, status: 'resolved', winner: 'Up' };
    expect(settleResolved(b, () => resolved, 1).lines).toEqual([]);
    b.resting.splice(b.resting.indexOf(resting!), 1);
    expect(settleResolved(b, () => resolved, 1).lines).toHaveLength(1);
  });
});
