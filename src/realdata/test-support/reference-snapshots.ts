// An independent, deliberately plain reconstruction of msnap snapshots from PMXT rows, written from
// REALDATA.md alone: the oracle the import's output is compared with, byte for byte, as the NDJSON
// `msnap snapshots --orderbook --ndjson` prints. Plain on purpose: every tick recomputes everything
// from a state rebuilt event by event, and all price arithmetic is exact decimal (decimal-text.ts).
import {
  compareDecimal,
  decimalText,
  jsonNumberText,
  midpointDecimal,
  parseDecimal,
  roundHalfUp,
  subtractDecimal,
  type Decimal,
} from './decimal-text.js';
import type { PmxtRow } from './pmxt-fixture.js';
import type { Snapshot } from '../../domain/market.js';

/** The market to rebuild: window [start, end) in epoch ms and its two outcome tokens. */
export interface ReferenceMarket {
  /** msnap's id, `btc-updown-5m-1776081600`. */
  marketId: string;
  start: number;
  end: number;
  tokenUp: string;
  tokenDown: string;
  /** When given, rows of another market are ignored even if an asset id matched. */
  conditionId?: string;
  /** The store's row id of the market: snapshot ids are rowid × 1e8 + (time − start). Default 1. */
  marketRowid?: number;
}

/** An asset price and the first ms at which it is known (a kline's closeTime, a Chainlink timestamp). */
export interface PricePoint {
  knownAt: number;
  value: string;
}

/** A Binance kline as far as prices go: its close time (ms, or µs in newer files) and close. */
export interface KlineClose {
  closeTime: number;
  close: string;
}

/** Times at or above this are µs (a ms time passes it only in the year 5138). */
const MICROS_FROM = 1e14;

/**
 * Use to turn klines into price points: a kline is known once closed, closeTime ≤ t. A µs
 * closeTime c is ≤ t ms exactly when t ≥ ceil(c / 1000).
 */
export function klinePricePoints(klines: readonly KlineClose[]): PricePoint[] {
  return klines.map((k) => ({ knownAt: k.closeTime >= MICROS_FROM ? Math.ceil(k.closeTime / 1000) : k.closeTime, value: k.close }));
}

/** One level of a reference book, as decimal text exactly as the source wrote it. */
export interface ReferenceLevel {
  price: string;
  size: string;
}

/** Which rule gave a token's displayed price (for debugging a mismatch). */
export type DisplayRule = 'midpoint' | 'last_trade' | 'wide_midpoint' | 'one_side';

/** A reference snapshot with its values as exact decimal text (4 decimals for prices), plus why. */
export interface ReferenceSnapshot {
  id: number;
  market_id: string;
  time: number;
  price: string;
  price_up: string;
  price_down: string;
  orderbook_up: { bids: ReferenceLevel[]; asks: ReferenceLevel[] };
  orderbook_down: { bids: ReferenceLevel[]; asks: ReferenceLevel[] };
  rule_up: DisplayRule;
  rule_down: DisplayRule;
}

/** Options of referenceSnapshots. */
export interface ReferenceOptions {
  /**
   * The spans [from, to) the source covered (archive hours present); ticks outside keep no
   * snapshot, and after a gap each token needs a new `book` before snapshots resume. Default: all.
   */
  coverage?: readonly { from: number; to: number }[];
}

/** msnap keeps prices and probabilities at 4 decimals. */
const STORED_DECIMALS = 4;
/** Polymarket shows the midpoint while the spread is at most this. */
const MAX_MIDPOINT_SPREAD = parseDecimal('0.10');
const GRID_MS = 125;
const BOOK_DEPTH = 8;
const ID_STRIDE = 100_000_000;

interface TokenState {
  /** Price levels by normalised price text. */
  bids: Map<string, { price: Decimal; size: Decimal }>;
  asks: Map<string, { price: Decimal; size: Decimal }>;
  hasBook: boolean;
  lastTrade: Decimal | null;
  /** What the last tick derived from this state; cleared by every event (only a speed-up). */
  derived?: { shown: ReturnType<typeof displayed>; book: ReferenceSnapshot['orderbook_up'] };
}

function newToken(): TokenState {
  return { bids: new Map(), asks: new Map(), hasBook: false, lastTrade: null };
}

function derive(state: TokenState): NonNullable<TokenState['derived']> {
  state.derived ??= { shown: displayed(state), book: topLevels(state) };
  return state.derived;
}

function setLevel(side: TokenState['bids'], priceText: string, sizeText: string): void {
  const price = parseDecimal(priceText);
  const size = parseDecimal(sizeText);
  const key = jsonNumberText(price);
  if (size.units === 0n) side.delete(key);
  else side.set(key, { price, size });
}

function bookSide(json: string | null): [string, string][] {
  if (json === null || json === '') return [];
  return JSON.parse(json) as [string, string][];
}

function apply(state: TokenState, row: PmxtRow): void {
  state.derived = undefined;
  if (row.event_type === 'book') {
    state.bids.clear();
    state.asks.clear();
    for (const [p, s] of bookSide(row.bids)) setLevel(state.bids, p, s);
    for (const [p, s] of bookSide(row.asks)) setLevel(state.asks, p, s);
    state.hasBook = true;
  } else if (row.event_type === 'price_change') {
    if (row.price === null || row.size === null || row.side === null) return;
    setLevel(row.side === 'BUY' ? state.bids : state.asks, row.price, row.size);
  } else if (row.event_type === 'last_trade_price') {
    if (row.price !== null) state.lastTrade = parseDecimal(row.price);
  }
  // tick_size_change (and anything else) changes no level and no price.
}

/** Levels best first: bids highest price first, asks lowest first. */
function sorted(side: TokenState['bids'], bids: boolean): { price: Decimal; size: Decimal }[] {
  return [...side.values()].sort((a, b) => (bids ? compareDecimal(b.price, a.price) : compareDecimal(a.price, b.price)));
}

function displayed(state: TokenState): { value: Decimal; rule: DisplayRule } | undefined {
  const bid = sorted(state.bids, true)[0]?.price;
  const ask = sorted(state.asks, false)[0]?.price;
  if (bid && ask && compareDecimal(subtractDecimal(ask, bid), MAX_MIDPOINT_SPREAD) <= 0) return { value: midpointDecimal(bid, ask), rule: 'midpoint' };
  if (state.lastTrade) return { value: state.lastTrade, rule: 'last_trade' };
  if (bid && ask) return { value: midpointDecimal(bid, ask), rule: 'wide_midpoint' };
  const one = bid ?? ask;
  return one ? { value: one, rule: 'one_side' } : undefined;
}

function topLevels(state: TokenState): ReferenceSnapshot['orderbook_up'] {
  const text = (l: { price: Decimal; size: Decimal }): ReferenceLevel => ({ price: jsonNumberText(l.price), size: jsonNumberText(l.size) });
  return { bids: sorted(state.bids, true).slice(0, BOOK_DEPTH).map(text), asks: sorted(state.asks, false).slice(0, BOOK_DEPTH).map(text) };
}

/** Use for price_start/price_end and each tick: the latest price known at t (knownAt ≤ t), or undefined. */
export function referencePriceAt(points: readonly PricePoint[], t: number): string | undefined {
  let best: PricePoint | undefined;
  for (const p of points) if (p.knownAt <= t && (!best || p.knownAt >= best.knownAt)) best = p;
  return best && decimalText(roundHalfUp(parseDecimal(best.value), STORED_DECIMALS));
}

function spanOf(coverage: ReferenceOptions['coverage'], t: number): number | undefined {
  if (!coverage) return 0;
  const i = coverage.findIndex((s) => s.from <= t && t < s.to);
  return i < 0 ? undefined : i;
}

/**
 * Use as the oracle: the snapshots of `market` from PMXT rows (one or many hour files, concatenated
 * in file order) and asset prices. Events apply in exchange `timestamp` order, ties by
 * `timestamp_received`, then file order; the tick at t sees exactly the events with timestamp ≤ t.
 */
export function referenceSnapshots(
  rows: readonly PmxtRow[],
  market: ReferenceMarket,
  prices: readonly PricePoint[],
  options: ReferenceOptions = {},
): ReferenceSnapshot[] {
  const tokens = new Map<string, TokenState>([
    [market.tokenUp, newToken()],
    [market.tokenDown, newToken()],
  ]);
  const events = rows
    .map((row, fileOrder) => ({ row, fileOrder }))
    .filter(({ row }) => tokens.has(row.asset_id) && (market.conditionId === undefined || row.market === market.conditionId))
    .sort((a, b) => a.row.timestamp - b.row.timestamp || a.row.timestamp_received - b.row.timestamp_received || a.fileOrder - b.fileOrder)
    .map((e) => e.row);
  const up = tokens.get(market.tokenUp)!;
  const down = tokens.get(market.tokenDown)!;
  const rowid = market.marketRowid ?? 1;
  const out: ReferenceSnapshot[] = [];
  let next = 0;
  let lastSpan: number | undefined;
  for (let t = market.start; t < market.end; t += GRID_MS) {
    const span = spanOf(options.coverage, t);
    if (span !== undefined && lastSpan !== undefined && span !== lastSpan && options.coverage![lastSpan]!.to !== options.coverage![span]!.from) {
      up.hasBook = false;
      down.hasBook = false;
    }
    if (span !== undefined) lastSpan = span;
    while (next < events.length && events[next]!.timestamp <= t) {
      const row = events[next]!;
      apply(tokens.get(row.asset_id)!, row);
      next += 1;
    }
    if (span === undefined || !up.hasBook || !down.hasBook) continue;
    const price = referencePriceAt(prices, t);
    const upPrice = derive(up).shown;
    const downPrice = derive(down).shown;
    if (price === undefined || !upPrice || !downPrice) continue;
    out.push({
      id: rowid * ID_STRIDE + (t - market.start),
      market_id: market.marketId,
      time: t,
      price,
      price_up: decimalText(roundHalfUp(upPrice.value, STORED_DECIMALS)),
      price_down: decimalText(roundHalfUp(downPrice.value, STORED_DECIMALS)),
      orderbook_up: derive(up).book,
      orderbook_down: derive(down).book,
      rule_up: upPrice.rule,
      rule_down: downPrice.rule,
    });
  }
  return out;
}

function bookJson(book: ReferenceSnapshot['orderbook_up']): string {
  const levels = (ls: ReferenceLevel[]): string => ls.map((l) => `{"price":${l.price},"size":${l.size}}`).join(',');
  return `{"bids":[${levels(book.bids)}],"asks":[${levels(book.asks)}]}`;
}

/** Use to compare with `msnap snapshots <id> --orderbook --ndjson`: the snapshot's line, newline included. */
export function referenceNdjsonLine(s: ReferenceSnapshot): string {
  const num = (text: string): string => jsonNumberText(parseDecimal(text));
  return (
    `{"id":${s.id},"market_id":${JSON.stringify(s.market_id)},"time":${s.time},"price":${num(s.price)},` +
    `"price_up":${num(s.price_up)},"price_down":${num(s.price_down)},` +
    `"orderbook_up":${bookJson(s.orderbook_up)},"orderbook_down":${bookJson(s.orderbook_down)}}\n`
  );
}

/** The whole NDJSON text of a list of reference snapshots. */
export function referenceNdjson(snapshots: readonly ReferenceSnapshot[]): string {
  return snapshots.map(referenceNdjsonLine).join('');
}

/** Use to hold a reference snapshot against msnap's own records: the contract's Snapshot, numbers parsed from the exact text. */
export function toSnapshot(s: ReferenceSnapshot): Snapshot {
  const levels = (ls: ReferenceLevel[]) => ls.map((l) => ({ price: Number(l.price), size: Number(l.size) }));
  const book = (b: ReferenceSnapshot['orderbook_up']) => ({ bids: levels(b.bids), asks: levels(b.asks) });
  return {
    id: s.id,
    market_id: s.market_id,
    time: s.time,
    price: Number(s.price),
    price_up: Number(s.price_up),
    price_down: Number(s.price_down),
    orderbook_up: book(s.orderbook_up),
    orderbook_down: book(s.orderbook_down),
  };
}
