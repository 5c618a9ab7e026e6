// What became visible between two readings of the data clock: for the window (from, to], the
// markets that opened, every snapshot taken, and the markets that resolved, in time order. It
// reads the unbounded store with explicit bounds (the replay view's own bounds) and shows each
// market as the store seen at a replay clock would, so a frame equals what the REST API answers.
import { dialectMarket } from '../domain/dialect-records.js';
import { MARKET_DURATION_MS, MARKET_TYPES, type ServedMarket } from '../domain/market.js';
import { ReplayView } from '../replay/replay-view.js';
import type { Store } from '../store/store.js';
import { textFrame } from './wire.js';

/** One thing a subscriber may be sent; frames are encoded on first use and shared by every socket. */
export class FeedEvent {
  private plainFrame: Buffer | undefined;
  private bookFrame: Buffer | undefined;

  constructor(
    readonly kind: 'open' | 'snapshot' | 'resolved',
    /** When it became visible on the data clock. */
    readonly time: number,
    readonly market: Pick<ServedMarket, 'market_id' | 'coin' | 'market_type' | 'start_time'>,
    /** The market (open, resolved) or the snapshot row in v1 shape (orderbooks included when read). */
    private readonly record: Record<string, unknown>,
  ) {}

  /**
   * Ties at one time: a market opens before its first snapshot; one that ends at T (its last
   * snapshot is before T) resolves before the next of its series opens at T.
   */
  get order(): number {
    return this.kind === 'resolved' ? 0 : this.kind === 'open' ? 1 : 2;
  }

  get hasBook(): boolean {
    return this.record.orderbook_up !== undefined || this.record.orderbook_down !== undefined;
  }

  /** The WebSocket frame (UTF-8 JSON text) for a subscriber who asked for orderbooks or not; every socket sends the same bytes. */
  wire(withBook: boolean): Buffer {
    if (this.kind !== 'snapshot') {
      return (this.plainFrame ??= textFrame(Buffer.from(JSON.stringify({ type: this.kind === 'open' ? 'market_open' : 'market_resolved', market: this.record }))));
    }
    if (withBook && this.hasBook) return (this.bookFrame ??= textFrame(Buffer.from(`{"type":"snapshot","snapshot":${JSON.stringify(this.record)}}`)));
    if (this.plainFrame === undefined) {
      const { orderbook_up: _up, orderbook_down: _down, ...plain } = this.record;
      this.plainFrame = textFrame(Buffer.from(`{"type":"snapshot","snapshot":${JSON.stringify(plain)}}`));
    }
    return this.plainFrame;
  }
}

/** Snapshots read per page: a page of a long window is parsed whole, so keep it moderate. */
const PAGE = 5000;

/** Use to read what became visible in (from, to]; `books` reads orderbooks too (someone asked for them). */
export async function readVisible(store: Store, from: number, to: number, books: boolean): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  const atEnd = new ReplayView(store, () => to);
  for (const type of MARKET_TYPES) {
    // Markets of this type overlapping the window: start_time in (from - duration, to].
    const { markets } = await store.listMarkets({ marketType: type, startFrom: from - MARKET_DURATION_MS[type] + 1, startBefore: to + 1, limit: 1000, offset: 0, window: null, now: to });
    // Oldest first, so a window over several markets of a series reads them in order.
    for (const m of markets.reverse()) {
      const ref = { market_id: m.market_id, coin: m.coin, market_type: m.market_type, start_time: m.start_time };
      if (m.start_time > from) {
        // As it stood when it opened: active, no result.
        const opened = await new ReplayView(store, () => m.start_time).getMarket(m.market_id);
        if (opened) events.push(new FeedEvent('open', m.start_time, ref, dialectMarket('v1', opened)));
      }
      if (m.snapshot_count > 0) await readSnapshots(store, ref, Math.max(from + 1, m.start_time), to, books, events);
      if (m.end_time > from && m.end_time <= to) {
        const resolved = await atEnd.getMarket(m.market_id);
        if (resolved) events.push(new FeedEvent('resolved', m.end_time, ref, dialectMarket('v1', resolved)));
      }
    }
  }
  // Stable: within a market and a time, the order above holds.
  return events.sort((a, b) => a.time - b.time || a.order - b.order);
}

async function readSnapshots(store: Store, market: FeedEvent['market'], from: number, to: number, books: boolean, into: FeedEvent[]): Promise<void> {
  for (let offset = 0; ; offset += PAGE) {
    const page = await store.snapshotPageJson(market.market_id, { limit: PAGE, offset, from, before: to + 1, includeOrderbook: books });
    for (const row of JSON.parse(page.json) as Record<string, unknown>[]) into.push(new FeedEvent('snapshot', row.time as number, market, row));
    if (page.count < PAGE) return;
  }
}
