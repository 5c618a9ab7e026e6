// runBacktest: markets one after another (cash shared, positions per market), snapshots in time
// order; on each snapshot the order due on it executes, then the strategy may decide.
import type { MarketSeries, MarketSource } from '../domain/market-series.js';
import { Account } from './account.js';
import type { Decider } from './decider.js';
import { MarketRun } from './market-run.js';
import { ModuleDecider } from './module-decider.js';
import { effectiveFeeRate, feeModelOf, resolveParams, type BacktestParams } from './params.js';
import type { BacktestProgress, BacktestResult } from './result.js';
import { RuleDecider } from './rule-decider.js';
import { summarize } from './statistics.js';
import { checkRule, isModuleStrategy, type Strategy } from './strategy.js';

/** What a caller may watch during a run. */
export interface BacktestHooks {
  /** After each market, with the totals read so far. */
  onProgress?: (p: BacktestProgress) => void;
}

/** A strategy made ready to run: its reported name and a decider. */
export interface PreparedStrategy {
  name: string;
  decider: Decider;
}

/** Use before any data is read: a rule is checked (UsageError), a module wrapped. */
export function prepareStrategy(strategy: Strategy): PreparedStrategy {
  if (isModuleStrategy(strategy)) {
    return { name: strategy.name ?? 'strategy', decider: new ModuleDecider(strategy, { ...(strategy.params ?? {}) }) };
  }
  const rule = checkRule(strategy);
  return { name: rule.name, decider: new RuleDecider(rule) };
}

/**
 * Use to test a strategy on markets (docs/backtest-model.md, the model): the result object of its Output
 * section, the same bytes (as JSON) for the same inputs. A bad strategy or parameter is a
 * UsageError before the source is read.
 */
export async function runBacktest(
  strategy: Strategy,
  source: MarketSource,
  params?: Partial<BacktestParams>,
  hooks: BacktestHooks = {},
): Promise<BacktestResult> {
  const p = resolveParams(params);
  const { name, decider } = prepareStrategy(strategy);
  const fees = feeModelOf(p);
  const acct = new Account(p.cash);
  let markets = 0;
  let snapshots = 0;
  let from: number | null = null;
  let to: number | null = null;
  let lastStart = -Infinity;
  for await (const series of source) {
    // The model runs markets oldest first (cash carries over): a source that does not is a bug.
    if (series.market.start_time < lastStart) {
      throw new Error(`backtest: markets must come oldest first (${series.market.market_id} came after a later one)`);
    }
    lastStart = series.market.start_time;
    markets += 1;
    snapshots += series.length;
    from = from === null ? series.market.start_time : Math.min(from, series.market.start_time);
    to = to === null ? series.market.end_time : Math.max(to, series.market.end_time);
    if (series.length > 0) runMarket(series, decider, new MarketRun(series, acct, p, fees.scheduleFor(series.market)));
    hooks.onProgress?.({ markets, snapshots });
  }
  return {
    strategy: name,
    params: { cash: p.cash, latency_ms: p.latency_ms, fee_rate: effectiveFeeRate(p), no_book: p.no_book },
    data: { markets, snapshots, from, to },
    summary: summarize(acct),
    markets: acct.markets,
    trades: acct.trades,
    equity: acct.equity,
  };
}

/** The hot loop: numbers from columns, no per-snapshot allocation for rule strategies. */
function runMarket(series: MarketSeries, decider: Decider, run: MarketRun): void {
  const time = series.time;
  const n = series.length;
  decider.start(series, run);
  for (let i = 0; i < n; i++) {
    if (run.pending) {
      if (time[i]! < run.dueAt) continue;
      run.execute(i);
    }
    decider.decide(i);
    if (run.pending && time[i]! >= run.dueAt) run.execute(i);
    if (decider.idle()) break;
  }
  decider.end(run.finish());
}
