// The market domain shared by server and client: coins, market types, ids, records.
import type { FeeSchedule } from './fee-schedule.js';

/** Coins the service serves; use to validate a `coin` value after upper-casing it. */
export const COINS = ['BTC', 'ETH', 'SOL'] as const;
/** Coins announced but not available: a distinct, friendlier error than "unknown". */
const COMING_SOON_COINS = ['XRP', 'DOGE', 'BNB'] as const;
/** Market timeframes, shortest first. */
export const MARKET_TYPES = ['5m', '15m', '1hr', '4hr', '24hr'] as const;
/** Market states: `active` while now is inside [start_time, end_time). */
export const MARKET_STATUSES = ['active', 'resolved'] as const;

export type Coin = (typeof COINS)[number];
export type MarketType = (typeof MARKET_TYPES)[number];
export type MarketStatus = (typeof MARKET_STATUSES)[number];

/** Snapshots are captured 8 times a second. */
export const SNAPSHOT_INTERVAL_MS = 125;

/** Length of one market of each type, in milliseconds. */
export const MARKET_DURATION_MS: Record<MarketType, number> = {
  '5m': 5 * 60_000,
  '15m': 15 * 60_000,
  '1hr': 60 * 60_000,
  '4hr': 4 * 60 * 60_000,
  '24hr': 24 * 60 * 60_000,
};

/** Use to normalise a user- or query-supplied coin; undefined when not a served coin. */
export function parseCoin(value: string): Coin | undefined {
  const upper = value.toUpperCase();
  return (COINS as readonly string[]).includes(upper) ? (upper as Coin) : undefined;
}

/** True for a coin that is announced but not yet served (XRP, DOGE, BNB). */
export function isComingSoonCoin(value: string): boolean {
  return (COMING_SOON_COINS as readonly string[]).includes(value.toUpperCase());
}

/** Use to read a user- or query-supplied coin: the coin, or why it is refused (the caller words the message). */
export function checkCoin(value: string): { coin: Coin } | { refused: 'coming-soon' | 'unknown' } {
  const coin = parseCoin(value);
  if (coin) return { coin };
  return { refused: isComingSoonCoin(value) ? 'coming-soon' : 'unknown' };
}

/** Use to validate a market status (case-insensitive: `RESOLVED` = `resolved`). */
export function parseMarketStatus(value: string): MarketStatus | undefined {
  const lower = value.toLowerCase();
  return (MARKET_STATUSES as readonly string[]).includes(lower) ? (lower as MarketStatus) : undefined;
}

/** The hosted service's short spellings of the hour and day types (v4 answers with them). */
export const SHORT_MARKET_TYPES: Readonly<Record<MarketType, string>> = {
  '5m': '5m',
  '15m': '15m',
  '1hr': '1h',
  '4hr': '4h',
  '24hr': '24h',
};

const TYPE_ALIASES: Readonly<Record<string, MarketType>> = { '1h': '1hr', '4h': '4hr', '24h': '24hr' };

/** Use to validate a market type (case-insensitive: `1HR` = `1hr`; `1h`, `4h`, `24h` are aliases). */
export function parseMarketType(value: string): MarketType | undefined {
  const lower = value.toLowerCase();
  if ((MARKET_TYPES as readonly string[]).includes(lower)) return lower as MarketType;
  return TYPE_ALIASES[lower];
}

/** The id of the market of `coin` and `type` starting at `startMs`: `btc-updown-5m-1763769600`. */
export function marketId(coin: Coin, type: MarketType, startMs: number): string {
  return `${coin.toLowerCase()}-updown-${type}-${Math.floor(startMs / 1000)}`;
}

/** Use to read coin, type and start back out of a market id; undefined when it is not one. */
export function parseMarketId(id: string): { coin: Coin; marketType: MarketType; startTime: number } | undefined {
  const m = /^([a-z]+)-updown-(5m|15m|1hr|4hr|24hr)-(\d{1,12})$/.exec(id);
  if (!m) return undefined;
  const coin = parseCoin(m[1]!);
  if (!coin) return undefined;
  return { coin, marketType: m[2] as MarketType, startTime: Number(m[3]) * 1000 };
}

/** The start of the market of `type` that covers `timeMs` (markets start on multiples of their length). */
export function marketStartCovering(type: MarketType, timeMs: number): number {
  const d = MARKET_DURATION_MS[type];
  return Math.floor(timeMs / d) * d;
}

/** A market record as the contract defines it. */
export interface Market {
  market_id: string;
  slug: string;
  coin: Coin;
  market_type: MarketType;
  status: MarketStatus;
  start_time: number;
  end_time: number;
  price_start: number | null;
  price_end: number | null;
  winner: 'Up' | 'Down' | null;
  snapshot_count: number;
  /** The stored fee schedule (imported markets); absent: the era's (src/backtest/fee-model.ts). Never printed by the API. */
  fee_schedule?: FeeSchedule;
}

/** Use to hand a market on with the contract's fields only (as `msnap markets --json` prints it), whatever its source added. */
export function contractMarket(m: Market): Market {
  const { market_id, slug, coin, market_type, status, start_time, end_time, price_start, price_end, winner, snapshot_count } = m;
  return { market_id, slug, coin, market_type, status, start_time, end_time, price_start, price_end, winner, snapshot_count };
}

/**
 * The hosted service's descriptive market fields: an import's value, else null (seed fills them).
 * Times are epoch ms here; a dialect prints them its way.
 */
export interface MarketDetails {
  event_id: string | null;
  condition_id: string | null;
  clob_token_up: string | null;
  clob_token_down: string | null;
  final_volume: number | null;
  final_liquidity: number | null;
  resolved_at: number | null;
  created_at: number | null;
  updated_at: number | null;
}

/** The descriptive fields in the order every dialect prints them. */
export const MARKET_DETAIL_FIELDS = [
  'event_id',
  'condition_id',
  'clob_token_up',
  'clob_token_down',
  'final_volume',
  'final_liquidity',
  'resolved_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof MarketDetails)[];

/** Details all unknown: what a market without imported or seeded details carries. */
export const NO_DETAILS: Readonly<MarketDetails> = Object.freeze({
  event_id: null,
  condition_id: null,
  clob_token_up: null,
  clob_token_down: null,
  final_volume: null,
  final_liquidity: null,
  resolved_at: null,
  created_at: null,
  updated_at: null,
});

/** A market as the server's store holds it: the contract's record plus the descriptive fields. */
export type ServedMarket = Market & MarketDetails;

/** One price level of an orderbook. */
export interface OrderbookLevel {
  price: number;
  size: number;
}

/** One side of an orderbook: levels best first (bids highest, asks lowest), up to 8. */
export interface OrderbookSide {
  bids: OrderbookLevel[];
  asks: OrderbookLevel[];
}

/** A snapshot record as the contract defines it; orderbooks only with include_orderbook. */
export interface Snapshot {
  id: number;
  market_id: string;
  time: number;
  price: number;
  price_up: number;
  price_down: number;
  orderbook_up?: OrderbookSide;
  orderbook_down?: OrderbookSide;
}
