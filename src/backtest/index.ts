// `msnap/backtest`: the backtest engine as a library, the same functions the CLI is built on.
export { runBacktest, type BacktestHooks } from './engine.js';
export { loadStrategy, parseSet } from './load-strategy.js';
export { seriesFromSnapshots, apiMarketSource, type SnapshotRange } from './snapshot-series.js';
export { openLocalSource, type OpenedSource } from './local-source.js';
export { sliceSeries } from './series-range.js';
export { renderHtmlReport } from './html-report.js';
export { DEFAULT_PARAMS, resolveParams, type BacktestParams } from './params.js';
export type { BacktestResult, BacktestSummary, BacktestProgress, MarketLine, Trade } from './result.js';
export type {
  Strategy,
  RuleStrategy,
  RuleCondition,
  ModuleStrategy,
  StrategyContext,
  StrategySnapshot,
  MarketResult,
  MakerOrderView,
  RuleMaker,
} from './strategy.js';
export { makerGoLive, makerStep, makerOrder, type MakerFillModel, type MakerOrderState } from './maker-fill.js';
export type { MarketSeries, MarketSource, SideBook, BookLevels, OutcomeSide } from '../domain/market-series.js';
