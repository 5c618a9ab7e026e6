// The Chainlink prices a recording keeps, per coin, in time order: the asset price rule
// (REALDATA.md: the latest value with timestamp <= t, never a later one) answered from them, and
// the ones not yet stored handed to the next batch so they survive a restart.
import type { Coin } from '../../domain/market.js';
import { PRICE_DECIMALS } from '../mapping/decimal.js';
import type { PriceAt } from '../mapping/snapshot-tape.js';
import type { ChainlinkTick } from './rtds-frames.js';

const UNIT = 10 ** PRICE_DECIMALS;

/** Use for one recording: add ticks as they arrive, ask prices at grid times. */
export class ChainlinkPrices {
  private readonly times = new Map<Coin, number[]>();
  private readonly values = new Map<Coin, number[]>();
  private unsaved: ChainlinkTick[] = [];

  /** Adds a tick (from RTDS, or restored from the store when `stored`); a second value for the same time is ignored. */
  add(tick: ChainlinkTick, stored = false): void {
    const times = this.times.get(tick.coin) ?? [];
    const values = this.values.get(tick.coin) ?? [];
    this.times.set(tick.coin, times);
    this.values.set(tick.coin, values);
    let i = times.length;
    // Ticks come in time order but for the odd late one: insert from the end.
    while (i > 0 && times[i - 1]! > tick.ts) i--;
    if (i > 0 && times[i - 1] === tick.ts) return;
    times.splice(i, 0, tick.ts);
    values.splice(i, 0, tick.price);
    if (!stored) this.unsaved.push(tick);
  }

  /** The coin's price rule: its latest value (a decimal number) with time <= t, or undefined before the first. */
  priceAt(coin: Coin): PriceAt {
    return (t) => {
      const times = this.times.get(coin);
      if (!times || times.length === 0 || times[0]! > t) return undefined;
      let lo = 0;
      let hi = times.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (times[mid]! <= t) lo = mid;
        else hi = mid - 1;
      }
      return this.values.get(coin)![lo]! / UNIT;
    };
  }

  /**
   * Forgets every coin's ticks that no price at or after `t` can need: those before the latest tick
   * at or before `t` (which stays: it is the price at `t`). A long recording holds what its open
   * markets need, not every second since it started.
   */
  dropBefore(t: number): void {
    for (const [coin, times] of this.times) {
      let keep = 0;
      while (keep + 1 < times.length && times[keep + 1]! <= t) keep++;
      if (keep === 0) continue;
      times.splice(0, keep);
      this.values.get(coin)!.splice(0, keep);
    }
  }

  /** The newest tick's time of a coin, or undefined. */
  latest(coin: Coin): number | undefined {
    return this.times.get(coin)?.at(-1);
  }

  /** Ticks added since the last call, for the batch to store. */
  takeUnsaved(): ChainlinkTick[] {
    const out = this.unsaved;
    this.unsaved = [];
    return out;
  }

  /** Puts back ticks whose batch failed, so the next one stores them. */
  restoreUnsaved(ticks: readonly ChainlinkTick[]): void {
    this.unsaved = [...ticks, ...this.unsaved];
  }
}
