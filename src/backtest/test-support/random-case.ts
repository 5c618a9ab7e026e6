// Random cases for the engine-against-reference checks: markets with random quotes and books, a
// random rule and parameters, from a seed; and the matcher that allows one unit of the 6th decimal.
import { expect } from 'vitest';
import type { FeeSchedule } from '../../domain/fee-schedule.js';
import type { Market, OrderbookLevel, OrderbookSide, Snapshot } from '../../domain/market.js';
import { mulberry32 as prng } from '../../random/prng.js';
import { moved } from './engine-vs-reference.js';
import { handMarket, type HandSnapshot } from './hand-market.js';
import type { RefParams, RefRule } from './reference-backtest.js';

const T0 = 1_795_300_000_000;

type Hand = { market: Market; snapshots: Snapshot[] };

/** Numbers become matchers that accept one unit of the 6th decimal either way (closeTo(v, 5.69): within 1.02e-6); counts stay exact. */
export function lastDigit(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? v : expect.closeTo(v, 5.69);
  if (Array.isArray(v)) return v.map(lastDigit);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, lastDigit(x)]));
  return v;
}

/** Use for seeded draws: `rnd()` in [0, 1), `pick(xs)` one of xs. */
export function randomPicks(seed: number): { rnd: () => number; pick: <T>(xs: readonly T[]) => T } {
  const rnd = prng(seed);
  return { rnd, pick: <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]! };
}

/** Use for one random case: the same seed, the same case. */
export function randomCase(seed: number): { rule: RefRule; markets: Hand[]; params: Partial<RefParams> } {
  const { rnd, pick } = randomPicks(seed);
  const p4 = (lo: number, hi: number) => Math.round((lo + rnd() * (hi - lo)) * 1e4) / 1e4;
  const levels = (from: number, dir: 1 | -1): [number, number][] => {
    const out: [number, number][] = [];
    let p = from;
    for (let k = Math.floor(rnd() * 5); k > 0; k--) {
      p = Math.round((p + dir * (0.01 + rnd() * 0.05)) * 100) / 100;
      if (p <= 0 || p >= 1) break;
      out.push([p, Math.round(rnd() * 4000) / 100]);
    }
    return out;
  };
  const markets: Hand[] = [];
  for (let m = 1 + Math.floor(rnd() * 4); m > 0; m--) {
    const snaps: HandSnapshot[] = [];
    let t = 0;
    for (let n = 3 + Math.floor(rnd() * 30); n > 0; n--) {
      const up = p4(0.02, 0.98);
      const withBook = rnd() < 0.7;
      snaps.push({
        t,
        up,
        price: p4(90, 110),
        ...(withBook && { bookUp: { bids: levels(up, -1), asks: levels(up, 1) }, bookDown: { bids: levels(1 - up, -1), asks: levels(1 - up, 1) } }),
      });
      t += pick([125, 125, 250, 1000]);
    }
    markets.push(handMarket(T0 + m * 300_000, pick(['Up', 'Down', null] as const), snaps, pick([100, null])));
  }
  const fields = ['price_up', 'price_down', 'side_price', 'bid', 'ask', 'change', 'elapsed_ms'] as const;
  const cond = () => {
    const field = pick(fields);
    const value = field === 'elapsed_ms' ? Math.floor(rnd() * 3000) : field === 'change' ? p4(-0.05, 0.05) : p4(0.1, 0.9);
    return { field, op: pick(['<', '<=', '>', '>='] as const), value };
  };
  const rule: RefRule = {
    name: `random-${seed}`,
    side: pick(['up', 'down'] as const),
    size: Math.round((0.5 + rnd() * 60) * 100) / 100,
    entry: [cond()],
    ...(rnd() < 0.7 && { exit: [cond(), cond()] }),
    max_entries: 1 + Math.floor(rnd() * 3),
    max_price: p4(0.4, 1),
    min_price: p4(0, 0.4),
  };
  const params: Partial<RefParams> = {
    cash: pick([5, 20, 1000]),
    latency_ms: pick([0, 0, 125, 300, 2000]),
    fees: pick(['taker', 'taker', 'none'] as const),
    no_book: pick(['quote', 'reject'] as const),
  };
  return { rule, markets, params };
}

/**
 * Use for one random case with maker orders: randomCase(seed)'s markets and rule, with a maker
 * entry and/or exit, a fill model, and now and then a stored fee schedule where makers pay.
 */
export function randomMakerCase(seed: number): { rule: RefRule; markets: Hand[]; params: Partial<RefParams> } {
  const c = randomCase(seed);
  const { rnd, pick } = randomPicks(seed * 7919 + 1);
  const maker = () => ({
    price: pick(['bid', 'bid', 'ask', 'side_price'] as const),
    offset: pick([-0.02, -0.01, 0, 0, 0.01]),
    ...(rnd() < 0.5 && { ttl_ms: pick([125, 500, 2000]) }),
  });
  const which = pick(['entry', 'exit', 'both', 'both'] as const);
  const rule: RefRule = {
    ...c.rule,
    ...(which !== 'exit' && { entry_maker: maker() }),
    ...(which !== 'entry' && { exit_maker: maker() }),
  };
  const schedules: (FeeSchedule | undefined)[] = [
    undefined,
    undefined,
    { rate: 0.25, exponent: 2, taker_only: false, rebate_rate: 0, buy_fee_in: 'shares' },
    { rate: 0.07, exponent: 1, taker_only: false, rebate_rate: 0.1, buy_fee_in: 'usdc' },
  ];
  // Queues move only where a level lives on: most snapshots keep the previous book with each
  // level's size grown (joins behind) or cut (to nothing now and then, the level gone).
  const drained = (side: OrderbookSide): OrderbookSide => {
    const cut = (ls: OrderbookLevel[]) =>
      ls.map((l) => ({ price: l.price, size: Math.round(l.size * pick([3, 1.5, 1, 0.8, 0.5, 0.2, 0]) * 100) / 100 })).filter((l) => l.size > 0);
    return { bids: cut(side.bids), asks: cut(side.asks) };
  };
  const markets = c.markets.map((h) => {
    const fees = pick(schedules);
    const snapshots = h.snapshots.map((x) => ({ ...x }));
    for (let k = 1; k < snapshots.length; k++) {
      const prev = snapshots[k - 1]!;
      if (rnd() < 0.2 || !prev.orderbook_up || !prev.orderbook_down) continue;
      snapshots[k] = { ...snapshots[k]!, orderbook_up: drained(prev.orderbook_up), orderbook_down: drained(prev.orderbook_down) };
    }
    return { market: fees ? { ...h.market, fee_schedule: fees } : h.market, snapshots };
  });
  // Half the cases put the markets a few seconds apart: they run side by side on one clock, and
  // what one market's resting buys hold is missing from the others' cash.
  const gap = pick([0, 5_000, 20_000]);
  const placed = gap === 0 ? markets : markets.map((h, k) => moved(h, T0 + 300_000 + k * gap, '5m'));
  return { rule, markets: placed, params: { ...c.params, maker_fill: pick(['cross', 'queue', undefined] as const) } };
}
