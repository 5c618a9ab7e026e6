// The seam between strategy and engine: a decider looks at snapshot i and may place one order on
// the market's run; the engine owns everything that follows.
import type { MarketSeries } from '../../domain/market-series.js';
import type { MarketRun } from '../engine/market-run.js';
import type { MarketLine } from '../model/result.js';

/** Use to plug a strategy kind into the engine (rules on columns, modules through hooks). */
export interface Decider {
  /** Before a market's first snapshot. */
  start(series: MarketSeries, run: MarketRun): void;
  /** On snapshot i when nothing is pending; places at most one order. */
  decide(i: number): void;
  /** True when no later snapshot of this market can bring a decision (the engine stops reading it). */
  idle(): boolean;
  /** After settlement, with the market's line (undefined when nothing filled). */
  end(line: MarketLine | undefined): void;
}
