// `msnap/backtest`: the backtest engine as a library, the same functions the CLI is built on.
export { runBacktest, type BacktestHooks } from './engine/engine.js';
export { loadStrategy, parseSet } from './strategy/load-strategy.js';
export { seriesFromSnapshots, apiMarketSource, type ClientOrCore, type SnapshotRange } from './series/snapshot-series.js';
export { openLocalSource, type OpenedSource } from './series/local-source.js';
export { sliceSeries } from './series/series-range.js';
export { renderHtmlReport } from './html-report.js';
export { DEFAULT_PARAMS, resolveParams, type BacktestParams } from './engine/params.js';
export type { BacktestResult, BacktestSummary, BacktestProgress, MarketLine, Trade } from './model/result.js';
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
} from './strategy/strategy.js';
export { makerGoLive, makerStep, makerOrder, type MakerFillModel, type MakerOrderState } from './model/maker-fill.js';
export type { MarketSeries, MarketSource, SideBook, BookLevels, OutcomeSide } from '../domain/market-series.js';
