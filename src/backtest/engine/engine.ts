// runBacktest: every market on one clock (cash shared, positions per market), every snapshot in
// time order; on each snapshot the order due on it executes, then the strategy may decide; a
// market settles at its end.
import type { MarketSource } from '../../domain/market-series.js';
import { Account } from './account.js';
import type { Decider } from '../strategy/decider.js';
import { MarketClock } from './market-clock.js';
import { MarketRun } from './market-run.js';
import { ModuleDecider } from '../strategy/module-decider.js';
import { effectiveFeeRate, feeModelOf, resolveParams, type BacktestParams } from './params.js';
import type { BacktestProgress, BacktestResult } from '../model/result.js';
import { RuleDecider } from '../strategy/rule-decider.js';
import { makerRun, summarize } from './statistics.js';
import { checkRule, isModuleStrategy, type Strategy } from '../strategy/strategy.js';

/** What a caller may watch during a run. */
export interface BacktestHooks {
  /**
   * After each market is read and every few hundred snapshots passed (a single long market
   * reports as it goes); a promise it returns is awaited, the caller's turn for its event loop.
   */
  onProgress?: (p: BacktestProgress) => void | Promise<void>;
}

/** Snapshots passed between progress reports: often enough for a slow module, rare beside a rule's work. */
const REPORT_EVERY = 128;

/** A strategy made ready to run: its reported name and a decider per market. */
export interface PreparedStrategy {
  name: string;
  /** A fresh decider for one market (markets on one clock decide side by side). */
  decider: () => Decider;
}

/** Use before any data is read: a rule is checked (UsageError), a module wrapped. */
function prepareStrategy(strategy: Strategy): PreparedStrategy {
  if (isModuleStrategy(strategy)) {
    // One params object for the whole run, as a module sees it in every market.
    const params = { ...(strategy.params ?? {}) };
    return { name: strategy.name ?? 'strategy', decider: () => new ModuleDecider(strategy, params) };
  }
  const rule = checkRule(strategy);
  return { name: rule.name, decider: () => new RuleDecider(rule) };
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
  acct.makerFillGiven = p.maker_fill !== undefined;
  const data = { markets: 0, snapshots: 0, from: null as number | null, to: null as number | null };
  const clock = new MarketClock();
  const it = source[Symbol.asyncIterator]();
  let next = await it.next();
  let lastStart = -Infinity;
  let reportAt = -Infinity;
  const report = async (): Promise<void> => {
    const wait = hooks.onProgress?.({ markets: data.markets, snapshots: data.snapshots, passed: clock.passed });
    if (wait) await wait;
  };
  for (;;) {
    const due = clock.nextTime();
    // Every market starting by the clock's next event joins before it (markets come oldest first).
    if (!next.done && next.value.market.start_time <= due) {
      const series = next.value;
      // The model runs markets oldest first (cash carries over): a source that does not is a bug.
      if (series.market.start_time < lastStart) {
        throw new Error(`backtest: markets must come oldest first (${series.market.market_id} came after a later one)`);
      }
      lastStart = series.market.start_time;
      data.markets += 1;
      data.snapshots += series.length;
      data.from = data.from === null ? series.market.start_time : Math.min(data.from, series.market.start_time);
      data.to = data.to === null ? series.market.end_time : Math.max(data.to, series.market.end_time);
      if (series.length > 0) clock.join(series, decider(), new MarketRun(series, acct, p, fees.scheduleFor(series.market)));
      if (hooks.onProgress) await report();
      next = await it.next();
      continue;
    }
    if (due === Infinity) break;
    const nextStart = next.done ? Infinity : next.value.market.start_time;
    if (!hooks.onProgress) {
      clock.step(nextStart);
      continue;
    }
    // Watched: the clock stops every REPORT_EVERY snapshots to report (a step resumes where it stopped).
    if (clock.passed >= reportAt) {
      reportAt = clock.passed + REPORT_EVERY;
      await report();
    }
    clock.step(nextStart, REPORT_EVERY);
  }
  const reported = { cash: p.cash, latency_ms: p.latency_ms, fee_rate: effectiveFeeRate(p), no_book: p.no_book };
  // A run without maker orders writes version 2's output unchanged; one with them names the fill
  // model and gives every market and trade line its rebates (and trades their kind).
  const maker = makerRun(acct);
  return {
    strategy: name,
    params: maker ? { ...reported, maker_fill: p.maker_fill ?? 'cross' } : reported,
    data,
    summary: summarize(acct),
    markets: maker ? acct.markets.map((m) => ({ ...m, rebates: m.rebates ?? 0 })) : acct.markets,
    trades: maker ? acct.trades.map((t) => ({ ...t, kind: t.kind ?? 'taker', rebate: t.rebate ?? 0 })) : acct.trades,
    equity: acct.equity,
  };
}
