// One market's reconstruction (REALDATA.md "Mapping"): events in, snapshots on the 125 ms grid
// out. The snapshot at tick t shows the state after every event with exchange time <= t, applied
// in time order (ties in the order received); none before both tokens have had a full book and an
// asset price is known; none in a span the source did not cover. The import and the recorder both
// feed this class, so the same events give the same snapshots whichever read them.
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';
import type { BookPair, LevelList } from '../../store/core/book-codec.js';
import { displayedPrice } from './displayed-price.js';
import { PRICE_DECIMALS, SIZE_DECIMALS } from './decimal.js';
import { byTimeThenReceipt, type SequencedEvent } from './market-event.js';
import { TokenBook, type SavedBook } from './token-book.js';

/** The market a tape rebuilds: its window and its two tokens. */
export interface TapeMarket {
  marketId: string;
  startTime: number;
  endTime: number;
  tokenUp: string;
  tokenDown: string;
}

/** Where the snapshots go: time is epoch ms on the grid; prices in units of 0.0001; books scaled (dp 4, ds 6). */
export interface SnapshotSink {
  snapshot(time: number, price: number, up: number, down: number, books: BookPair): void;
}

/** The asset price known at t (never a later one), or undefined before the first. */
export type PriceAt = (t: number) => number | undefined;

/** A tape's state as JSON, carried between archive hours and between runs. */
export interface SavedTape {
  v: 1;
  nextTick: number;
  coveredFrom: number | null;
  coveredUntil: number | null;
  up: SavedBook;
  down: SavedBook;
  /** Events not yet applied: [kind, ts, seq, token 0 up / 1 down, …]; see pack(). */
  pending: (number | number[])[][];
}

/** What a tape counted, for the import's summary. */
export interface TapeCounts {
  snapshots: number;
  /** Spans inside the market's window the source did not cover, or covered before both books were known. */
  gaps: number;
}

/** Use per market: push its events, declare which spans the source covered, advance the clock. */
export class SnapshotTape {
  readonly market: TapeMarket;
  private up: TokenBook;
  private down: TokenBook;
  private pending: SequencedEvent[] = [];
  private sorted = true;
  /** The next grid time to decide on. */
  private nextTick: number;
  private coveredFrom: number | null;
  private coveredUntil: number | null;
  readonly counts: TapeCounts = { snapshots: 0, gaps: 0 };
  private inGap = false;

  constructor(market: TapeMarket, saved?: SavedTape) {
    this.market = market;
    this.up = saved ? TokenBook.load(saved.up) : new TokenBook();
    this.down = saved ? TokenBook.load(saved.down) : new TokenBook();
    this.nextTick = saved?.nextTick ?? market.startTime;
    this.coveredFrom = saved?.coveredFrom ?? null;
    this.coveredUntil = saved?.coveredUntil ?? null;
    if (saved) this.pending = saved.pending.map((p) => unpack(p, market));
  }

  /** True once every tick of the window is decided. */
  get done(): boolean {
    return this.nextTick >= this.market.endTime;
  }

  /** Adds events of this market's tokens (others are ignored); they apply at the first tick at or after their time. */
  push(events: readonly SequencedEvent[]): void {
    for (const e of events) {
      if (e.token !== this.market.tokenUp && e.token !== this.market.tokenDown) continue;
      const last = this.pending[this.pending.length - 1];
      if (last && byTimeThenReceipt(last, e) > 0) this.sorted = false;
      this.pending.push(e);
    }
  }

  /**
   * Declares that the source covered [from, to). A span that does not join the one covered before
   * is a gap: the ticks between are never written and both books are unknown until their next
   * full book (what happened meanwhile is not known).
   */
  cover(from: number, to: number): void {
    if (this.coveredUntil === null || from > this.coveredUntil) {
      if (this.coveredUntil !== null) {
        this.up.forget();
        this.down.forget();
      }
      this.coveredFrom = from;
      this.nextTick = Math.max(this.nextTick, firstTickAtOrAfter(this.market.startTime, from));
    }
    if (this.coveredUntil === null || to > this.coveredUntil) this.coveredUntil = to;
  }

  /** Decides every tick before `limit` that the covered span reaches, writing snapshots to `sink`. */
  advance(limit: number, priceAt: PriceAt, sink: SnapshotSink): void {
    if (!this.sorted) {
      this.pending.sort(byTimeThenReceipt);
      this.sorted = true;
    }
    const stop = Math.min(limit, this.market.endTime, this.coveredUntil ?? this.market.startTime);
    const pending = this.pending;
    let next = 0;
    let t = this.nextTick;
    for (; t < stop; t += SNAPSHOT_INTERVAL_MS) {
      while (next < pending.length && pending[next]!.ts <= t) this.apply(pending[next++]!);
      this.decide(t, priceAt, sink);
    }
    this.nextTick = Math.max(this.nextTick, t);
    // Events before the last decided span can no longer be overtaken by a tick: apply them now so
    // a market listed long before it opens carries a book, not a growing queue.
    const settled = Math.min(stop, this.nextTick);
    while (next < pending.length && pending[next]!.ts < settled) this.apply(pending[next++]!);
    if (next > 0) this.pending = pending.slice(next);
  }

  /** The state to carry to the next hour or run. */
  save(): SavedTape {
    if (!this.sorted) {
      this.pending.sort(byTimeThenReceipt);
      this.sorted = true;
    }
    return {
      v: 1,
      nextTick: this.nextTick,
      coveredFrom: this.coveredFrom,
      coveredUntil: this.coveredUntil,
      up: this.up.save(),
      down: this.down.save(),
      pending: this.pending.map((e) => pack(e, this.market)),
    };
  }

  private apply(e: SequencedEvent): void {
    const book = e.token === this.market.tokenUp ? this.up : this.down;
    if (e.kind === 'book') book.replace(e.bids, e.asks);
    else if (e.kind === 'level') book.setLevel(e.side, e.price, e.size);
    else book.lastTrade = e.price;
  }

  private decide(t: number, priceAt: PriceAt, sink: SnapshotSink): void {
    const price = this.up.known && this.down.known ? priceAt(t) : undefined;
    const up = price === undefined ? -1 : displayedPrice(this.up);
    const down = up < 0 ? -1 : displayedPrice(this.down);
    if (price === undefined || up < 0 || down < 0) {
      if (!this.inGap) this.counts.gaps++;
      this.inGap = true;
      return;
    }
    this.inGap = false;
    this.counts.snapshots++;
    sink.snapshot(t, price, up, down, {
      dp: PRICE_DECIMALS,
      ds: SIZE_DECIMALS,
      lists: [bids(this.up), asks(this.up), bids(this.down), asks(this.down)],
    });
  }
}

function bids(book: TokenBook): LevelList {
  const l: LevelList = { n: 0, prices: [], sizes: [] };
  l.n = book.topBids(l.prices, l.sizes);
  return l;
}

function asks(book: TokenBook): LevelList {
  const l: LevelList = { n: 0, prices: [], sizes: [] };
  l.n = book.topAsks(l.prices, l.sizes);
  return l;
}

/** The first grid time of a market starting at `start` that is at or after `t`. */
function firstTickAtOrAfter(start: number, t: number): number {
  if (t <= start) return start;
  return start + Math.ceil((t - start) / SNAPSHOT_INTERVAL_MS) * SNAPSHOT_INTERVAL_MS;
}

const KIND_CODES = { book: 0, level: 1, trade: 2 } as const;

function pack(e: SequencedEvent, m: TapeMarket): (number | number[])[] {
  const token = e.token === m.tokenUp ? 0 : 1;
  if (e.kind === 'book') {
    return [KIND_CODES.book, e.ts, e.seq, token, e.bids.flatMap((l) => [l.price, l.size]), e.asks.flatMap((l) => [l.price, l.size])];
  }
  if (e.kind === 'level') return [KIND_CODES.level, e.ts, e.seq, token, e.side === 'bid' ? 0 : 1, e.price, e.size];
  return [KIND_CODES.trade, e.ts, e.seq, token, e.price];
}

function unpack(p: (number | number[])[], m: TapeMarket): SequencedEvent {
  const [kind, ts, seq, tokenIndex] = p as number[];
  const token = tokenIndex === 0 ? m.tokenUp : m.tokenDown;
  const levels = (flat: number[]) => {
    const out = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ price: flat[i]!, size: flat[i + 1]! });
    return out;
  };
  if (kind === KIND_CODES.book) return { kind: 'book', ts: ts!, seq: seq!, token, bids: levels(p[4] as number[]), asks: levels(p[5] as number[]) };
  if (kind === KIND_CODES.level) return { kind: 'level', ts: ts!, seq: seq!, token, side: p[4] === 0 ? 'bid' : 'ask', price: p[5] as number, size: p[6] as number };
  return { kind: 'trade', ts: ts!, seq: seq!, token, price: p[4] as number };
}
