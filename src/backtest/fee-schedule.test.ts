// Fee schedules per market and era (BACKTEST.md "Version 2" → "Fee schedule per market"): the engine
// against figures worked out by hand here and against the plain reference (test-support/reference-fees.ts,
// written from BACKTEST.md alone), for each era and type, per-level rounding, the 0.00001 floor, the
// buy paid in shares, a stored schedule, and the flags that override it.
import { describe, expect, it } from 'vitest';
import type { FeeSchedule } from '../domain/fee-schedule.js';
import { MARKET_DURATION_MS, type MarketType } from '../domain/market.js';
import { handMarket, type HandSnapshot } from './test-support/hand-market.js';
import { engineAndReference, moved, type Hand } from './test-support/engine-vs-reference.js';
import type { RefParams, RefRule } from './test-support/reference-backtest.js';
import { lastDigit, randomCase, randomPicks } from './test-support/random-case.js';

const ERA_1 = Date.UTC(2026, 2, 1); // before 2026-03-30
const ERA_2 = Date.UTC(2026, 3, 10); // 2026-03-30 to 2026-04-28
const ERA_3 = Date.UTC(2026, 4, 1); // from 2026-04-28

/** A market of `type` starting at `start`, one snapshot at its start, won by Up; a stored schedule when given. */
function market(type: MarketType, start: number, snap: Omit<HandSnapshot, 't'>, fees?: FeeSchedule): Hand {
  return moved(handMarket(start, 'Up', [{ t: 0, ...snap }]), start, type, fees ? { fees } : {});
}

const buyUp = (size: number, over: Partial<RefRule> = {}): RefRule => ({ name: 'fees', side: 'up', size, entry: [{ field: 'elapsed_ms', op: '>=', value: 0 }], ...over });

/** The engine and the reference on the same case: every trade and the summary must agree exactly. */
const both = (rule: RefRule, hands: Hand | Hand[], params: Partial<RefParams> = {}, close?: (v: unknown) => unknown) =>
  engineAndReference(rule, Array.isArray(hands) ? hands : [hands], params, close);

const ASK_40 = { up: 0.4, bookUp: { asks: [[0.4, 100]] as [number, number][] } };

describe('the era table: a market without a stored schedule pays its era', () => {
  // 10 shares bought at 0.40, p × (1 − p) = 0.24, then settled at 1 (Up won).
  const cases: [string, MarketType, number, { fee: number; fee_shares: number; cash_after: number; held: number }][] = [
    // 10 × 0.25 × 0.24² = 0.144 shares, worth 0.144 × 0.4 = 0.0576; cash pays only 4.
    ['5m before 2026-03-30', '5m', ERA_1, { fee: 0.0576, fee_shares: 0.144, cash_after: 996, held: 9.856 }],
    ['15m before 2026-03-30', '15m', ERA_1, { fee: 0.0576, fee_shares: 0.144, cash_after: 996, held: 9.856 }],
    ['1hr before 2026-03-30 (no fee)', '1hr', ERA_1, { fee: 0, fee_shares: 0, cash_after: 996, held: 10 }],
    ['4hr before 2026-03-30 (no fee)', '4hr', ERA_1, { fee: 0, fee_shares: 0, cash_after: 996, held: 10 }],
    ['24hr before 2026-03-30 (no fee)', '24hr', ERA_1, { fee: 0, fee_shares: 0, cash_after: 996, held: 10 }],
    // 10 × 0.07 × 0.24 = 0.168 shares, worth 0.0672.
    ['5m from 2026-03-30', '5m', ERA_2, { fee: 0.0672, fee_shares: 0.168, cash_after: 996, held: 9.832 }],
    ['1hr from 2026-03-30', '1hr', ERA_2, { fee: 0.0672, fee_shares: 0.168, cash_after: 996, held: 9.832 }],
    // 0.168 USDC on top of 4.
    ['5m from 2026-04-28 (USDC)', '5m', ERA_3, { fee: 0.168, fee_shares: 0, cash_after: 995.832, held: 10 }],
    ['24hr from 2026-04-28 (USDC)', '24hr', ERA_3, { fee: 0.168, fee_shares: 0, cash_after: 995.832, held: 10 }],
  ];
  for (const [name, type, start, want] of cases) {
    it(name, async () => {
      const r = await both(buyUp(10), market(type, start, ASK_40));
      expect(r.trades[0]).toMatchObject({ action: 'buy', shares: 10, vwap: 0.4, fee: want.fee, fee_shares: want.fee_shares, cash_after: want.cash_after });
      // The settlement pays the shares received: C − F where the fee is paid in shares.
      expect(r.trades[1]).toMatchObject({ action: 'settle', shares: want.held, vwap: 1, fee: 0, fee_shares: 0 });
      expect(r.summary.end_cash).toBeCloseTo(want.cash_after + want.held, 9);
    });
  }
  it('the era boundaries are the first instants of 2026-03-30 and 2026-04-28 (UTC)', async () => {
    const edge = (start: number) => both(buyUp(10), market('5m', start, ASK_40)).then((r) => r.trades[0]!.fee_shares);
    expect(await edge(Date.UTC(2026, 2, 30) - 300_000)).toBe(0.144);
    expect(await edge(Date.UTC(2026, 2, 30))).toBe(0.168);
    expect(await edge(Date.UTC(2026, 3, 28) - 300_000)).toBe(0.168);
    expect(await edge(Date.UTC(2026, 3, 28))).toBe(0);
  });
});

describe('the fee of a taker fill', () => {
  it("reproduces Polymarket's example: 100 shares at 0.50 pay 1.5625 shares, worth $0.78", async () => {
    const r = await both(buyUp(100), market('5m', ERA_1, { up: 0.5, bookUp: { asks: [[0.5, 200]] } }));
    // 100 × 0.25 × (0.5 × 0.5)² = 1.5625 shares; × 0.50 = 0.78125 USDC. Cash pays 50 only; 98.4375 shares held.
    expect(r.trades[0]).toMatchObject({ shares: 100, vwap: 0.5, fee: 0.78125, fee_shares: 1.5625, cash_after: 950 });
    expect(r.trades[1]).toMatchObject({ action: 'settle', shares: 98.4375 });
    expect(r.summary).toMatchObject({ end_cash: 1048.4375, fees: 0.78125, shares_bought: 100 });
  });

  it('rounds each level to 5 decimals (version 1 rounded the sum; here they differ)', async () => {
    // 1 share at each of 0.33, 0.34, 0.36 (era from 2026-04-28: 0.07, USDC):
    // 0.07 × 0.2211 = 0.015477 → 0.01548; 0.07 × 0.2244 = 0.015708 → 0.01571; 0.07 × 0.2304 = 0.016128 → 0.01613.
    // Per level: 0.04732. Version 1's round5(0.047313) would be 0.04731.
    const r = await both(buyUp(3), market('5m', ERA_3, { up: 0.33, bookUp: { asks: [[0.33, 1], [0.34, 1], [0.36, 1]] } }));
    expect(r.trades[0]).toMatchObject({ shares: 3, levels: 3, fee: 0.04732, cash_after: 1000 - 1.03 - 0.04732 });
  });

  it('charges 0 for an F under 0.00001 (plain rounding would charge 0.00001)', async () => {
    // 0.01 × 0.07 × 0.01 × 0.99 = 0.00000693: under the floor, 0. At 0.5, 0.01 share: 0.000175 → 0.00018.
    const tiny = await both(buyUp(0.01), market('5m', ERA_3, { up: 0.01, bookUp: { asks: [[0.01, 5]] } }));
    expect(tiny.trades[0]).toMatchObject({ shares: 0.01, fee: 0, cash_after: 999.9999 });
    const small = await both(buyUp(0.01), market('5m', ERA_3, { up: 0.5, bookUp: { asks: [[0.5, 5]] } }));
    expect(small.trades[0]).toMatchObject({ fee: 0.00018 });
  });

  it('a buy paid in shares over two levels: F per level, its USDC value per level', async () => {
    // Era 2 (0.07, shares): 5 at 0.30: 5 × 0.07 × 0.21 = 0.0735 sh (× 0.3 = 0.02205); 5 at 0.35: 5 × 0.07 × 0.2275 = 0.079625 → 0.07963 sh (× 0.35 = 0.0278705 → 0.02787).
    const r = await both(buyUp(10), market('15m', ERA_2, { up: 0.3, bookUp: { asks: [[0.3, 5], [0.35, 5]] } }));
    expect(r.trades[0]).toMatchObject({ shares: 10, levels: 2, fee_shares: 0.15313, fee: 0.04992, cash_after: 996.75 });
    expect(r.trades[1]).toMatchObject({ action: 'settle', shares: 9.84687 });
  });

  it('a sell pays in USDC in every era, from its proceeds', async () => {
    const rule = buyUp(10, { exit: [{ field: 'elapsed_ms', op: '>=', value: 1000 }] });
    const h = market('5m', ERA_1, ASK_40);
    h.snapshots.push({ ...h.snapshots[0]!, time: h.market.start_time + 1000, orderbook_up: { bids: [{ price: 0.5, size: 100 }], asks: [] } });
    const r = await both(rule, h);
    // Bought 10 at 0.40, 0.144 shares paid: 9.856 held. Sold at 0.50: 9.856 × 0.25 × 0.25² = 0.154 USDC.
    expect(r.trades[1]).toMatchObject({ action: 'sell', shares: 9.856, fee: 0.154, fee_shares: 0, cash_after: 996 + 4.928 - 0.154 });
  });

  it('a buy short of cash takes what the cash pays for, price plus the level rounded fee', async () => {
    // Cash 2 at 0.40 (0.07, USDC): a share costs 0.4168; floor(2 / 0.4168, 0.01) = 4.79: 1.916 + round5(0.080472) = 1.99647.
    const r = await both(buyUp(10), market('5m', ERA_3, ASK_40), { cash: 2 });
    expect(r.trades[0]).toMatchObject({ shares: 4.79, fee: 0.08047, cash_after: 0.00353 });
  });
});

describe('which schedule a market pays', () => {
  const stored: FeeSchedule = { rate: 0.1, exponent: 1, taker_only: true, rebate_rate: 0.2, buy_fee_in: 'usdc' };
  it('a stored schedule overrides the era', async () => {
    // Era 1 would charge 0.144 shares; the stored 0.1 in USDC charges 10 × 0.1 × 0.24 = 0.24.
    const r = await both(buyUp(10), market('5m', ERA_1, ASK_40, stored));
    expect(r.trades[0]).toMatchObject({ fee: 0.24, fee_shares: 0, cash_after: 995.76 });
    const inShares = await both(buyUp(10), market('5m', ERA_3, ASK_40, { ...stored, exponent: 2, buy_fee_in: 'shares' }));
    // 10 × 0.1 × 0.24² = 0.0576 shares, worth 0.02304.
    expect(inShares.trades[0]).toMatchObject({ fee: 0.02304, fee_shares: 0.0576, cash_after: 996 });
  });
  it('--fee-rate overrides a stored schedule: version 1 formula, in USDC', async () => {
    const r = await both(buyUp(10), market('5m', ERA_1, ASK_40, stored), { fee_rate: 0.02 });
    // 10 × 0.02 × 0.24 = 0.048.
    expect(r.trades[0]).toMatchObject({ fee: 0.048, fee_shares: 0, cash_after: 995.952 });
    expect(r.params.fee_rate).toBe(0.02);
  });
  it('--fees none overrides a stored schedule and the era', async () => {
    const r = await both(buyUp(10), market('5m', ERA_1, ASK_40, stored), { fees: 'none' });
    expect(r.trades[0]).toMatchObject({ fee: 0, fee_shares: 0, cash_after: 996 });
    const era = await both(buyUp(10), market('5m', ERA_1, ASK_40), { fees: 'none', fee_rate: 0.07 });
    expect(era.trades[0]).toMatchObject({ fee: 0, fee_shares: 0 });
    expect(era.params.fee_rate).toBe(0);
  });
  it('reports fee_rate null when each market pays its own schedule', async () => {
    const r = await both(buyUp(10), market('5m', ERA_3, ASK_40));
    expect(r.params.fee_rate).toBeNull();
  });
});

describe('the engine against the reference on random markets in every era', () => {
  it('agrees on 150 random cases with eras, types, stored schedules and flags', async () => {
    let shareFees = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const c = randomCase(seed);
      const { rnd, pick } = randomPicks(seed * 7919);
      const base = pick([ERA_1, ERA_2, ERA_3]);
      const type = pick(['5m', '15m', '1hr'] as const);
      const hands = c.markets.map((h, k) => {
        const fees = rnd() < 0.25 ? { rate: pick([0.02, 0.25]), exponent: pick([1, 2]), taker_only: false, rebate_rate: 0, buy_fee_in: pick(['usdc', 'shares'] as const) } : undefined;
        return moved(h, base + k * MARKET_DURATION_MS[type] * 2, type, fees ? { fees } : {});
      });
      const params = { ...c.params, ...(rnd() < 0.2 ? { fee_rate: 0.03 } : {}) };
      // Random figures hit decimal ties two float paths may round apart: one unit of the 6th decimal.
      const r = await both(c.rule, hands, params, lastDigit).catch((e: Error) => {
        throw new Error(`seed ${seed}: ${e.message}`);
      });
      shareFees += r.trades.filter((t) => t.fee_shares > 0).length;
    }
    // Buys paid in shares must be among the cases.
    expect(shareFees).toBeGreaterThan(20);
  });
});
