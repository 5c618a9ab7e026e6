// A scripted Polymarket feed for the recorder's tests, played on the fake sockets from a clock the
// test controls: books sent on each subscription (levels in no particular order, as published),
// then every step some of `price_change` (several assets in one message, size "0" removals),
// `last_trade_price`, `tick_size_change` and `best_bid_ask`, sometimes several messages in one
// array frame, once in a while a bad frame; and a Chainlink price per coin each clock second.
import { mulberry32 } from '../../random/prng.js';
import type { FakePolymarketSockets } from './fake-polymarket-sockets.js';

/** A market the feed plays: its condition id, tokens and window (epoch ms). */
export interface FeedMarket {
  conditionId: string;
  tokenUp: string;
  tokenDown: string;
  start: number;
  end: number;
}

/** Chainlink symbols and starting prices of the coins the feed prices. */
export interface FeedCoin {
  symbol: string;
  price: number;
}

type Side = Map<string, string>;

/** Use per test: start() plays until stop(); each frame is also kept in `sent`. */
export class FakeMarketFeed {
  private readonly books = new Map<string, { bids: Side; asks: Side; mid: number; market: string }>();
  private readonly subscribed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly random: () => number;
  private lastPriceSecond = 0;
  private steps = 0;
  /** Frames sent, per socket kind. */
  readonly sent = { clob: 0, rtds: 0 };

  constructor(
    private readonly sockets: FakePolymarketSockets,
    private readonly now: () => number,
    private readonly markets: readonly FeedMarket[],
    private readonly coins: FeedCoin[],
    seed = 7,
  ) {
    this.random = mulberry32(seed);
    for (const m of markets) {
      this.books.set(m.tokenUp, { bids: new Map(), asks: new Map(), mid: 52, market: m.conditionId });
      this.books.set(m.tokenDown, { bids: new Map(), asks: new Map(), mid: 48, market: m.conditionId });
    }
    sockets.onClobSubscribe((assets) => {
      const books = assets.filter((a) => this.books.has(a)).map((a) => this.bookMessage(a, this.now()));
      for (const a of assets) this.subscribed.add(a);
      if (books.length) this.clob(JSON.stringify(books));
    });
  }

  /** Plays one step every `everyMs` of real time. */
  start(everyMs = 15): void {
    this.timer = setInterval(() => this.step(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private clob(frame: string): void {
    this.sockets.send('clob', frame);
    this.sent.clob++;
  }

  private step(): void {
    const now = this.now();
    this.steps++;
    const second = Math.floor(now / 1000);
    if (second !== this.lastPriceSecond) {
      this.lastPriceSecond = second;
      for (const c of this.coins) {
        c.price = Math.round((c.price + (this.random() - 0.5) * 20) * 100) / 100;
        const msg = { topic: 'crypto_prices_chainlink', type: 'update', timestamp: now, payload: { symbol: c.symbol, timestamp: now - Math.floor(this.random() * 300), value: c.price } };
        this.sockets.send('rtds', JSON.stringify(msg));
        this.sent.rtds++;
      }
    }
    const live = this.markets.filter((m) => this.subscribed.has(m.tokenUp) && now < m.end + 2000);
    const messages: object[] = [];
    for (const m of live) {
      // Exchange times a little behind the clock, so frames are not in exchange-time order.
      const ts = now - Math.floor(this.random() * 400);
      const r = this.random();
      if (r < 0.55) messages.push(this.priceChange(m, ts));
      else if (r < 0.75) messages.push(this.trade(this.random() < 0.5 ? m.tokenUp : m.tokenDown, ts));
      else if (r < 0.8) messages.push(this.bookMessage(this.random() < 0.5 ? m.tokenUp : m.tokenDown, ts));
      else if (r < 0.83) messages.push({ event_type: 'tick_size_change', asset_id: m.tokenUp, market: m.conditionId, old_tick_size: '0.01', new_tick_size: '0.001', timestamp: String(ts) });
      else if (r < 0.88) messages.push({ event_type: 'best_bid_ask', asset_id: m.tokenDown, market: m.conditionId, best_bid: '0.47', best_ask: '0.49', spread: '0.02', timestamp: String(ts) });
    }
    if (this.steps % 97 === 0) this.clob('{"event_type":"book","asset_id":');
    if (messages.length === 0) return;
    if (messages.length === 1 && this.random() < 0.5) this.clob(JSON.stringify(messages[0]));
    else this.clob(JSON.stringify(messages));
  }

  private level(mid: number, bid: boolean): string {
    const cents = bid ? mid - 1 - Math.floor(this.random() * 6) : mid + 1 + Math.floor(this.random() * 6);
    return (Math.min(99, Math.max(1, cents)) / 100).toFixed(2);
  }

  private size(): string {
    return (Math.floor(this.random() * 50000) / 100).toFixed(this.random() < 0.5 ? 2 : 1);
  }

  private bookMessage(token: string, ts: number): object {
    const b = this.books.get(token)!;
    b.mid = Math.min(90, Math.max(10, b.mid + Math.floor(this.random() * 5) - 2));
    b.bids.clear();
    b.asks.clear();
    for (let i = 0; i < 10; i++) b.bids.set(this.level(b.mid, true), this.size());
    for (let i = 0; i < 10; i++) b.asks.set(this.level(b.mid, false), this.size());
    const shuffled = (side: Side) => [...side].map(([price, size]) => ({ price, size })).sort(() => this.random() - 0.5);
    return { event_type: 'book', asset_id: token, market: b.market, bids: shuffled(b.bids), asks: shuffled(b.asks), timestamp: String(ts), hash: `0x${ts.toString(16)}` };
  }

  private priceChange(m: FeedMarket, ts: number): object {
    const changes = [];
    for (const token of this.random() < 0.5 ? [m.tokenUp, m.tokenDown] : [m.tokenUp]) {
      const b = this.books.get(token)!;
      const bid = this.random() < 0.5;
      const side = bid ? b.bids : b.asks;
      const existing = [...side.keys()];
      // A removal of a level the book has, or a new or changed level.
      const remove = existing.length > 2 && this.random() < 0.3;
      const price = remove ? existing[Math.floor(this.random() * existing.length)]! : this.level(b.mid, bid);
      const size = remove ? '0' : this.size();
      if (remove) side.delete(price);
      else side.set(price, size);
      changes.push({ asset_id: token, price, size, side: bid ? 'BUY' : 'SELL', hash: `0x${(ts + changes.length).toString(16)}`, best_bid: '0.5', best_ask: '0.52' });
    }
    return { event_type: 'price_change', market: m.conditionId, price_changes: changes, timestamp: String(ts) };
  }

  private trade(token: string, ts: number): object {
    const b = this.books.get(token)!;
    const price = (Math.min(99, Math.max(1, b.mid + Math.floor(this.random() * 7) - 3)) / 100).toFixed(2);
    return { event_type: 'last_trade_price', asset_id: token, market: b.market, price, size: this.size(), fee_rate_bps: '0', side: this.random() < 0.5 ? 'BUY' : 'SELL', timestamp: String(ts), transaction_hash: `0x${ts.toString(16)}` };
  }
}
