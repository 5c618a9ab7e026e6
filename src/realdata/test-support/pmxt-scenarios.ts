// Seeded, realistic PMXT event streams for markets and unrelated assets, and the cut into hour files
// the archive publishes. Every stream holds each event type, a book with an empty side, size-0
// removals, receipts out of order against exchange time, equal timestamps and events before the
// market opens, so an importer meets each of them in every scenario.
import { createHash } from 'node:crypto';
import { decimalText, jsonNumberText } from './decimal-text.js';
import { mulberry32 } from '../../random/prng.js';
import { pmxtFileName, pmxtRow, sortPmxtRows, type PmxtRow } from './pmxt-fixture.js';

/** A market to generate events for: its condition id, outcome tokens and window [start, end) in ms. */
export interface ScenarioMarket {
  conditionId: string;
  tokenUp: string;
  tokenDown: string;
  start: number;
  end: number;
}

/** Assets of some other market that share the archive file (an importer must skip them). */
export interface UnrelatedAssets {
  conditionId: string;
  assetIds: string[];
}

/** Options of generatePmxtEvents. */
export interface ScenarioOptions {
  seed: number;
  markets: readonly ScenarioMarket[];
  unrelated?: readonly UnrelatedAssets[];
  /** Exchange times of generated events lie in [from, to): default 30 s before the first start to the last end. */
  from?: number;
  to?: number;
  /** Random events per second per token (default 2). */
  eventsPerSecond?: number;
  /** Receipt lags exchange time by 1..maxLatencyMs ms (default 400), which reorders receipts. */
  maxLatencyMs?: number;
}

/** Use for stable fake ids: `0x` + 64 hex derived from a label (a condition id, a transaction hash). */
export function hexIdFor(label: string): string {
  return `0x${createHash('sha256').update(label).digest('hex')}`;
}

/** Use for stable fake token ids: a 77-digit decimal string derived from a label, as CLOB token ids look. */
export function tokenIdFor(label: string): string {
  const a = BigInt(hexIdFor(`${label}/a`));
  const b = BigInt(hexIdFor(`${label}/b`));
  return (a * b).toString().padStart(77, '1').slice(0, 77);
}

/** Use to build a market spec from a label (`btc-5m-1`): ids derived from it. */
export function scenarioMarket(label: string, start: number, end: number): ScenarioMarket {
  return { conditionId: hexIdFor(`condition/${label}`), tokenUp: tokenIdFor(`${label}/up`), tokenDown: tokenIdFor(`${label}/down`), start, end };
}

/** A token's book in ticks of 0.01 (prices) and 0.01 shares (sizes). */
interface Book {
  bids: Map<number, number>;
  asks: Map<number, number>;
}

const price = (cents: number): string => jsonNumberText({ units: BigInt(cents), scale: 2 });
const size = (hundredths: number): string => jsonNumberText({ units: BigInt(hundredths), scale: 2 });
const best = (side: Map<number, number>, bids: boolean): string | null => {
  const keys = [...side.keys()];
  return keys.length === 0 ? null : decimalText({ units: BigInt(bids ? Math.max(...keys) : Math.min(...keys)), scale: 2 });
};

class Stream {
  readonly rows: PmxtRow[] = [];
  private readonly books = new Map<string, Book>();
  private trades = 0;

  constructor(
    private readonly random: () => number,
    private readonly maxLatency: number,
  ) {}

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  private push(fields: Omit<Parameters<typeof pmxtRow>[0], 'timestamp_received'>, received?: number): void {
    this.rows.push(pmxtRow({ ...fields, timestamp_received: received ?? fields.timestamp + this.int(1, this.maxLatency) }));
  }

  private bookOf(asset: string): Book {
    let b = this.books.get(asset);
    if (!b) this.books.set(asset, (b = { bids: new Map(), asks: new Map() }));
    return b;
  }

  /** A full book around `fair` cents; `emptySide` leaves bids or asks empty. */
  book(market: string, asset: string, at: number, fair: number, emptySide?: 'bids' | 'asks', received?: number): void {
    const b = this.bookOf(asset);
    b.bids.clear();
    b.asks.clear();
    const levels = this.int(3, 12);
    for (let i = 0; i < levels; i++) {
      const bid = fair - this.int(1, 15);
      const ask = fair + this.int(1, 15);
      if (emptySide !== 'bids' && bid >= 1) b.bids.set(bid, this.int(100, 500_000));
      if (emptySide !== 'asks' && ask <= 99) b.asks.set(ask, this.int(100, 500_000));
    }
    // Published book text lists levels as the exchange sent them: not necessarily sorted.
    const text = (side: Map<number, number>) => JSON.stringify([...side].map(([p, s]) => [price(p), size(s)]));
    this.push({ timestamp: at, market, event_type: 'book', asset_id: asset, bids: text(b.bids), asks: text(b.asks) }, received);
  }

  /** One level set (or removed with size 0), with the best prices after it as the exchange reports them. */
  change(market: string, asset: string, at: number, side: 'BUY' | 'SELL', cents: number, hundredths: number, received?: number): void {
    const b = this.bookOf(asset);
    const levels = side === 'BUY' ? b.bids : b.asks;
    if (hundredths === 0) levels.delete(cents);
    else levels.set(cents, hundredths);
    this.push(
      {
        timestamp: at,
        market,
        event_type: 'price_change',
        asset_id: asset,
        price: price(cents),
        size: size(hundredths),
        side,
        best_bid: best(b.bids, true),
        best_ask: best(b.asks, false),
      },
      received,
    );
  }

  /** A random change near the token's book: a new level, a resize, or a removal of an existing one. */
  randomChange(market: string, asset: string, at: number, fair: number): void {
    const side = this.random() < 0.5 ? 'BUY' : 'SELL';
    const levels = [...this.bookOf(asset)[side === 'BUY' ? 'bids' : 'asks'].keys()];
    if (levels.length > 0 && this.random() < 0.3) {
      this.change(market, asset, at, side, levels[this.int(0, levels.length - 1)]!, 0);
      return;
    }
    const cents = side === 'BUY' ? Math.max(1, fair - this.int(1, 12)) : Math.min(99, fair + this.int(1, 12));
    this.change(market, asset, at, side, cents, this.int(100, 500_000));
  }

  trade(market: string, asset: string, at: number, cents: number): void {
    this.trades += 1;
    this.push({
      timestamp: at,
      market,
      event_type: 'last_trade_price',
      asset_id: asset,
      price: price(cents),
      size: size(this.int(100, 200_000)),
      side: this.random() < 0.5 ? 'BUY' : 'SELL',
      fee_rate_bps: this.random() < 0.5 ? 0 : 1000,
      transaction_hash: hexIdFor(`trade/${asset}/${at}/${this.trades}`),
    });
  }

  tickSize(market: string, asset: string, at: number): void {
    this.push({ timestamp: at, market, event_type: 'tick_size_change', asset_id: asset, old_tick_size: '0.01', new_tick_size: '0.001' });
  }
}

/** The fair probability of Up in cents (2..98), a seeded walk over time. */
function fairWalk(random: () => number): () => number {
  let fair = 50;
  return () => {
    fair = Math.min(98, Math.max(2, fair + Math.round((random() - 0.5) * 4)));
    return fair;
  };
}

/**
 * Use to get a realistic stream for markets plus unrelated assets, in receipt order. Each market
 * gets: books for both tokens 20 s before it opens, a book with an empty ask side 10% in, a
 * tick_size_change 30% in, two changes with equal timestamps 40% in (and two with equal timestamp
 * and receipt), then random changes (30% removals), trades and re-books at `eventsPerSecond`.
 */
export function generatePmxtEvents(options: ScenarioOptions): PmxtRow[] {
  const random = mulberry32(options.seed);
  const s = new Stream(random, options.maxLatencyMs ?? 400);
  const from = options.from ?? Math.min(...options.markets.map((m) => m.start)) - 30_000;
  const to = options.to ?? Math.max(...options.markets.map((m) => m.end));
  const perSecond = options.eventsPerSecond ?? 2;
  // Actions are planned first and run in exchange-time order, so each book evolves as the
  // exchange's did and best_bid/best_ask and removals refer to the book of that moment.
  const plan: { at: number; run: () => void }[] = [];
  const add = (at: number, run: () => void) => plan.push({ at, run });
  for (const m of options.markets) {
    const walk = fairWalk(random);
    let fair = 50;
    const share = (x: number) => m.start + Math.floor((m.end - m.start) * x);
    const openAt = Math.max(from, m.start - 20_000);
    add(openAt, () => s.book(m.conditionId, m.tokenUp, openAt, (fair = walk())));
    add(openAt + 3, () => s.book(m.conditionId, m.tokenDown, openAt + 3, 100 - fair));
    add(share(0.1), () => s.book(m.conditionId, m.tokenUp, share(0.1), fair, 'asks'));
    add(share(0.3), () => s.tickSize(m.conditionId, m.tokenDown, share(0.3)));
    const tie = share(0.4);
    add(tie, () => {
      s.change(m.conditionId, m.tokenUp, tie, 'BUY', Math.max(1, fair - 2), 1500, tie + 90);
      s.change(m.conditionId, m.tokenUp, tie, 'BUY', Math.max(1, fair - 2), 2500, tie + 40);
      s.change(m.conditionId, m.tokenDown, tie, 'SELL', Math.min(99, 100 - fair + 2), 700, tie + 60);
      s.change(m.conditionId, m.tokenDown, tie, 'SELL', Math.min(99, 100 - fair + 2), 900, tie + 60);
    });
    const count = Math.floor(((to - openAt) / 1000) * perSecond * 2);
    for (let i = 0; i < count; i++) {
      const t = openAt + s.int(10, to - openAt - 1);
      const up = random() < 0.5;
      const kind = random();
      add(t, () => {
        fair = walk();
        const f = up ? fair : 100 - fair;
        const asset = up ? m.tokenUp : m.tokenDown;
        if (kind < 0.8) s.randomChange(m.conditionId, asset, t, f);
        else if (kind < 0.95) s.trade(m.conditionId, asset, t, Math.min(99, Math.max(1, f + s.int(-1, 1))));
        else s.book(m.conditionId, asset, t, f);
      });
    }
  }
  for (const u of options.unrelated ?? []) {
    for (const asset of u.assetIds) {
      add(from, () => s.book(u.conditionId, asset, from, 50));
      const count = Math.floor(((to - from) / 1000) * perSecond);
      for (let i = 0; i < count; i++) {
        const t = from + s.int(1, to - from - 1);
        const change = random() < 0.85;
        add(t, () => (change ? s.randomChange(u.conditionId, asset, t, 50) : s.trade(u.conditionId, asset, t, s.int(40, 60))));
      }
    }
  }
  plan.sort((a, b) => a.at - b.at);
  for (const step of plan) step.run();
  return orderAsReceived(s.rows);
}

function orderAsReceived(rows: PmxtRow[]): PmxtRow[] {
  return rows.map((r, i) => ({ r, i })).sort((a, b) => a.r.timestamp_received - b.r.timestamp_received || a.i - b.i).map((x) => x.r);
}

/** One archive hour file: its UTC hour start, published name and rows in published order. */
export interface PmxtHourFile {
  hour: number;
  name: string;
  rows: PmxtRow[];
}

const HOUR_MS = 3_600_000;

/** Use to cut a stream as PMXT does: by the UTC hour of timestamp_received, each file sorted by market, asset_id, timestamp_received. */
export function splitIntoHourFiles(rows: readonly PmxtRow[]): PmxtHourFile[] {
  const byHour = new Map<number, PmxtRow[]>();
  for (const r of rows) {
    const hour = Math.floor(r.timestamp_received / HOUR_MS) * HOUR_MS;
    let list = byHour.get(hour);
    if (!list) byHour.set(hour, (list = []));
    list.push(r);
  }
  return [...byHour.keys()].sort((a, b) => a - b).map((hour) => ({ hour, name: pmxtFileName(hour), rows: sortPmxtRows(byHour.get(hour)!) }));
}

/** A scenario market with msnap's names for it. */
export interface NamedScenarioMarket extends ScenarioMarket {
  /** msnap's market id, also the Polymarket slug for 5m/15m/4h. */
  marketId: string;
  coin: 'BTC' | 'ETH' | 'SOL';
  marketType: '5m' | '15m' | '1hr' | '4hr' | '24hr';
}

/** A generated scenario: its markets, unrelated assets, the stream and its hour files. */
export interface PmxtScenario {
  markets: NamedScenarioMarket[];
  unrelated: UnrelatedAssets[];
  rows: PmxtRow[];
  files: PmxtHourFile[];
}

/** 2026-04-13T12:00:00Z, an hour inside the archive's span. */
export const DONE_WHEN_HOUR = Date.UTC(2026, 3, 13, 12);

function named(coin: NamedScenarioMarket['coin'], marketType: '5m' | '15m', start: number): NamedScenarioMarket {
  const minutes = marketType === '5m' ? 5 : 15;
  const marketId = `${coin.toLowerCase()}-updown-${marketType}-${start / 1000}`;
  return { ...scenarioMarket(marketId, start, start + minutes * 60_000), marketId, coin, marketType };
}

function unrelatedAssets(seed: number): UnrelatedAssets[] {
  return [0, 1].map((i) => ({ conditionId: hexIdFor(`unrelated/${seed}/${i}`), assetIds: [tokenIdFor(`unrelated/${seed}/${i}/yes`), tokenIdFor(`unrelated/${seed}/${i}/no`)] }));
}

/**
 * The done-when fixture: one archive hour (DONE_WHEN_HOUR) holding two BTC 5m markets (12:10, 12:15),
 * one ETH 15m market (12:15) and two unrelated markets; every event is received inside the hour.
 */
export function doneWhenHour(seed = 1): PmxtScenario {
  const h = DONE_WHEN_HOUR;
  const markets = [named('BTC', '5m', h + 10 * 60_000), named('BTC', '5m', h + 15 * 60_000), named('ETH', '15m', h + 15 * 60_000)];
  const unrelated = unrelatedAssets(seed);
  const rows = generatePmxtEvents({ seed, markets, unrelated, from: h + 9 * 60_000, to: h + 30 * 60_000 + 5_000 });
  return { markets, unrelated, rows, files: splitIntoHourFiles(rows) };
}

/**
 * Two archive hours: a BTC 5m market closing at the hour (11:55-12:00, late receipts land in the
 * 12:00 file) and one opening at it (12:00-12:05, its pre-open books in the 11:00 file).
 */
export function twoHourScenario(seed = 2): PmxtScenario {
  const h = DONE_WHEN_HOUR;
  const markets = [named('BTC', '5m', h - 5 * 60_000), named('BTC', '5m', h)];
  const unrelated = unrelatedAssets(seed);
  const rows = generatePmxtEvents({ seed, markets, unrelated, maxLatencyMs: 1500 });
  return { markets, unrelated, rows, files: splitIntoHourFiles(rows) };
}
