// The frames of GET /v1/stream (shared/BOTS.md "Live stream"): what a client may send, checked, and
// the server's frames, encoded once as strings that every subscriber's socket shares.
import { COINS, MARKET_TYPES, parseCoin, parseMarketType, type Coin, type MarketType } from '../domain/market.js';

/** Close codes of the stream beyond the standard ones (1000 normal, 1001 going away, 1009 too big). */
export const CLOSE = {
  /** The key was revoked or expired while the stream was open. */
  policy: 1008,
  /** No frame from the client for the idle time (msnap decision). */
  idle: 4000,
  /** More frames waiting to be written to the client than the server keeps. */
  tooSlow: 4002,
  /** The key already holds as many open streams as its plan allows. */
  tooManyStreams: 4008,
  /** The store of stream slots (Redis) is unreachable: the stream could not be counted. */
  tryAgainLater: 1013,
} as const;

/** The error codes of `{"type":"error"}` frames (the stream stays open after each). */
export type StreamErrorCode = 'invalid_json' | 'invalid_frame' | 'unknown_type' | 'invalid_coin' | 'invalid_market_type';

/** What a client subscribed to; omitted lists were expanded to everything. */
export interface Subscription {
  coins: readonly Coin[];
  marketTypes: readonly MarketType[];
  orderbook: boolean;
}

/** A frame the client sent, read: a subscription, a keep-alive, or the error frame to answer. */
export type ClientFrame = { kind: 'subscribe'; subscription: Subscription } | { kind: 'keepalive' } | { kind: 'error'; frame: string };

/** Use on every text frame a client sends. */
export function readClientFrame(text: string): ClientFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail('invalid_json', 'The frame is not JSON; send {"type":"subscribe",...}.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail('invalid_frame', 'A frame is a JSON object with a "type".');
  const o = value as Record<string, unknown>;
  // Keep-alives: the answer to our ping, or the client's own.
  if (o.type === 'pong' || o.type === 'ping') return { kind: 'keepalive' };
  if (o.type !== 'subscribe') {
    return fail('unknown_type', `Unknown frame type ${JSON.stringify(String(o.type)).slice(0, 60)}; the client sends "subscribe" (or "pong").`);
  }
  const coins = readList(o.coins, 'coins', COINS, parseCoin);
  if (typeof coins === 'string') return fail('invalid_coin', coins);
  const types = readList(o.market_types, 'market_types', MARKET_TYPES, parseMarketType);
  if (typeof types === 'string') return fail('invalid_market_type', types);
  if (o.orderbook !== undefined && typeof o.orderbook !== 'boolean') return fail('invalid_frame', '"orderbook" must be true or false.');
  return { kind: 'subscribe', subscription: { coins, marketTypes: types, orderbook: o.orderbook === true } };
}

/**
 * An omitted list is every value; otherwise each entry must parse (duplicates are dropped, order
 * is the domain's). An empty list would subscribe to nothing without a word: it is refused.
 */
function readList<T extends string>(raw: unknown, name: string, all: readonly T[], parse: (s: string) => T | undefined): readonly T[] | string {
  if (raw === undefined || raw === null) return all;
  if (!Array.isArray(raw)) return `"${name}" must be a list, e.g. ["${all[0]}"]; omit it for all.`;
  if (raw.length === 0) return `"${name}" is empty: it would subscribe to nothing; name at least one (e.g. ["${all[0]}"]) or omit it for all. The subscription is unchanged.`;
  const picked = new Set<T>();
  for (const entry of raw as unknown[]) {
    const value = typeof entry === 'string' ? parse(entry) : undefined;
    if (!value) return `Unknown ${name} entry ${JSON.stringify(entry)?.slice(0, 40)}; one of ${all.join(', ')}.`;
    picked.add(value);
  }
  return all.filter((v) => picked.has(v));
}

function fail(code: StreamErrorCode, message: string): ClientFrame {
  return { kind: 'error', frame: errorFrame(code, message) };
}

/** `{"type":"error","code":C,"message":S}`. */
export function errorFrame(code: StreamErrorCode, message: string): string {
  return JSON.stringify({ type: 'error', code, message });
}

/** The answer to a subscribe: what the subscription now is, lists spelled out. */
export function subscribedFrame(s: Subscription): string {
  return JSON.stringify({ type: 'subscribed', coins: s.coins, market_types: s.marketTypes, orderbook: s.orderbook });
}

export const PING_FRAME = '{"type":"ping"}';
export const END_FRAME = '{"type":"end"}';
