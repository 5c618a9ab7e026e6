// The engine and the plain reference on the same hand-made or random markets: one helper to run
// both and compare, and one to move a hand-made market to another start, type, coin or schedule.
import { expect } from 'vitest';
import type { FeeSchedule } from '../../domain/fee-schedule.js';
import { marketId, MARKET_DURATION_MS, type Coin, type Market, type MarketType, type Snapshot } from '../../domain/market.js';
import { loadStrategy } from '../strategy/load-strategy.js';
import { runBacktest } from '../engine/engine.js';
import { seriesFromSnapshots } from '../series/snapshot-series.js';
import { referenceBacktest, type RefParams, type RefRule } from './reference-backtest.js';

export type Hand = { market: Market; snapshots: Snapshot[] };

/** Use to place hand-made market `h` at `start` as a market of `type` (and `coin`), with a stored schedule when given. */
export function moved(h: Hand, start: number, type: MarketType, opts: { coin?: Coin; fees?: FeeSchedule } = {}): Hand {
  const delta = start - h.market.start_time;
  const coin = opts.coin ?? h.market.coin;
  const id = marketId(coin, type, start);
  const m: Market = { ...h.market, market_id: id, slug: id, coin, market_type: type, start_time: start, end_time: start + MARKET_DURATION_MS[type] };
  return { market: opts.fees ? { ...m, fee_schedule: opts.fees } : m, snapshots: h.snapshots.map((s) => ({ ...s, market_id: id, time: s.time + delta })) };
}

/**
 * Use to run the engine (markets oldest first, as a source gives them) and the reference on the
 * same case: trades, markets, equity and summary must agree (`close` loosens numbers, e.g. lastDigit).
 */
export async function engineAndReference(rule: RefRule, hands: Hand[], params: Partial<RefParams> = {}, close: (v: unknown) => unknown = (v) => v) {
  const strategy = await loadStrategy(structuredClone(rule) as never, []);
  const ordered = [...hands].sort((a, b) => a.market.start_time - b.market.start_time);
  async function* source() {
    for (const h of ordered) yield seriesFromSnapshots(h.market, h.snapshots);
  }
  const got = await runBacktest(strategy, source(), params);
  const ref = referenceBacktest(rule, hands, { cash: 1000, latency_ms: 0, fees: 'taker', no_book: 'quote', ...params });
  expect(got.trades).toEqual(close(ref.trades));
  expect(got.markets).toEqual(close(ref.markets));
  expect(got.equity).toEqual(close(ref.equity));
  expect(got.summary).toEqual(close(ref.summary));
  return got;
}
