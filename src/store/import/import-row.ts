// Turns one imported record (an NDJSON object or a CSV row keyed by its header) into a market or a
// snapshot, accepting the hosted service's variants: numeric strings, ISO 8601 times, btc_* aliases.
import type { MarketWrite } from '../core/write-records.js';
import {
  COINS,
  MARKET_DURATION_MS,
  parseCoin,
  parseMarketId,
  parseMarketType,
  type MarketDetails,
  type OrderbookLevel,
} from '../../domain/market.js';

/** A market line, with coin/type/start filled from the id when the record omits them. */
export interface ImportedMarket extends MarketWrite {
  kind: 'market';
}

/** A snapshot line; orderbooks already normalised to the JSON text the store serves. */
export interface ImportedSnapshot {
  kind: 'snapshot';
  /** The source's snapshot id, kept by the store; null when the record has none. */
  id: number | null;
  marketId: string;
  time: number;
  price: number;
  priceUp: number;
  priceDown: number;
  orderbookUp: string | null;
  orderbookDown: string | null;
}

/** Thrown for a record that cannot be imported; the importer adds the line number. */
export class RowError extends Error {}

// Each coin's prefixed prices (btc_price, eth_price_start, ...) as v2 and v4 exports spell them.
const ALIASES: Record<string, string> = Object.fromEntries(
  COINS.flatMap((c) => ['', '_start', '_end'].map((suffix) => [`${c.toLowerCase()}_price${suffix}`, `price${suffix}`])),
);

const ALIAS_ENTRIES = Object.entries(ALIASES);

/** Use on a parsed JSON record: copies `btc_price`, `eth_price_start`, ... to the contract's name when that is absent. */
export function aliasCoinPrices(rec: Record<string, unknown>): void {
  for (const [alias, name] of ALIAS_ENTRIES) {
    if (rec[name] === undefined && rec[alias] !== undefined) rec[name] = rec[alias];
  }
}

/** Use to map a header or key to its contract name (btc_price -> price, eth_price_start -> price_start, ...). */
export function canonicalField(name: string): string {
  const lower = name.trim().toLowerCase();
  return ALIASES[lower] ?? lower;
}

/** Use on a record whose keys are already canonical; decides market vs snapshot by its fields. */
export function parseImportRecord(rec: Record<string, unknown>): ImportedMarket | ImportedSnapshot {
  if (present(rec.time)) return parseSnapshot(rec);
  if (present(rec.start_time) || present(rec.market_type) || present(rec.winner) || present(rec.end_time)) {
    return parseMarket(rec);
  }
  throw new RowError('neither a snapshot (no "time") nor a market (no "start_time")');
}

function parseSnapshot(rec: Record<string, unknown>): ImportedSnapshot {
  const marketId = requireString(rec, 'market_id');
  const priceUp = probability(rec, 'price_up');
  const priceDown = probability(rec, 'price_down');
  const price = requireNumber(rec, 'price');
  if (!(price > 0)) throw new RowError(`"price" must be positive, got ${show(rec.price)}`);
  let id: number | null = null;
  if (present(rec.id)) {
    const n = toNumber(rec.id);
    if (n === undefined || !Number.isSafeInteger(n)) throw new RowError(`"id" must be an integer, got ${show(rec.id)}`);
    id = n;
  }
  return {
    kind: 'snapshot',
    id,
    marketId,
    time: timeField(rec, 'time'),
    price,
    priceUp,
    priceDown,
    orderbookUp: orderbook(rec, 'orderbook_up'),
    orderbookDown: orderbook(rec, 'orderbook_down'),
  };
}

function parseMarket(rec: Record<string, unknown>): ImportedMarket {
  const marketId = requireString(rec, 'market_id');
  const parsed = parseMarketId(marketId);
  if (!parsed) throw new RowError(`"market_id" ${show(marketId)} is not <coin>-updown-<type>-<start seconds>`);
  const coin = present(rec.coin) ? parseCoin(String(rec.coin)) : parsed.coin;
  if (coin !== parsed.coin) throw new RowError(`"coin" ${show(rec.coin)} does not match market_id ${marketId}`);
  const marketType = present(rec.market_type) ? parseMarketType(String(rec.market_type)) : parsed.marketType;
  if (marketType !== parsed.marketType) {
    throw new RowError(`"market_type" ${show(rec.market_type)} does not match market_id ${marketId}`);
  }
  const startTime = present(rec.start_time) ? timeField(rec, 'start_time') : parsed.startTime;
  if (startTime !== parsed.startTime) throw new RowError(`"start_time" ${startTime} does not match market_id ${marketId}`);
  const endTime = present(rec.end_time) ? timeField(rec, 'end_time') : startTime + MARKET_DURATION_MS[marketType];
  if (endTime !== startTime + MARKET_DURATION_MS[marketType]) {
    throw new RowError(`"end_time" ${endTime} is not start_time + ${marketType}`);
  }
  const priceStart = optionalNumber(rec, 'price_start');
  const priceEnd = optionalNumber(rec, 'price_end');
  let winner: ImportedMarket['winner'] = null;
  if (present(rec.winner)) {
    const w = String(rec.winner).toLowerCase();
    if (w !== 'up' && w !== 'down') throw new RowError(`"winner" must be Up, Down or empty, got ${show(rec.winner)}`);
    winner = w === 'up' ? 'Up' : 'Down';
  }
  return { kind: 'market', marketId, coin, marketType, startTime, endTime, priceStart, priceEnd, winner, details: details(rec) };
}

// The hosted service's descriptive fields; an id may arrive as a number (JSON) or text (CSV).
function details(rec: Record<string, unknown>): Partial<MarketDetails> {
  const out: Partial<MarketDetails> = {};
  for (const field of ['event_id', 'condition_id', 'clob_token_up', 'clob_token_down'] as const) {
    const v = rec[field];
    if (!present(v)) continue;
    if (typeof v !== 'string' && typeof v !== 'number') throw new RowError(`"${field}" must be a string, got ${show(v)}`);
    out[field] = String(v);
  }
  for (const field of ['final_volume', 'final_liquidity'] as const) {
    const n = optionalNumber(rec, field);
    if (n !== null && n < 0) throw new RowError(`"${field}" must not be negative, got ${show(rec[field])}`);
    if (n !== null) out[field] = n;
  }
  for (const field of ['resolved_at', 'created_at', 'updated_at'] as const) {
    if (present(rec[field])) out[field] = timeField(rec, field);
  }
  return out;
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

function show(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : String(JSON.stringify(v) ?? v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function requireString(rec: Record<string, unknown>, field: string): string {
  const v = rec[field];
  if (!present(v)) throw new RowError(`"${field}" is missing`);
  if (typeof v !== 'string') throw new RowError(`"${field}" must be a string, got ${show(v)}`);
  return v;
}

function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function requireNumber(rec: Record<string, unknown>, field: string): number {
  if (!present(rec[field])) throw new RowError(`"${field}" is missing`);
  const n = toNumber(rec[field]);
  if (n === undefined) throw new RowError(`"${field}" must be a number, got ${show(rec[field])}`);
  return n;
}

function optionalNumber(rec: Record<string, unknown>, field: string): number | null {
  return present(rec[field]) ? requireNumber(rec, field) : null;
}

function probability(rec: Record<string, unknown>, field: string): number {
  const n = requireNumber(rec, field);
  if (n < 0 || n > 1) throw new RowError(`"${field}" must be a probability in [0, 1], got ${show(rec[field])}`);
  return n;
}

/** Epoch ms as a number or numeric string, or an ISO 8601 string. */
function timeField(rec: Record<string, unknown>, field: string): number {
  const v = rec[field];
  if (!present(v)) throw new RowError(`"${field}" is missing`);
  const n = toNumber(v);
  if (n !== undefined) {
    if (!Number.isInteger(n) || n < 0) throw new RowError(`"${field}" must be integer epoch milliseconds, got ${show(v)}`);
    return n;
  }
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v)) {
    const ms = Date.parse(v);
    if (Number.isFinite(ms)) return ms;
  }
  throw new RowError(`"${field}" must be epoch milliseconds or an ISO 8601 time, got ${show(v)}`);
}

/** An orderbook as an object (NDJSON) or JSON text (CSV); stored re-serialised, levels as numbers. */
function orderbook(rec: Record<string, unknown>, field: string): string | null {
  let v = rec[field];
  if (!present(v)) return null;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw new RowError(`"${field}" is not valid JSON`);
    }
  }
  if (typeof v !== 'object' || v === null) throw new RowError(`"${field}" must be {"bids": [...], "asks": [...]}`);
  const side = v as { bids?: unknown; asks?: unknown };
  return JSON.stringify({ bids: levels(side.bids, field, 'bids'), asks: levels(side.asks, field, 'asks') });
}

// Levels arrive as {price, size} objects, or as [price, size] pairs from exports made before
// the contract changed; both are stored as objects.
function levels(v: unknown, field: string, name: string): OrderbookLevel[] {
  if (!Array.isArray(v)) throw new RowError(`"${field}".${name} must be an array of {price, size} levels`);
  return v.map((level: unknown) => {
    let p: number | undefined;
    let s: number | undefined;
    if (Array.isArray(level) && level.length === 2) {
      p = toNumber(level[0]);
      s = toNumber(level[1]);
    } else if (typeof level === 'object' && level !== null && !Array.isArray(level)) {
      p = toNumber((level as { price?: unknown }).price);
      s = toNumber((level as { size?: unknown }).size);
    } else {
      throw new RowError(`"${field}".${name} must hold {price, size} levels or [price, size] pairs`);
    }
    if (p === undefined || s === undefined) throw new RowError(`"${field}".${name} holds a non-numeric level`);
    return { price: p, size: s };
  });
}
