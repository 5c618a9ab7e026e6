// Whole markets of a local SQLite store as columns (src/domain/market-series.ts), for the backtest:
// a dense market's values come from its blocks, any other from four plucked columns (numbers, no
// row objects), and its orderbooks stay packed in memory until a snapshot's book is asked for,
// then decode straight from the binary pair (text rows, from before books were packed, parse).
// A market's packed books come in one aggregate row (their bytes concatenated by SQLite), not a
// row object and a Buffer per snapshot; an outcome's best prices for a whole market are read in
// one pass over the pairs' first prices alone (no sizes decoded).
// Every number is the stored value / 10^k, the double JSON.parse gives for the served text.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { SNAPSHOT_INTERVAL_MS } from '../../../domain/market.js';
import type { BestPrices, BookLevels, MarketSeries, MarketSource, OutcomeSide, SideBook } from '../../../domain/market-series.js';
import { decodePair, decodeTops, emptyPair, refDt, type BookPair } from '../../core/book-codec.js';
import { DenseBlocks } from '../dense-blocks.js';
import { SIDE_BITS } from '../../core/dense-page-writer.js';
import { toMarket, type MarketRow } from '../../core/market-row.js';
import { fromScaled } from '../../core/price-scale.js';
import { openDatabase } from '../open.js';
import { marketColumns } from './market-columns.js';

/** Options of sqliteSeriesSource. */
export interface SeriesSourceOptions {
  /** Read the markets' orderbooks too (default false: book() is always undefined). */
  orderbooks?: boolean;
  /** The clock a market's status and what an active market hides are judged at. */
  now: number;
}

const SIDE_MASK = (1 << SIDE_BITS) - 1;

/**
 * Use to hand markets of a local SQLite store to the backtest: yields them in the order of
 * `marketIds` (the caller sorts them by start_time); ids not stored are skipped. Each series has
 * columns of its own: it stays valid after the next is read (markets on one clock overlap).
 */
export function sqliteSeriesSource(db: Database.Database, marketIds: readonly string[], opts: SeriesSourceOptions): MarketSource {
  const reads = new SeriesReads(db);
  return {
    async *[Symbol.asyncIterator]() {
      for (const id of marketIds) {
        const series = reads.market(id, opts);
        if (series) yield series;
      }
    },
  };
}

/** Use with a store file (msnap backtest --db FILE): as sqliteSeriesSource over a read-only connection open while iterating. */
export function sqliteFileSeriesSource(file: string, marketIds: readonly string[], opts: SeriesSourceOptions): MarketSource {
  return {
    async *[Symbol.asyncIterator]() {
      const { db } = openDatabase(file, { readonly: true });
      try {
        yield* sqliteSeriesSource(db, marketIds, opts);
      } finally {
        db.close();
      }
    },
  };
}

class SeriesReads {
  private readonly marketById: Statement;
  private readonly blocks: DenseBlocks;
  private readonly columns: Statement[];
  private readonly packedBooks: Statement;
  private readonly orderedBooks: Statement;
  private readonly textBooks: Statement;

  constructor(db: Database.Database) {
    this.marketById = db.prepare(`SELECT ${marketColumns(db)} FROM markets WHERE market_id = ?`);
    this.blocks = new DenseBlocks(db);
    this.columns = ['t', 'price', 'price_up', 'price_down'].map((c) => db.prepare(`SELECT ${c} FROM snapshots WHERE market = ? ORDER BY t`).pluck());
    // The fast form trusts the key (market, t) walk to give rows in time order and the market to
    // hold packed rows only; the exact form (sorted, text rows left out and counted: slower) is
    // for a market where the reader sees otherwise (offsets out of order, lengths that do not add
    // up to the bytes, a row not starting with a packed kind byte).
    this.packedBooks = db.prepare("SELECT group_concat(t), group_concat(length(up)), CAST(group_concat(up, '') AS BLOB), 0 FROM orderbooks WHERE market = ?").raw(true);
    const blob = "FILTER (WHERE typeof(up) = 'blob')";
    this.orderedBooks = db
      .prepare(
        `SELECT group_concat(t, ',' ORDER BY t) ${blob}, group_concat(length(up), ',' ORDER BY t) ${blob},
                CAST(group_concat(up, '' ORDER BY t) ${blob} AS BLOB), count(*) FILTER (WHERE typeof(up) <> 'blob')
         FROM orderbooks WHERE market = ?`,
      )
      .raw(true);
    this.textBooks = db.prepare("SELECT t, up, down FROM orderbooks WHERE market = ? AND typeof(up) <> 'blob' ORDER BY t").raw(true);
  }

  /** The market's books, or undefined when it holds none (most markets of a long history). */
  private books(id: number, offsets: number[]): MarketBooks | undefined {
    let row = this.packedBooks.get(id) as AggregateRow;
    let packed = packedRows(row);
    if (packed && !allPacked(packed)) packed = packedRows((row = this.orderedBooks.get(id) as AggregateRow));
    const texts = row[3] > 0 ? (this.textBooks.iterate(id) as Iterable<[number, string, string]>) : [];
    return packed || row[3] > 0 ? new MarketBooks(offsets, packed, texts) : undefined;
  }

  market(id: string, opts: SeriesSourceOptions): MarketSeries | undefined {
    const m = this.marketById.get(id) as MarketRow | undefined;
    if (!m) return undefined;
    const values = this.fromBlocks(m) ?? this.fromRows(m);
    // Most markets of a long history hold no book: one indexed probe spares them the book buffers.
    const books = opts.orderbooks ? this.books(m.id, values.offsets) : undefined;
    const time = values.offsets;
    for (let i = 0; i < time.length; i++) time[i] = m.start_time + time[i]!;
    return {
      market: toMarket(m, opts.now),
      length: time.length,
      time,
      price: values.price,
      priceUp: values.priceUp,
      priceDown: values.priceDown,
      book: (i, side) => books?.book(i, side),
      bestPrices: (side) => (books ? books.bestPrices(side) : noBook(time.length)),
    };
  }

  /** A dense market whose blocks hold every slot: offsets follow from the grid. */
  private fromBlocks(m: MarketRow): Columns | undefined {
    const n = m.snapshot_count;
    if (m.dense !== 1 || n === 0) return undefined;
    const packed = this.blocks.read(m.id, 0, n);
    if (!packed) return undefined;
    const c = this.buffer(n);
    const sides = packed.sides;
    const prices = packed.prices;
    for (let i = 0; i < n; i++) {
      const ud = sides[i]!;
      c.offsets[i] = i * SNAPSHOT_INTERVAL_MS;
      c.price[i] = fromScaled(prices[i]!);
      // A shift, not Math.floor(ud / 2 ** SIDE_BITS): the same for a uint32, and the division form
      // made this loop most of a long backtest's read (docs/testing.md, "Measured choices").
      c.priceUp[i] = fromScaled(ud >>> SIDE_BITS);
      c.priceDown[i] = fromScaled(ud & SIDE_MASK);
    }
    return c;
  }

  /** Fresh columns for one market: a series outlives the read of the next one. */
  private buffer(n: number): Columns {
    return columns(n);
  }

  private fromRows(m: MarketRow): Columns {
    const [t, price, up, down] = this.columns.map((s) => s.all(m.id) as number[]) as [number[], number[], number[], number[]];
    const c = this.buffer(t.length);
    for (let i = 0; i < t.length; i++) {
      c.offsets[i] = t[i]!;
      c.price[i] = fromScaled(price[i]!);
      c.priceUp[i] = fromScaled(up[i]!);
      c.priceDown[i] = fromScaled(down[i]!);
    }
    return c;
  }
}

interface Columns {
  /** Offsets from the market's start while reading; made epoch ms before the series is handed out. */
  offsets: number[];
  price: number[];
  priceUp: number[];
  priceDown: number[];
}

/**
 * Plain arrays of doubles, not Float64Arrays: a typed array's bytes live outside V8's heap and
 * are freed only when a collection catches up with them, so a long run read markets faster than
 * they were freed and its peak RSS grew; these go with the young generation (docs/testing.md,
 * "Measured choices").
 */
function columns(n: number): Columns {
  // Filled with a fraction so V8 holds them as doubles from the start (no copy on the first store).
  const column = (): number[] => new Array<number>(n).fill(0.5);
  return { offsets: column(), price: column(), priceUp: column(), priceDown: column() };
}

/** A side's levels as book() hands them out: arrays reused, valid up to `length`. */
class Levels implements BookLevels {
  length = 0;
  prices = new Float64Array(8);
  sizes = new Float64Array(8);

  fill(prices: ArrayLike<number>, sizes: ArrayLike<number>, n: number, pd: number, sd: number): void {
    if (this.prices.length < n) {
      this.prices = new Float64Array(n);
      this.sizes = new Float64Array(n);
    }
    for (let i = 0; i < n; i++) {
      this.prices[i] = prices[i]! / pd;
      this.sizes[i] = sizes[i]! / sd;
    }
    this.length = n;
  }
}

/** Both outcomes' views, reused by every call for that outcome. */
class SideView implements SideBook {
  readonly bids = new Levels();
  readonly asks = new Levels();
  /** The snapshot whose packed pair the levels hold (-1: none, or a text row's). */
  at = -1;
}

/** The packed-books aggregate: offsets and byte lengths as comma-separated text, the bytes, the count of text rows. */
type AggregateRow = [string | null, string | null, Uint8Array | null, number];

/** A market's packed pairs: offsets and lengths in time order, the bytes one after another. */
interface PackedRows {
  times: Float64Array;
  lengths: Float64Array;
  bytes: Uint8Array;
}

function packedRows(row: AggregateRow): PackedRows | undefined {
  const [times, lengths, bytes] = row;
  return times === null || lengths === null || bytes === null ? undefined : { times: integers(times), lengths: integers(lengths), bytes };
}

/** SQLite's group_concat of integers, read in place (no array of strings). */
function integers(text: string): Float64Array {
  let n = 1;
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 44) n++;
  const out = new Float64Array(n);
  let j = 0;
  let v = 0;
  let sign = 1;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 44) {
      out[j++] = sign * v;
      v = 0;
      sign = 1;
    } else if (c === 45) sign = -1;
    else v = v * 10 + (c - 48);
  }
  out[j] = sign * v;
  return out;
}

/** True when the rows are in time order and each is a packed pair (kind byte 0 or 1; text starts otherwise). */
function allPacked({ times, lengths, bytes }: PackedRows): boolean {
  if (times.length !== lengths.length) return false;
  let at = 0;
  for (let k = 0; k < times.length; k++) {
    if ((k > 0 && !(times[k - 1]! < times[k]!)) || !(lengths[k]! > 0) || at >= bytes.length || bytes[at]! > 1) return false;
    at += lengths[k]!;
  }
  return at === bytes.length;
}

/** Best prices of a market without books: NaN throughout. */
function noBook(n: number): BestPrices {
  const none = new Float64Array(n).fill(Number.NaN);
  return { bids: none, asks: none };
}

/** The first prices sideBest keeps while it walks a market's pairs, reused from market to market. */
let topsScratch = new Float64Array(0);

function scratchTops(n: number): Float64Array {
  if (topsScratch.length < n) topsScratch = new Float64Array(n);
  return topsScratch;
}

/** One market's stored books, packed, by snapshot index; decoded on demand. */
class MarketBooks {
  /** Packed pairs one after another in one buffer (no object per book): snapshot i's is pool[start[i], end[i]). */
  private readonly pool: Uint8Array;
  private readonly start: Int32Array;
  private readonly end: Int32Array;
  /** Books stored as text (older stores), by snapshot index. */
  private readonly texts = new Map<number, [string, string]>();
  private readonly views = { up: new SideView(), down: new SideView() };
  private readonly best: { up?: BestPrices; down?: BestPrices } = {};
  private decodedAt = -1;
  private pair = emptyPair();
  private spare = emptyPair();

  constructor(
    private readonly offsets: readonly number[],
    packed: PackedRows | undefined,
    texts: Iterable<[number, string, string]>,
  ) {
    // Pairs are read in place, between their offsets: no view per decode.
    const bytes = packed?.bytes ?? new Uint8Array(0);
    this.pool = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.start = new Int32Array(offsets.length).fill(-1);
    this.end = new Int32Array(offsets.length);
    // Offsets and rows are both ordered by t: merge walks.
    if (packed) {
      let i = 0;
      let used = 0;
      const { times, lengths } = packed;
      for (let r = 0; r < times.length; r++) {
        const t = times[r]!;
        const from = used;
        used += lengths[r]!;
        while (i < offsets.length && offsets[i]! < t) i++;
        if (i >= offsets.length || offsets[i] !== t) continue;
        this.start[i] = from;
        this.end[i] = used;
      }
    }
    let i = 0;
    for (const [t, up, down] of texts) {
      while (i < offsets.length && offsets[i]! < t) i++;
      if (i < offsets.length && offsets[i] === t) this.texts.set(i, [up, down]);
    }
  }

  /**
   * The outcome's best prices at every snapshot, read in one pass on first use and kept with the
   * market: each is the level book(i, side) hands out first, divided alike.
   */
  bestPrices(side: OutcomeSide): BestPrices {
    return (this.best[side] ??= this.sideBest(side));
  }

  private sideBest(side: OutcomeSide): BestPrices {
    const n = this.start.length;
    const bids = new Float64Array(n).fill(Number.NaN);
    const asks = new Float64Array(n).fill(Number.NaN);
    // Each pair's first prices, scaled, in tops[4i..4i+3]: its successors' references. Only those
    // of the side's two lists and the ones before them are read from the bytes (decodeTops;
    // docs/testing.md, "Measured choices"); a pair it declines is decoded whole.
    const k = side === 'up' ? 0 : 2;
    const tops = scratchTops(4 * n);
    for (let i = 0; i < n; i++) {
      const from = this.start[i]!;
      if (from < 0) {
        const b = this.texts.has(i) ? this.book(i, side) : undefined;
        if (b && b.bids.length > 0) bids[i] = b.bids.prices[0]!;
        if (b && b.asks.length > 0) asks[i] = b.asks.prices[0]!;
        continue;
      }
      const to = this.end[i]!;
      const dt = refDt(this.pool, from, to);
      const ref = dt === 0 ? -1 : i > 0 && this.offsets[i - 1] === this.offsets[i]! - dt && this.start[i - 1]! >= 0 ? i - 1 : this.indexOf(this.offsets[i]! - dt);
      let dp = decodeTops(this.pool, from, to, tops, 4 * i, 4 * ref, k + 2);
      if (dp < 0) {
        const pair = this.decode(i);
        for (let j = 0; j < 4; j++) tops[4 * i + j] = pair.lists[j]!.n > 0 ? pair.lists[j]!.prices[0]! : Number.NaN;
        dp = pair.dp;
      }
      const pd = 10 ** dp;
      bids[i] = tops[4 * i + k]! / pd;
      asks[i] = tops[4 * i + k + 1]! / pd;
    }
    return { bids, asks };
  }

  book(i: number, side: OutcomeSide): SideBook | undefined {
    if (!(i >= 0 && i < this.start.length)) return undefined;
    const view = this.views[side];
    if (this.start[i]! < 0) {
      view.at = -1;
      const text = this.texts.get(i);
      return text && textSide(side === 'up' ? text[0] : text[1], view);
    }
    // A maker order and the strategy read the same snapshot's book in turn: filled once.
    if (view.at === i) return view;
    view.at = -1;
    const pair = this.decode(i);
    const k = side === 'up' ? 0 : 2;
    const bids = pair.lists[k]!;
    const asks = pair.lists[k + 1]!;
    const pd = 10 ** pair.dp;
    const sd = 10 ** pair.ds;
    view.bids.fill(bids.prices, bids.sizes, bids.n, pd, sd);
    view.asks.fill(asks.prices, asks.sizes, asks.n, pd, sd);
    view.at = i;
    return view;
  }

  /** The pair of snapshot i; the one before it in time is usually its reference, else its chain is walked back. */
  private decode(i: number): BookPair {
    if (this.decodedAt === i) return this.pair;
    const from = this.start[i]!;
    const to = this.end[i]!;
    const dt = refDt(this.pool, from, to);
    let ref: BookPair | undefined;
    if (dt > 0) {
      const t = this.offsets[i]! - dt;
      if (!(this.decodedAt >= 0 && this.offsets[this.decodedAt] === t)) this.decode(this.indexOf(t));
      ref = this.pair;
    }
    const out = decodePair(this.pool, ref, this.spare, from, to);
    this.spare = this.pair;
    this.pair = out;
    this.decodedAt = i;
    return out;
  }

  private indexOf(t: number): number {
    let lo = 0;
    let hi = this.offsets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.offsets[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    if (this.offsets[lo] !== t || this.start[lo]! < 0) throw new RangeError(`a packed orderbook at ${t} ms is missing: its successor refers to it`);
    return lo;
  }
}

/** A text row's side (stored before books were packed, or text the codec does not reproduce): JSON.parse, as a client reads it. */
function textSide(text: string, view: SideView): SideBook | undefined {
  const book = JSON.parse(text) as { bids?: unknown; asks?: unknown } | null;
  if (!book || typeof book !== 'object' || !Array.isArray(book.bids) || !Array.isArray(book.asks)) return undefined;
  fillText(view.bids, book.bids as unknown[]);
  fillText(view.asks, book.asks as unknown[]);
  return view;
}

// Levels as {price, size} objects, or [price, size] pairs in old text; numeric strings as numbers.
function fillText(levels: Levels, list: unknown[]): void {
  const prices: number[] = [];
  const sizes: number[] = [];
  for (const l of list) {
    const [p, s] = Array.isArray(l) ? l : [(l as { price?: unknown }).price, (l as { size?: unknown }).size];
    prices.push(Number(p));
    sizes.push(Number(s));
  }
  levels.fill(prices, sizes, prices.length, 1, 1);
}
