// Contract snapshot records packed into columns as they arrive, page by page: times and prices
// in Float64Arrays, every book level of the market in two shared arrays, so a market's records
// can be let go page by page and a market with books costs ~17 bytes per level, not an object each.
import type { Market, OrderbookLevel, OrderbookSide, Snapshot } from '../../domain/market.js';
import type { BookLevels, MarketSeries, OutcomeSide, SideBook } from '../../domain/market-series.js';

/** A growable Float64Array. */
class Column {
  data: Float64Array;
  length = 0;
  constructor(capacity: number) {
    this.data = new Float64Array(Math.max(16, capacity));
  }
  push(x: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = x;
  }
  /** The values, in an array of their own length (no slack kept alive, none cloned into a worker). */
  done(): Float64Array {
    return this.data.length === this.length ? this.data : this.data.slice(0, this.length);
  }
}

/** One side's books: where each snapshot's levels start (-1: no book), and how many bids and asks. */
class SideBooks {
  start = new Column(0);
  bids = new Column(0);
  asks = new Column(0);
  push(ob: OrderbookSide | undefined | null, px: Column, sz: Column): void {
    if (!ob) {
      this.start.push(-1);
      this.bids.push(0);
      this.asks.push(0);
      return;
    }
    this.start.push(px.length);
    const put = (levels: readonly OrderbookLevel[] | undefined): number => {
      for (const l of levels ?? []) {
        px.push(l.price);
        sz.push(l.size);
      }
      return levels?.length ?? 0;
    };
    this.bids.push(put(ob.bids));
    this.asks.push(put(ob.asks));
  }
}

/** Use to build one market's series from its pages of records, oldest first. */
export class SeriesBuilder {
  private readonly time: Column;
  private readonly price: Column;
  private readonly up: Column;
  private readonly down: Column;
  private readonly px = new Column(0);
  private readonly sz = new Column(0);
  private readonly upBooks = new SideBooks();
  private readonly downBooks = new SideBooks();
  private books = 0;

  constructor(private readonly market: Market, expected = 0) {
    this.time = new Column(expected);
    this.price = new Column(expected);
    this.up = new Column(expected);
    this.down = new Column(expected);
  }

  /** Append records (time order). */
  add(page: readonly Snapshot[]): void {
    for (const s of page) {
      this.time.push(s.time);
      this.price.push(s.price);
      this.up.push(s.price_up);
      this.down.push(s.price_down);
      if (s.orderbook_up || s.orderbook_down) this.books += 1;
      this.upBooks.push(s.orderbook_up, this.px, this.sz);
      this.downBooks.push(s.orderbook_down, this.px, this.sz);
    }
  }

  /** The columns alone (structured-cloneable: a sweep hands them to its workers). */
  pack(): PackedSeries {
    const side = (b: SideBooks): PackedBooks => ({ start: b.start.done(), bids: b.bids.done(), asks: b.asks.done() });
    return {
      market: this.market,
      time: this.time.done(),
      price: this.price.done(),
      priceUp: this.up.done(),
      priceDown: this.down.done(),
      px: this.px.done(),
      sz: this.sz.done(),
      up: side(this.upBooks),
      down: side(this.downBooks),
      books: this.books,
    };
  }

  /** The series; the builder is not used after. */
  finish(): MarketSeries {
    return unpack(this.pack());
  }
}

/** One side's books by snapshot: where its levels start in px/sz (-1: none), how many bids and asks. */
export interface PackedBooks {
  start: Float64Array;
  bids: Float64Array;
  asks: Float64Array;
}

/** A market's series as plain typed arrays. */
export interface PackedSeries {
  market: Market;
  time: Float64Array;
  price: Float64Array;
  priceUp: Float64Array;
  priceDown: Float64Array;
  px: Float64Array;
  sz: Float64Array;
  up: PackedBooks;
  down: PackedBooks;
  /** Snapshots with a book on either side. */
  books: number;
}

/** A side's levels as book() hands them out: copied into arrays reused by every call. */
class ReusedLevels implements BookLevels {
  length = 0;
  prices = new Float64Array(8);
  sizes = new Float64Array(8);

  fill(px: Float64Array, sz: Float64Array, from: number, n: number): this {
    if (this.prices.length < n) {
      this.prices = new Float64Array(n);
      this.sizes = new Float64Array(n);
    }
    for (let k = 0; k < n; k++) {
      this.prices[k] = px[from + k]!;
      this.sizes[k] = sz[from + k]!;
    }
    this.length = n;
    return this;
  }
}

/** Use on packed columns (built here, or cloned into a worker): the series over them. */
export function unpack(p: PackedSeries): MarketSeries {
  const { px, sz, up, down } = p;
  // One view per outcome, refilled by each call: a rule reading bid or ask builds nothing per snapshot.
  const views = {
    up: { bids: new ReusedLevels(), asks: new ReusedLevels() },
    down: { bids: new ReusedLevels(), asks: new ReusedLevels() },
  };
  const hasBooks = p.books > 0;
  return {
    market: p.market,
    length: p.time.length,
    time: p.time,
    price: p.price,
    priceUp: p.priceUp,
    priceDown: p.priceDown,
    book(i: number, s: OutcomeSide): SideBook | undefined {
      if (!hasBooks) return undefined;
      const b = s === 'up' ? up : down;
      const from = b.start[i]!;
      if (from < 0) return undefined;
      const nb = b.bids[i]!;
      const v = views[s];
      v.bids.fill(px, sz, from, nb);
      v.asks.fill(px, sz, from + nb, b.asks[i]!);
      return v;
    },
  };
}
