// The store side of real data, shared by the archive import and the live recorder: each market's
// row and its tape (restored from the state saved with the last batch), snapshots written as the
// tapes decide them, and batches that commit snapshots and tape states together, so a run stopped
// at any point resumes exactly where its last committed batch left off.
import type { Coin } from '../domain/market.js';
import { PRICE_SCALE, toScaled } from '../store/core/price-scale.js';
import type { MarketRef, RecordRows, RecordWrites } from '../store/record-writes.js';
import { PRICE_DECIMALS } from './mapping/decimal.js';
import { SnapshotTape, type PriceAt, type SavedTape, type SnapshotSink } from './mapping/snapshot-tape.js';
import type { RealMarket } from './import/real-market.js';

if (10 ** PRICE_DECIMALS !== PRICE_SCALE) throw new Error("displayed prices must be in the store's price unit");

/** A market being written: its record, its tape and its row. */
export interface LiveMarket {
  market: RealMarket;
  tape: SnapshotTape;
  ref: MarketRef;
}

/** What a TapeStore wrote. */
export interface TapeStoreCounts {
  marketsAdded: number;
  snapshots: number;
  snapshotsSkipped: number;
  books: number;
  /** Milliseconds spent deciding ticks and writing their rows (the write path, without reading sources). */
  writeMs: number;
}

const noPrice: PriceAt = () => undefined;

/** Use for one run of an import or a recording over one store's record port (SQLite or PostgreSQL). */
export class TapeStore {
  readonly counts: TapeStoreCounts = { marketsAdded: 0, snapshots: 0, snapshotsSkipped: 0, books: 0, writeMs: 0 };
  private readonly live = new Map<string, LiveMarket>();
  private readonly prices = new Map<Coin, PriceAt | undefined>();
  private writer: RecordRows | undefined;
  private current: LiveMarket | undefined;
  private readonly sink: SnapshotSink;

  constructor(
    readonly bulk: RecordWrites,
    private readonly opts: { priceSource: 'binance' | 'chainlink'; prices: (coin: Coin) => PriceAt | undefined },
  ) {
    this.sink = {
      snapshot: (time, price, up, down, books) => {
        const { ref } = this.current!;
        const t = time - ref.startTime;
        this.writer!.add(ref.rowid, t, toScaled(price), up, down);
        if (this.bulk.insertOrderbookPair(ref.rowid, t, books)) this.counts.books++;
      },
    };
  }

  /** The asset price rule of a coin, or undefined when there is none. */
  priceFor(coin: Coin): PriceAt | undefined {
    if (!this.prices.has(coin)) this.prices.set(coin, this.opts.prices(coin));
    return this.prices.get(coin);
  }

  /** Markets touched in this run. */
  markets(): IterableIterator<LiveMarket> {
    return this.live.values();
  }

  /** True when the market has a row and a saved tape in the store. */
  async hasSaved(marketId: string): Promise<boolean> {
    return (await this.bulk.marketRef(marketId)) !== undefined && (await this.bulk.realdata.state(marketId)) !== undefined;
  }

  /** The market's tape: from this run, else restored from the store, else new (its row written). Inside a batch only. */
  async open(m: RealMarket): Promise<LiveMarket> {
    let l = this.live.get(m.marketId);
    if (l) return l;
    const { ref, created } = await this.bulk.upsertMarket({
      marketId: m.marketId,
      coin: m.coin,
      marketType: m.marketType,
      startTime: m.startTime,
      endTime: m.endTime,
      priceStart: null,
      priceEnd: null,
      winner: m.winner,
      details: { condition_id: m.conditionId, clob_token_up: m.tokenUp, clob_token_down: m.tokenDown, event_id: m.eventId },
    });
    if (created) this.counts.marketsAdded++;
    await this.bulk.realdata.setSource(ref.rowid, { slug: m.slug, feeSchedule: m.fees ? JSON.stringify(m.fees) : null, priceSource: this.opts.priceSource });
    const saved = await this.bulk.realdata.state(m.marketId);
    const tape = new SnapshotTape(
      { marketId: m.marketId, startTime: m.startTime, endTime: m.endTime, tokenUp: m.tokenUp, tokenDown: m.tokenDown },
      saved ? (JSON.parse(saved) as SavedTape) : undefined,
    );
    l = { market: m, tape, ref };
    this.live.set(m.marketId, l);
    return l;
  }

  /** Lets go of a market of this run (a recording's ended one), so later batches no longer refresh its summary. Outside a batch. */
  release(marketId: string): void {
    this.live.delete(marketId);
  }

  /** Decides the market's ticks before `limit`, writing their snapshots. Inside a batch only. */
  advance(l: LiveMarket, limit: number): void {
    const started = performance.now();
    this.current = l;
    const before = l.tape.counts.snapshots;
    l.tape.advance(limit, this.priceFor(l.market.coin) ?? noPrice, this.sink);
    this.counts.snapshots += l.tape.counts.snapshots - before;
    this.counts.writeMs += performance.now() - started;
  }

  /** Saves the market's tape with the batch. */
  async save(l: LiveMarket): Promise<void> {
    await this.bulk.realdata.saveState(l.market.marketId, JSON.stringify(l.tape.save()));
  }

  /** Sets the market's start and end prices (the price rule at its edges) and Gamma's winner. */
  async settle(l: LiveMarket): Promise<void> {
    const price = this.priceFor(l.market.coin);
    const edge = (t: number) => (price ? (price(t) ?? null) : null);
    await this.bulk.realdata.setOutcome(l.ref.rowid, edge(l.market.startTime), edge(l.market.endTime), l.market.winner);
  }

  /**
   * Runs `fn` in one transaction with the snapshot writer open, then refreshes the touched markets'
   * summaries and commits. On failure everything since the batch began is undone, and the tapes
   * of this run are dropped, so the next use restores them from what the store last committed.
   */
  async batch(fn: () => void | Promise<void>): Promise<void> {
    await this.bulk.begin();
    this.writer = this.bulk.snapshotWriter();
    try {
      await fn();
      const started = performance.now();
      await this.writer.flush();
      this.counts.snapshotsSkipped += this.writer.skipped;
      await this.bulk.refreshMarkets([...this.live.values()].map((l) => l.ref.rowid), this.writer);
      await this.bulk.commit();
      this.counts.writeMs += performance.now() - started;
    } catch (err) {
      await this.bulk.rollback();
      this.live.clear();
      throw err;
    } finally {
      this.writer = undefined;
    }
  }
}
