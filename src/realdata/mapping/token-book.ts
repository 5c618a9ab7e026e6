// One token's orderbook as the events leave it: levels kept sorted by price so the best levels
// and the top 8 are read without sorting at every 125 ms tick.
import type { ScaledLevel } from './market-event.js';

/** Levels a snapshot keeps per side (REALDATA.md: the top 8, best first). */
export const BOOK_DEPTH = 8;

/** One side's levels, prices ascending, no zero sizes. */
class SideLevels {
  prices: number[] = [];
  sizes: number[] = [];

  replace(levels: readonly ScaledLevel[]): void {
    const byPrice = new Map<number, number>();
    // A book lists each price once; if a source repeats one, the later entry wins, as it would on the exchange.
    for (const l of levels) byPrice.set(l.price, l.size);
    const prices = [...byPrice.keys()].filter((p) => byPrice.get(p)! > 0).sort((a, b) => a - b);
    this.prices = prices;
    this.sizes = prices.map((p) => byPrice.get(p)!);
  }

  set(price: number, size: number): void {
    let lo = 0;
    let hi = this.prices.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.prices[mid]! < price) lo = mid + 1;
      else hi = mid;
    }
    const found = lo < this.prices.length && this.prices[lo] === price;
    if (size <= 0) {
      if (found) {
        this.prices.splice(lo, 1);
        this.sizes.splice(lo, 1);
      }
    } else if (found) this.sizes[lo] = size;
    else {
      this.prices.splice(lo, 0, price);
      this.sizes.splice(lo, 0, size);
    }
  }
}

/** Use per token: applies book and level events, answers best prices and the top levels. */
export class TokenBook {
  private readonly bidLevels = new SideLevels();
  private readonly askLevels = new SideLevels();
  /** False until the token's first full book (and again after a gap in the source). */
  known = false;
  /** The last trade's price, or -1 before any. */
  lastTrade = -1;

  /** A full book replaces every level. */
  replace(bids: readonly ScaledLevel[], asks: readonly ScaledLevel[]): void {
    this.bidLevels.replace(bids);
    this.askLevels.replace(asks);
    this.known = true;
  }

  /** One level set; size 0 removes it. */
  setLevel(side: 'bid' | 'ask', price: number, size: number): void {
    (side === 'bid' ? this.bidLevels : this.askLevels).set(price, size);
  }

  /** The best bid (highest), or -1 on an empty side. */
  bestBid(): number {
    const p = this.bidLevels.prices;
    return p.length ? p[p.length - 1]! : -1;
  }

  /** The best ask (lowest), or -1 on an empty side. */
  bestAsk(): number {
    const p = this.askLevels.prices;
    return p.length ? p[0]! : -1;
  }

  /** The top BOOK_DEPTH bids, best (highest) first, into `prices`/`sizes`; returns how many. */
  topBids(prices: number[], sizes: number[]): number {
    const { prices: ps, sizes: ss } = this.bidLevels;
    const n = Math.min(BOOK_DEPTH, ps.length);
    for (let i = 0; i < n; i++) {
      prices[i] = ps[ps.length - 1 - i]!;
      sizes[i] = ss[ps.length - 1 - i]!;
    }
    prices.length = n;
    sizes.length = n;
    return n;
  }

  /** The top BOOK_DEPTH asks, best (lowest) first. */
  topAsks(prices: number[], sizes: number[]): number {
    const { prices: ps, sizes: ss } = this.askLevels;
    const n = Math.min(BOOK_DEPTH, ps.length);
    for (let i = 0; i < n; i++) {
      prices[i] = ps[i]!;
      sizes[i] = ss[i]!;
    }
    prices.length = n;
    sizes.length = n;
    return n;
  }

  /** Forgets every level (a gap in the source: the book is unknown until the next full book). */
  forget(): void {
    this.bidLevels.replace([]);
    this.askLevels.replace([]);
    this.known = false;
  }

  /** The state to carry between hours and runs. */
  save(): SavedBook {
    return {
      known: this.known,
      lastTrade: this.lastTrade,
      bids: interleave(this.bidLevels),
      asks: interleave(this.askLevels),
    };
  }

  /** Restores what save() gave. */
  static load(s: SavedBook): TokenBook {
    const b = new TokenBook();
    b.known = s.known;
    b.lastTrade = s.lastTrade;
    restore(b.bidLevels, s.bids);
    restore(b.askLevels, s.asks);
    return b;
  }
}

/** A token's book as JSON: [price, size, price, size, …] per side, prices ascending. */
export interface SavedBook {
  known: boolean;
  lastTrade: number;
  bids: number[];
  asks: number[];
}

function interleave(side: SideLevels): number[] {
  const out: number[] = [];
  for (let i = 0; i < side.prices.length; i++) out.push(side.prices[i]!, side.sizes[i]!);
  return out;
}

function restore(side: SideLevels, flat: readonly number[]): void {
  side.prices = [];
  side.sizes = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    side.prices.push(flat[i]!);
    side.sizes.push(flat[i + 1]!);
  }
}
