// What a recording is told to record and where Polymarket is: COIN:TYPE pairs and the three source
// URLs (flag or option, else its MSNAP_* variable, else Polymarket's). `msnap record`, `serve
// --record` and the library's startServer all read them here, so they take the same values.
import { coinArg, marketTypeArg } from '../domain/arguments.js';
import type { Coin, MarketType } from '../domain/market.js';
import { UsageError } from '../errors.js';

/** Polymarket's public Gamma API. */
export const DEFAULT_GAMMA_URL = 'https://gamma-api.polymarket.com';
/** Polymarket's CLOB market channel. */
export const DEFAULT_CLOB_WS_URL = 'wss://ws-subscriptions-clob.polymarket.com/ws/market';
/** Polymarket's real-time data socket (Chainlink prices). */
export const DEFAULT_RTDS_URL = 'wss://ws-live-data.polymarket.com';

/** A coin and market type to record. */
export interface RecordPair {
  coin: Coin;
  type: MarketType;
}

/** The recorder's sources. */
export interface RecordUrls {
  clobUrl: string;
  rtdsUrl: string;
  gammaUrl: string;
}

/** Use for the recorder's sources (record, serve --record, startServer): each URL as given, else its MSNAP_* variable, else Polymarket's. */
export function recordUrls(given: { clobUrl?: string; rtdsUrl?: string; gammaUrl?: string }, env: NodeJS.ProcessEnv): RecordUrls {
  return {
    clobUrl: given.clobUrl ?? env.MSNAP_CLOB_WS_URL ?? DEFAULT_CLOB_WS_URL,
    rtdsUrl: given.rtdsUrl ?? env.MSNAP_RTDS_URL ?? DEFAULT_RTDS_URL,
    gammaUrl: given.gammaUrl ?? env.MSNAP_GAMMA_URL ?? DEFAULT_GAMMA_URL,
  };
}

/** Use for serve --record's list, `BTC:5m,ETH:15m`: COIN:TYPE pairs, comma-separated (repeats count once). */
export function parseRecordPairs(text: string): RecordPair[] {
  return recordPairs(text.split(','), '--record');
}

/** Use for a list of COIN:TYPE texts (`what` names it in the UsageError: a flag, an option). */
export function recordPairs(items: readonly unknown[], what: string): RecordPair[] {
  const pairs: RecordPair[] = [];
  for (const item of items) {
    const m = typeof item === 'string' ? /^([^:\s]+):([^:\s]+)$/.exec(item.trim()) : null;
    if (!m) throw new UsageError(`${what} takes COIN:TYPE pairs, comma-separated, like BTC:5m,ETH:15m; got "${String(item).trim().slice(0, 40)}"`);
    addRecordPair(pairs, m[1]!, m[2]!);
  }
  return pairs;
}

/** Use to add a checked COIN and TYPE to `pairs` unless already there (a UsageError when either is unknown). */
export function addRecordPair(pairs: RecordPair[], coin: string, type: string): void {
  const pair = { coin: coinArg(coin), type: marketTypeArg(type) };
  if (!pairs.some((p) => p.coin === pair.coin && p.type === pair.type)) pairs.push(pair);
}
