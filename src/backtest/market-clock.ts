// Many markets on one clock (docs/backtest-model.md "Data"): the markets that have started run
// side by side, every snapshot of every market in time order (ties: the earlier market start, then
// the market id), and each market settles at its end (before any snapshot at or after that time).
// A market alone on the clock runs in a tight loop over its columns, as version 1 ran every market.
import type { MarketSeries } from '../domain/market-series.js';
import type { Decider } from './decider.js';
import type { MarketRun } from './market-run.js';

/** One market on the clock: its next snapshot `i`, or (done) its settlement. */
interface Live {
  series: MarketSeries;
  decider: Decider;
  run: MarketRun;
  i: number;
  /** No snapshot left to read (or none can bring a decision): it waits for its settlement. */
  done: boolean;
  /** When it settles: its end, or its last snapshot when the data runs past the end. */
  settleAt: number;
}

/** Use once per run: markets join as they start; step() takes the clock's next event. */
export class MarketClock {
  private readonly live: Live[] = [];

  join(series: MarketSeries, decider: Decider, run: MarketRun): void {
    const last = series.time[series.length - 1]!;
    this.live.push({ series, decider, run, i: 0, done: false, settleAt: Math.max(series.market.end_time, last) });
    decider.start(series, run);
  }

  /** The time of the next event (Infinity when no market is on the clock). */
  nextTime(): number {
    const l = this.first();
    return l ? timeOf(l) : Infinity;
  }

  /**
   * Runs the next event: a settlement, or the first market's snapshots up to (not past) the next
   * event of any other market and `nextStart`, the start of the next market to join.
   */
  step(nextStart: number): void {
    const l = this.first()!;
    if (l.done) {
      this.live.splice(this.live.indexOf(l), 1);
      // Open positions of markets still running count at their latest quote on the clock.
      l.decider.end(l.run.finish(this.openValue(l.settleAt)));
      return;
    }
    let bound: Live | undefined;
    for (const o of this.live) if (o !== l && (!bound || before(o, bound))) bound = o;
    const series = l.series;
    const time = series.time;
    const n = series.length;
    const { run, decider } = l;
    let i = l.i;
    for (; i < n; i++) {
      const t = time[i]!;
      if (t >= nextStart || (bound && !beforeAt(series, t, false, bound))) break;
      // Resting orders first (time to live, fills, posts going live), then the taker order due.
      if (run.hasOrders) run.restingStep(i);
      if (run.pending) {
        if (t < run.dueAt) continue;
        run.execute(i);
      }
      decider.decide(i);
      if (run.pending && t >= run.dueAt) run.execute(i);
      if (run.hasOrders) run.goLive(i);
      if (decider.idle()) {
        i = n;
        break;
      }
    }
    l.i = i;
    if (i >= n) l.done = true;
  }

  /** The value of the positions of the markets on the clock at their latest quotes at or before `at`. */
  private openValue(at: number): number {
    let v = 0;
    for (const o of this.live) {
      if (o.run.posUp === 0 && o.run.posDown === 0) continue;
      // An idle market has read ahead of the clock: its quote is the last one at or before `at`.
      let k = Math.min(o.i, o.series.length) - 1;
      while (k > 0 && o.series.time[k]! > at) k--;
      v += o.run.posUp * o.series.priceUp[k]! + o.run.posDown * o.series.priceDown[k]!;
    }
    return v;
  }

  private first(): Live | undefined {
    let best: Live | undefined;
    for (const l of this.live) if (!best || before(l, best)) best = l;
    return best;
  }
}

function timeOf(l: Live): number {
  return l.done ? l.settleAt : l.series.time[l.i]!;
}

/** The clock's order: time, then settlements before snapshots, then the earlier market start, then the id. */
function before(a: Live, b: Live): boolean {
  return beforeAt(a.series, timeOf(a), a.done, b);
}

function beforeAt(series: MarketSeries, t: number, settles: boolean, b: Live): boolean {
  const tb = timeOf(b);
  if (t !== tb) return t < tb;
  if (settles !== b.done) return settles;
  const ma = series.market;
  const mb = b.series.market;
  if (ma.start_time !== mb.start_time) return ma.start_time < mb.start_time;
  return ma.market_id < mb.market_id;
}
