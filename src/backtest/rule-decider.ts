// A rule strategy as a decider: the entry and exit tests run on the market's columns.
import type { MarketSeries } from '../domain/market-series.js';
import type { Decider } from './decider.js';
import type { MarketRun } from './market-run.js';
import { bestPrice, compileConditions, type BindTest, type SnapshotTest } from './rule-conditions.js';
import { round6 } from './rounding.js';
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
    // A rule decides nothing while one of its maker orders is pending or resting.
    if (run.hasOrders) return;
    const held = run.position(rule.side);
    if (held === 0) {
      if (run.buysDecided < rule.max_entries && this.entry(i)) this.order(i, 'buy', rule.size, rule.max_price, rule.entry_maker);
    } else if (this.exit(i)) {
      this.order(i, 'sell', held, rule.min_price, rule.exit_maker);
    }
  }

  /** A taker order, or a maker order at its field-relative price (none when the field has no value, or the price leaves (0, 1) or passes the rule's limit). */
  private order(i: number, action: 'buy' | 'sell', shares: number, limit: number, maker: CheckedRule['entry_maker']): void {
    const run = this.run!;
    const side = this.rule.side;
    if (!maker) {
      run.place(i, action, side, shares, limit);
      return;
    }
    const s = run.series;
    const base = maker.price === 'side_price' ? (side === 'up' ? s.priceUp[i]! : s.priceDown[i]!) : bestPrice(s, i, side, maker.price === 'bid' ? 'bids' : 'asks');
    const price = round6(base + maker.offset);
    if (!(price > 0 && price < 1) || (action === 'buy' ? price > limit : price < limit)) return;
    run.post(i, action, side, shares, price, maker.ttl_ms);
  }

  idle(): boolean {
    const run = this.run!;
    const rule = this.rule;
    if (run.pending || run.hasOrders) return false;
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
