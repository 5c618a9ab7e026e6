// The recorder's core, between the live sockets and the store: CLOB frames become sequenced events
// (seq = the order received) pushed into each market's tape, RTDS frames become Chainlink prices,
// and each flush is one TapeStore batch that declares what the market channel covered, decides the
// ticks up to a short lag behind the clock (frames may arrive late), saves the tapes and prices,
// and settles the markets that ended. The same tapes and store as the archive import: the same
// events give the same snapshots.
import type { Coin } from '../../domain/market.js';
import type { RecordWrites } from '../../store/record-writes.js';
import type { RealMarket } from '../import/real-market.js';
import type { SequencedEvent } from '../mapping/market-event.js';
import { TapeStore } from '../tape-store.js';
import { ChainlinkPrices } from './chainlink-prices.js';
import { readClobFrame } from './clob-frames.js';
import { readRtdsFrame } from './rtds-frames.js';

/** The source name the market channel's spans are stored under. */
const CLOB_SOURCE = 'clob';

/** What the recorder counted, for the status line and the closing summary. */
export interface RecorderStats {
  frames: number;
  badFrames: number;
  events: number;
  prices: number;
  /** Times the market channel went down (each leaves a gap): counted by the feed, filled in by the recording. */
  gaps: number;
  marketsAdded: number;
  snapshots: number;
  /** Clock time minus the newest exchange time of the last data frame, ms. */
  lagMs: number;
}

/** Use once per recording run over one store. */
export class Recorder {
  readonly prices = new ChainlinkPrices();
  readonly store: TapeStore;
  readonly stats: RecorderStats = { frames: 0, badFrames: 0, events: 0, prices: 0, gaps: 0, marketsAdded: 0, snapshots: 0, lagMs: 0 };
  private readonly active = new Map<string, RealMarket>();
  private readonly byToken = new Map<string, string>();
  private buffered = new Map<string, SequencedEvent[]>();
  /** The market channel's spans since the last flush: closed ones, and the one open now. */
  private closedSpans: { from: number; to: number }[] = [];
  private openSince: number | null = null;
  /** Receipt order; based on the run's start so a later run's events order after a saved tape's. */
  private seq: number;

  constructor(
    readonly bulk: RecordWrites,
    private readonly o: { lagMs: number; now: () => number; onBadFrame?: (source: string, why: string) => void },
  ) {
    this.store = new TapeStore(bulk, { priceSource: 'chainlink', prices: (coin) => this.prices.priceAt(coin) });
    this.seq = o.now() * 1000;
  }

  /** Loads the coins' stored Chainlink prices from `from` on (a restart keeps its edge prices). */
  async restorePrices(coins: readonly Coin[], from: number): Promise<void> {
    for (const coin of coins) for (const [ts, price] of await this.bulk.realdata.prices(coin, from)) this.prices.add({ coin, ts, price }, true);
  }

  /** Starts recording a market (its tokens are the channel's from now on); a known one is ignored. */
  track(m: RealMarket): boolean {
    if (this.active.has(m.marketId)) return false;
    this.active.set(m.marketId, m);
    this.byToken.set(m.tokenUp, m.marketId);
    this.byToken.set(m.tokenDown, m.marketId);
    return true;
  }

  /** Markets being recorded. */
  markets(): RealMarket[] {
    return [...this.active.values()];
  }

  /** The tokens to subscribe to: both of every market being recorded. */
  tokens(): string[] {
    return [...this.byToken.keys()];
  }

  /** The market channel connected at `at`. */
  clobOpen(at: number): void {
    this.openSince = at;
  }

  /** The market channel went down at `at`: what it covered ends there; the time until it is back is a gap. */
  clobDown(at: number): void {
    if (this.openSince === null) return;
    this.closedSpans.push({ from: this.openSince, to: Math.max(at, this.openSince) });
    this.openSince = null;
  }

  /** One frame of the market channel, received at `at`. */
  clobFrame(text: string, at: number): void {
    this.stats.frames++;
    const f = readClobFrame(text);
    if (f.bad.length > 0) {
      this.stats.badFrames++;
      for (const why of f.bad) this.o.onBadFrame?.(CLOB_SOURCE, why);
    }
    if (f.latest !== undefined) this.stats.lagMs = at - f.latest;
    for (const e of f.events) {
      const id = this.byToken.get(e.token);
      if (!id) continue;
      const list = this.buffered.get(id) ?? [];
      this.buffered.set(id, list);
      list.push({ ...e, seq: this.seq++ } as SequencedEvent);
      this.stats.events++;
    }
  }

  /** One frame of RTDS. */
  rtdsFrame(text: string): void {
    this.stats.frames++;
    const f = readRtdsFrame(text);
    if (f.bad.length > 0) {
      this.stats.badFrames++;
      for (const why of f.bad) this.o.onBadFrame?.('rtds', why);
    }
    for (const t of f.ticks) this.prices.add(t);
    this.stats.prices += f.ticks.length;
  }

  /**
   * One batch at clock time `now`: every market's events pushed, the channel's spans declared,
   * ticks decided up to the lag (to the end of a span that closed), tapes and prices saved. With
   * `final`, the open span is closed at `now` (a clean stop). Returns the markets that ended.
   */
  async flush(now: number, final = false): Promise<RealMarket[]> {
    if (final && this.openSince !== null) {
      this.closedSpans.push({ from: this.openSince, to: now });
      this.openSince = null;
    }
    // Taken now: frames and drops that come while the batch awaits its store belong to the next one.
    const spans = this.closedSpans;
    const buffered = this.buffered;
    this.closedSpans = [];
    this.buffered = new Map();
    const open = this.openSince;
    const openTo = open === null ? undefined : Math.max(open, now - this.o.lagMs);
    const ticks = this.prices.takeUnsaved();
    const ended: RealMarket[] = [];
    const before = this.store.counts.snapshots;
    try {
      await this.store.batch(async () => {
        const r = this.bulk.realdata;
        for (const t of ticks) await r.addPrice(t.coin, t.ts, t.price);
        for (const s of spans) await r.coverSpan(CLOB_SOURCE, s.from, s.to);
        if (open !== null && openTo! > open) await r.coverSpan(CLOB_SOURCE, open, openTo!);
        for (const m of this.active.values()) {
          const l = await this.store.open(m);
          const events = buffered.get(m.marketId);
          if (events) l.tape.push(events);
          for (const s of spans) {
            l.tape.cover(s.from, s.to);
            this.store.advance(l, s.to);
          }
          if (open !== null && openTo! > open) {
            l.tape.cover(open, openTo!);
            this.store.advance(l, openTo!);
          }
          await this.store.save(l);
          if (l.tape.done) {
            await this.store.settle(l);
            ended.push(m);
          }
        }
      });
    } catch (err) {
      // Nothing of the batch was kept: what it took goes back before what came meanwhile.
      this.prices.restoreUnsaved(ticks);
      this.closedSpans = [...spans, ...this.closedSpans];
      for (const [id, later] of this.buffered) buffered.set(id, [...(buffered.get(id) ?? []), ...later]);
      this.buffered = buffered;
      throw err;
    }
    for (const m of ended) this.drop(m);
    this.stats.marketsAdded = this.store.counts.marketsAdded;
    this.stats.snapshots += this.store.counts.snapshots - before;
    return ended;
  }

  /** Writes a market's outcome once Gamma has it: the winner, and price_start / price_end from the recorded prices. */
  async settle(m: RealMarket): Promise<void> {
    await this.store.batch(async () => {
      const l = await this.store.open(m);
      l.market = m;
      await this.store.settle(l);
    });
    this.store.release(m.marketId);
  }

  private drop(m: RealMarket): void {
    this.store.release(m.marketId);
    this.active.delete(m.marketId);
    this.byToken.delete(m.tokenUp);
    this.byToken.delete(m.tokenDown);
  }
}
