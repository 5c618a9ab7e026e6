// A rule strategy as a decider: the entry and exit tests run on the market's columns.
import type { MarketSeries } from '../domain/market-series.js';
import type { Decider } from './decider.js';
import type { MarketRun } from './market-run.js';
import { compileConditions, type BindTest, type SnapshotTest } from './rule-conditions.js';
import type { CheckedRule } from './strategy.js';

const NEVER: SnapshotTest = () => false;

/** Use for a checked rule: entries while flat (up to max_entries), a whole-position exit when any exit condition holds. */
export class RuleDecider implements Decider {
  private readonly bindEntry: BindTest;
  private readonly bindExit: BindTest | undefined;
  private entry: SnapshotTest = NEVER;
  private exit: SnapshotTest = NEVER;
  private run: MarketRun | undefined;

  constructor(private readonly rule: CheckedRule) {
    this.bindEntry = compileConditions(rule.entry, rule.side, true);
    this.bindExit = rule.exit ? compileConditions(rule.exit, rule.side, false) : undefined;
  }

  start(series: MarketSeries, run: MarketRun): void {
    this.run = run;
    this.entry = this.bindEntry(series);
    this.exit = this.bindExit ? this.bindExit(series) : NEVER;
  }

  decide(i: number): void {
    const run = this.run!;
    const rule = this.rule;
    const held = run.position(rule.side);
    if (held === 0) {
      if (run.buysDecided < rule.max_entries && this.entry(i)) run.place(i, 'buy', rule.side, rule.size, rule.max_price);
    } else if (this.exit(i)) {
      run.place(i, 'sell', rule.side, held, rule.min_price);
    }
  }

  idle(): boolean {
    const run = this.run!;
    const rule = this.rule;
    if (run.pending) return false;
    const held = run.position(rule.side);
    return held === 0 ? run.buysDecided >= rule.max_entries : this.bindExit === undefined;
  }

  /** Let go of the market's columns once it has settled. */
  end(): void {
    this.entry = NEVER;
    this.exit = NEVER;
    this.run = undefined;
  }
}
