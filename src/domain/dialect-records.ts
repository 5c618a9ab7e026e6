// Market and snapshot records as each API version (dialect) of the hosted service spells them.
// The server prints with these; a client reading /v2 or /v4 maps back with the same names.
import {
  SHORT_MARKET_TYPES,
  type Coin,
  type MarketType,
  type OrderbookSide,
  type ServedMarket,
  type Snapshot,
} from './market.js';

/** The API versions msnap serve answers: /v2 is v2, /v4 is v4, any other path v1. */
export type DialectName = 'v1' | 'v2' | 'v4';

/** How a dialect prints times: epoch ms (v1, v4) or ISO 8601 UTC with milliseconds (v2). */
export type TimeStyle = 'ms' | 'iso';

/** The time style of each dialect. */
const DIALECT_TIMES: Readonly<Record<DialectName, TimeStyle>> = { v1: 'ms', v2: 'iso', v4: 'ms' };

/** `btc_price`, `eth_price_start`, ...: the coin-prefixed price fields of v2 and v4 (and v1's extras). */
export function coinPriceKey(coin: Coin, suffix: '' | '_start' | '_end' = ''): string {
  return `${coin.toLowerCase()}_price${suffix}`;
}

/** The market type as a dialect prints it: v4 `1h`/`4h`/`24h`, the others `1hr`/`4hr`/`24hr`. */
function dialectMarketType(dialect: DialectName, type: MarketType): string {
  return dialect === 'v4' ? SHORT_MARKET_TYPES[type] : type;
}

/** Use to print an epoch-ms time in a dialect's style (null stays null). */
export function dialectTime(style: TimeStyle, ms: number | null): number | string | null {
  if (ms === null) return null;
  return style === 'ms' ? ms : new Date(ms).toISOString();
}

/** The v4 error `code`s msnap serve sends (DATABASE_UNAVAILABLE only on a scaled-out serve whose PostgreSQL or Redis is down); the hosted service also sends HISTORY_LIMIT_EXCEEDED, COIN_NOT_IN_PLAN, ENDPOINT_NOT_IN_PLAN (403) and UPSTREAM_UNAVAILABLE (502). */
export type V4ErrorCode =
  | 'INVALID_PARAMETER'
  | 'INVALID_COIN'
  | 'INVALID_TIMESTAMP'
  | 'AUTH_MISSING'
  | 'AUTH_INVALID'
  | 'AUTH_EXPIRED'
  | 'RATE_LIMIT_BURST'
  | 'RATE_LIMIT_SUSTAINED'
  | 'ENDPOINT_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'MARKET_NOT_FOUND'
  | 'SNAPSHOT_NOT_FOUND'
  | 'PLAN_UPGRADE_REQUIRED'
  | 'DATABASE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

/** v4's list envelope fields (beside `markets`, or `market` and `snapshots`). */
export interface V4Page {
  /** Null when asked with include_total=false. */
  total: number | null;
  limit: number;
  offset: number;
  count: number;
  has_more: boolean;
  next_offset: number | null;
  warning: string | null;
}

/** A v4 market record (v2 is the same with ISO times and long market types). */
export interface V4Market {
  market_id: string;
  slug: string;
  market_type: string;
  start_time: number;
  end_time: number;
  winner: 'Up' | 'Down' | null;
  /** Also `{coin}_price_start` / `{coin}_price_end` for the market's coin, e.g. `btc_price_start`. */
  [field: string]: unknown;
}

/** A v4 snapshot record: `{coin}_price` (e.g. `btc_price`) instead of `price`, times in ms. */
export interface V4Snapshot {
  id: number;
  market_id: string;
  time: number;
  price_up: number;
  price_down: number;
  orderbook_up?: OrderbookSide;
  orderbook_down?: OrderbookSide;
  [coinPrice: string]: unknown;
}

// Written out field by field (not a loop over MARKET_DETAIL_FIELDS): a list of 100 markets is
// stringified on every markets request, and objects built by literal stringify fastest.
/** Use to print a market in `dialect`: v1 is the contract's record plus the coin prices and details. */
export function dialectMarket(dialect: DialectName, m: ServedMarket): Record<string, unknown> {
  const c = m.coin === 'BTC' ? 'btc' : m.coin === 'ETH' ? 'eth' : m.coin.toLowerCase();
  if (dialect === 'v1') {
    return {
      market_id: m.market_id,
      slug: m.slug,
      coin: m.coin,
      market_type: m.market_type,
      status: m.status,
      start_time: m.start_time,
      end_time: m.end_time,
      price_start: m.price_start,
      price_end: m.price_end,
      winner: m.winner,
      snapshot_count: m.snapshot_count,
      [`${c}_price_start`]: m.price_start,
      [`${c}_price_end`]: m.price_end,
      event_id: m.event_id,
      condition_id: m.condition_id,
      clob_token_up: m.clob_token_up,
      clob_token_down: m.clob_token_down,
      final_volume: m.final_volume,
      final_liquidity: m.final_liquidity,
      resolved_at: m.resolved_at,
      created_at: m.created_at,
      updated_at: m.updated_at,
    };
  }
  const style = DIALECT_TIMES[dialect];
  return {
    market_id: m.market_id,
    slug: m.slug,
    market_type: dialectMarketType(dialect, m.market_type),
    start_time: dialectTime(style, m.start_time),
    end_time: dialectTime(style, m.end_time),
    [`${c}_price_start`]: m.price_start,
    [`${c}_price_end`]: m.price_end,
    winner: m.winner,
    event_id: m.event_id,
    condition_id: m.condition_id,
    clob_token_up: m.clob_token_up,
    clob_token_down: m.clob_token_down,
    final_volume: m.final_volume,
    final_liquidity: m.final_liquidity,
    resolved_at: dialectTime(style, m.resolved_at),
    created_at: dialectTime(style, m.created_at),
    updated_at: dialectTime(style, m.updated_at),
  };
}

/** Use to print one snapshot object in `dialect` (pages are printed by the store, in the same shape). */
export function dialectSnapshot(dialect: DialectName, s: Snapshot, coin: Coin): Record<string, unknown> {
  if (dialect === 'v1') return { ...s };
  const out: Record<string, unknown> = {
    id: s.id,
    market_id: s.market_id,
    time: dialectTime(DIALECT_TIMES[dialect], s.time),
    [coinPriceKey(coin)]: s.price,
    price_up: s.price_up,
    price_down: s.price_down,
  };
  if (s.orderbook_up) out.orderbook_up = s.orderbook_up;
  if (s.orderbook_down) out.orderbook_down = s.orderbook_down;
  return out;
}

/**
 * Use on a v2 or v4 market record fetched with `coin`: the same record with the contract's
 * names added (`coin`, `price_start`, `price_end` from `{coin}_price_start`/`_end`), ready for the
 * client's normaliser (which reads ISO or ms times and `1h` as `1hr`).
 */
export function contractNamesOfMarket(raw: Record<string, unknown>, coin: Coin): Record<string, unknown> {
  return {
    ...raw,
    coin: raw.coin ?? coin,
    price_start: raw.price_start ?? raw[coinPriceKey(coin, '_start')] ?? null,
    price_end: raw.price_end ?? raw[coinPriceKey(coin, '_end')] ?? null,
  };
}

/** Use on a v2 or v4 snapshot record fetched with `coin`: `price` from `{coin}_price` added. */
export function contractNamesOfSnapshot(raw: Record<string, unknown>, coin: Coin): Record<string, unknown> {
  return raw.price !== undefined ? raw : { ...raw, price: raw[coinPriceKey(coin)] };
}
