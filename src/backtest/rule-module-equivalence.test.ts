// A module that reproduces a rule strategy gives byte-identical output (docs/backtest-model.md "Module
// strategies"), over generated markets with books, gaps in the books, latency and both outcomes.
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../domain/market.js';
import { runBacktest } from './engine/engine.js';
import type { BacktestParams } from './engine/params.js';
import type { ModuleStrategy, RuleCondition, RuleStrategy, StrategySnapshot } from './strategy/strategy.js';
import { book, seriesOf, snap, sourceOf, testMarket } from './test-support/markets.js';
import { mulberry32 as prng } from '../random/prng.js';

function markets(seed: number, count: number) {
  const rnd = prng(seed);
  const out = [];
  for (let k = 0; k < count; k++) {
    const winner = k === count - 1 ? null : rnd() < 0.5 ? 'Up' : 'Down';
    const m = testMarket(k, winner);
    const snaps: Snapshot[] = [];
    let up = 0.5;
    for (let t = 0; t < 300_000; t += 250 + Math.floor(rnd() * 500)) {
      up = Math.min(0.98, Math.max(0.02, Math.round((up + (rnd() - 0.5) * 0.06) * 100) / 100));
      const withBook = rnd() < 0.8;
      const side = (mid: number) =>
        book(
          [[Math.round((mid - 0.01) * 100) / 100, Math.round(rnd() * 2000) / 100], [Math.round((mid - 0.02) * 100) / 100, 50]],
          [[Math.round((mid + 0.01) * 100) / 100, Math.round(rnd() * 2000) / 100], [Math.round((mid + 0.03) * 100) / 100, 8]],
        );
      snaps.push(snap(m, t, up, withBook ? { up: side(up), down: side(1 - up) } : {}, 100 + (rnd() - 0.5) * 2));
    }
    out.push(seriesOf(m, snaps));
  }
  return out;
}

function field(s: StrategySnapshot, f: RuleCondition['field'], side: 'up' | 'down'): number {
  const ob = side === 'up' ? s.orderbook_up : s.orderbook_down;
  switch (f) {
    case 'side_price': return side === 'up' ? s.price_up : s.price_down;
    case 'bid': return ob?.bids[0]?.price ?? Number.NaN;
    case 'ask': return ob?.asks[0]?.price ?? Number.NaN;
    default: return s[f];
  }
}

function holds(s: StrategySnapshot, c: RuleCondition, side: 'up' | 'down'): boolean {
  const v = field(s, c.field, side);
  switch (c.op) {
    case '<': return v < c.value;
    case '<=': return v <= c.value;
    case '>': return v > c.value;
    case '>=': return v >= c.value;
    case '==': return v === c.value;
  }
}

/** The rule written by hand as a module, the way a user would. */
function asModule(rule: Required<Omit<RuleStrategy, 'exit'>> & { exit?: RuleCondition[] }): ModuleStrategy {
  let entries = 0;
  return {
    name: rule.name,
    onMarketStart() {
      entries = 0;
    },
    onSnapshot(s, ctx) {
      const held = ctx.position(rule.side);
      if (held === 0) {
        if (entries < rule.max_entries && rule.entry.every((c) => holds(s, c, rule.side))) {
          entries += 1;
          ctx.buy(rule.side, rule.size, { maxPrice: rule.max_price });
        }
      } else if (rule.exit?.some((c) => holds(s, c, rule.side))) {
        ctx.sell(rule.side, held, { minPrice: rule.min_price });
      }
    },
  };
}

const RULES: (Required<Omit<RuleStrategy, 'exit'>> & { exit?: RuleCondition[] })[] = [
  {
    name: 'swing-down', side: 'down', size: 12.5, max_entries: 3, max_price: 0.6, min_price: 0.05,
    entry: [{ field: 'side_price', op: '<', value: 0.45 }, { field: 'elapsed_ms', op: '>=', value: 10_000 }],
    exit: [{ field: 'bid', op: '>=', value: 0.55 }, { field: 'remaining_ms', op: '<', value: 20_000 }],
  },
  {
    name: 'ask-up', side: 'up', size: 40, max_entries: 2, max_price: 1, min_price: 0,
    entry: [{ field: 'ask', op: '<=', value: 0.4 }, { field: 'change', op: '>', value: -0.01 }],
    exit: [{ field: 'price_up', op: '>', value: 0.6 }],
  },
];

const PARAMS: Partial<BacktestParams>[] = [{}, { latency_ms: 700, cash: 60 }, { no_book: 'reject', fee_rate: 0.02 }];

describe('a rule and the equivalent module', () => {
  for (const rule of RULES) {
    for (const params of PARAMS) {
      it(`give the same bytes: ${rule.name} ${JSON.stringify(params)}`, async () => {
        const fromRule = JSON.stringify(await runBacktest(rule, sourceOf(...markets(7, 6)), params));
        const fromModule = JSON.stringify(await runBacktest(asModule(rule), sourceOf(...markets(7, 6)), params));
        expect(JSON.parse(fromRule).summary.fills).toBeGreaterThan(3);
        expect(fromModule).toBe(fromRule);
      });
    }
  }
});

type MakerRule = Required<Omit<RuleStrategy, 'exit' | 'entry_maker' | 'exit_maker'>> & Pick<RuleStrategy, 'exit' | 'entry_maker' | 'exit_maker'>;

/** A maker rule written by hand as a module: posts at the field plus the offset, nothing while an order rests. */
function asMakerModule(rule: MakerRule): ModuleStrategy {
  let entries = 0;
  const post = (s: StrategySnapshot, ctx: Parameters<ModuleStrategy['onSnapshot']>[1], action: 'buy' | 'sell', shares: number) => {
    const how = (action === 'buy' ? rule.entry_maker : rule.exit_maker)!;
    const price = Math.round((field(s, how.price, rule.side) + (how.offset ?? 0)) * 1e6) / 1e6;
    if (!(price > 0 && price < 1) || (action === 'buy' ? price > rule.max_price : price < rule.min_price)) return;
    if (action === 'buy') entries += 1;
    ctx.post(rule.side, action, shares, price, how.ttl_ms === undefined ? {} : { ttlMs: how.ttl_ms });
  };
  return {
    name: rule.name,
    onMarketStart() {
      entries = 0;
    },
    onSnapshot(s, ctx) {
      if (ctx.orders.length > 0) return;
      const held = ctx.position(rule.side);
      if (held === 0) {
        if (entries < rule.max_entries && rule.entry.every((c) => holds(s, c, rule.side))) post(s, ctx, 'buy', rule.size);
      } else if (rule.exit?.some((c) => holds(s, c, rule.side))) {
        post(s, ctx, 'sell', held);
      }
    },
  };
}

describe('a maker rule and the equivalent module', () => {
  const rule: MakerRule = {
    name: 'maker-swing', side: 'up', size: 15, max_entries: 4, max_price: 0.7, min_price: 0.05,
    entry: [{ field: 'side_price', op: '<', value: 0.55 }],
    exit: [{ field: 'bid', op: '>=', value: 0.5 }],
    entry_maker: { price: 'bid', offset: 0, ttl_ms: 20_000 },
    exit_maker: { price: 'ask', offset: -0.01, ttl_ms: 5_000 },
  };
  for (const params of [{ maker_fill: 'queue' }, { maker_fill: 'cross', latency_ms: 700, cash: 30 }] as Partial<BacktestParams>[]) {
    it(`give the same bytes: ${JSON.stringify(params)}`, async () => {
      const fromRule = JSON.stringify(await runBacktest(rule, sourceOf(...markets(11, 6)), params));
      const fromModule = JSON.stringify(await runBacktest(asMakerModule(rule), sourceOf(...markets(11, 6)), params));
      expect(JSON.parse(fromRule).summary.maker_fills).toBeGreaterThan(3);
      expect(fromModule).toBe(fromRule);
    });
  }
});
