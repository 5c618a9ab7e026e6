// Response bodies into the contract's records. The hosted service is known to send numbers as
// strings, times as ISO text, `btc_price` for `price`, `btc_price_start`/`btc_price_end`, and
// `id` or `slug` for `market_id`; every record leaves here with the contract's names, in the
// contract's order, so renderers never see a variant.
import {
  MARKET_DURATION_MS,
  parseCoin,
  parseMarketId,
  parseMarketType,
  type Coin,
  type Market,
  type MarketStatus,
  type MarketType,
  type OrderbookLevel,
  type OrderbookSide,
  type Snapshot,
} from '../domain/market.js';
import { toNumber } from '../domain/numeric-field.js';
import type { Limits } from './types.js';

/** Thrown (and turned into an HttpError by the client) when a 2xx body lacks a field the contract requires. */
export class MalformedBodyError extends Error {}

type Obj = Record<string, unknown>;

/** Use for a time field: epoch ms as a number or numeric string, or an ISO 8601 string; undefined otherwise. */
export function toEpochMs(v: unknown): number | undefined {
  const n = toNumber(v);
  if (n !== undefined) return Math.round(n);
  if (typeof v === 'string') {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Use to check that a parsed body is a JSON object before reading fields from it. */
export function asObject(v: unknown, what: string): Obj {
  if (!isObj(v)) throw new MalformedBodyError(`${what}: expected a JSON object`);
  return v;
}

function required(v: number | undefined, field: string, what: string): number {
  if (v === undefined) throw new MalformedBodyError(`${what}: missing or non-numeric \`${field}\``);
  return v;
}

function nullable(v: number | undefined): number | null {
  return v === undefined ? null : v;
}

function toWinner(v: unknown): 'Up' | 'Down' | null {
  if (typeof v !== 'string') return null;
  const lower = v.toLowerCase();
  return lower === 'up' ? 'Up' : lower === 'down' ? 'Down' : null;
}

/** Use on every market object from the service; `now` decides `status` only when the service omits it. */
export function normalizeMarket(raw: unknown, now: number): Market {
  const r = asObject(raw, 'market');
  const idValue = r['market_id'] ?? r['id'] ?? r['slug'];
  if (typeof idValue !== 'string' || idValue === '') throw new MalformedBodyError('market: missing `market_id`');
  const fromId = parseMarketId(idValue);
  const coin: Coin | undefined = (typeof r['coin'] === 'string' ? parseCoin(r['coin']) : undefined) ?? fromId?.coin;
  const typeValue = r['market_type'] ?? r['type'] ?? r['timeframe'];
  const marketType: MarketType | undefined =
    (typeof typeValue === 'string' ? parseMarketType(typeValue) : undefined) ?? fromId?.marketType;
  if (!coin) throw new MalformedBodyError(`market ${idValue}: missing or unknown \`coin\``);
  if (!marketType) throw new MalformedBodyError(`market ${idValue}: missing or unknown \`market_type\``);
  const start = required(toEpochMs(r['start_time']) ?? fromId?.startTime, 'start_time', `market ${idValue}`);
  const end = toEpochMs(r['end_time']) ?? start + MARKET_DURATION_MS[marketType];
  const statusValue = typeof r['status'] === 'string' ? r['status'].toLowerCase() : undefined;
  const status: MarketStatus =
    statusValue === 'active' || statusValue === 'resolved'
      ? statusValue
      : now >= start && now < end
        ? 'active'
        : 'resolved';
  return {
    market_id: idValue,
    slug: typeof r['slug'] === 'string' ? r['slug'] : idValue,
    coin,
    market_type: marketType,
    status,
    start_time: start,
    end_time: end,
    price_start: nullable(toNumber(r['price_start'] ?? r['btc_price_start'])),
    price_end: nullable(toNumber(r['price_end'] ?? r['btc_price_end'])),
    winner: toWinner(r['winner']),
    // The Market type has no null here; a service that omits the count gets 0 (documented).
    snapshot_count: toNumber(r['snapshot_count']) ?? 0,
  };
}

// Levels as the contract has them ({price, size}) or as [price, size] pairs (old exports, the
// contract before the change); both leave as {price, size}.
function toLevels(v: unknown): OrderbookLevel[] {
  if (!Array.isArray(v)) return [];
  const out: OrderbookLevel[] = [];
  for (const level of v) {
    const p = Array.isArray(level) ? toNumber(level[0]) : isObj(level) ? toNumber(level['price']) : undefined;
    const s = Array.isArray(level) ? toNumber(level[1]) : isObj(level) ? toNumber(level['size']) : undefined;
    if (p !== undefined && s !== undefined) out.push({ price: p, size: s });
  }
  return out;
}

function toOrderbook(v: unknown): OrderbookSide | undefined {
  if (!isObj(v)) return undefined;
  return { bids: toLevels(v['bids']), asks: toLevels(v['asks']) };
}

// The contract's snapshot fields in the contract's order (no orderbook).
const SNAPSHOT_KEYS = ['id', 'market_id', 'time', 'price', 'price_up', 'price_down'];

// True when a parsed row already is a contract snapshot: exactly the six fields, in order, with
// the right types. msnap serve always sends this; such a row is used as it is.
function isContractSnapshot(r: Obj): boolean {
  if (
    typeof r['id'] !== 'number' ||
    typeof r['market_id'] !== 'string' ||
    typeof r['time'] !== 'number' ||
    typeof r['price'] !== 'number' ||
    typeof r['price_up'] !== 'number' ||
    typeof r['price_down'] !== 'number'
  ) {
    return false;
  }
  let i = 0;
  for (const key in r) {
    if (key !== SNAPSHOT_KEYS[i]) return false;
    i++;
  }
  return i === SNAPSHOT_KEYS.length;
}

/**
 * Use on every snapshot object; `marketId` fills `market_id` when a row omits it (it is implied by the URL).
 * Hot path of every export: a row already in the contract's shape is returned as it is (no copy:
 * 10,000 fewer objects per page), and the all-numbers case builds the record without a parsing detour.
 */
export function normalizeSnapshot(raw: unknown, marketId: string): Snapshot {
  const r = raw as Obj;
  if (!isObj(r)) throw new MalformedBodyError('snapshot: expected a JSON object');
  if (isContractSnapshot(r)) return r as unknown as Snapshot;
  const id = r['id'];
  const time = r['time'];
  const price = r['price'] ?? r['btc_price'];
  const up = r['price_up'];
  const down = r['price_down'];
  const mid = r['market_id'];
  const snap: Snapshot =
    typeof time === 'number' && typeof price === 'number' && typeof up === 'number' && typeof down === 'number'
      ? {
          // The service may omit `id`; 0 then (documented), never a shifted column.
          id: typeof id === 'number' ? id : (toNumber(id) ?? 0),
          market_id: typeof mid === 'string' ? mid : marketId,
          time,
          price,
          price_up: up,
          price_down: down,
        }
      : {
          id: toNumber(id) ?? 0,
          market_id: typeof mid === 'string' ? mid : marketId,
          time: required(toEpochMs(time), 'time', 'snapshot'),
          price: required(toNumber(price), 'price', 'snapshot'),
          price_up: required(toNumber(up), 'price_up', 'snapshot'),
          price_down: required(toNumber(down), 'price_down', 'snapshot'),
        };
  if (r['orderbook_up'] !== undefined || r['orderbook_down'] !== undefined) {
    const obUp = toOrderbook(r['orderbook_up']);
    const obDown = toOrderbook(r['orderbook_down']);
    if (obUp) snap.orderbook_up = obUp;
    if (obDown) snap.orderbook_down = obDown;
  }
  return snap;
}

/** Use on the `/api/v1/limits` body. */
export function normalizeLimits(raw: unknown): Limits {
  const r = asObject(raw, 'limits');
  const rate = asObject(r['rate_limit'], 'limits.rate_limit');
  const trial = isObj(r['trial'])
    ? { active: r['trial']['active'] === true || r['trial']['active'] === 'true', ends_at: nullable(toEpochMs(r['trial']['ends_at'])) }
    : null;
  let window: Record<MarketType, number> | null = null;
  if (isObj(r['data_window'])) {
    const w = r['data_window'];
    window = {
      '5m': toNumber(w['5m']) ?? 0,
      '15m': toNumber(w['15m']) ?? 0,
      '1hr': toNumber(w['1hr']) ?? 0,
      '4hr': toNumber(w['4hr']) ?? 0,
      '24hr': toNumber(w['24hr']) ?? 0,
    };
  }
  const keys = isObj(r['api_keys'])
    ? { active: nullable(toNumber(r['api_keys']['active'])), max: nullable(toNumber(r['api_keys']['max'])) }
    : null;
  const usageRaw = r['usage'];
  const remaining = isObj(usageRaw) ? toNumber(usageRaw['remaining']) : undefined;
  const reset = isObj(usageRaw) ? toNumber(usageRaw['reset']) : undefined;
  return {
    plan: typeof r['plan'] === 'string' ? r['plan'] : 'unknown',
    trial,
    rate_limit: {
      requests_per_minute: required(toNumber(rate['requests_per_minute']), 'rate_limit.requests_per_minute', 'limits'),
      burst_per_second: required(toNumber(rate['burst_per_second']), 'rate_limit.burst_per_second', 'limits'),
    },
    data_window: window,
    api_keys: keys,
    usage: remaining !== undefined && reset !== undefined ? { remaining, reset } : null,
  };
}

/** What an error body says: `message` when present, else `error` (a body may hold only that). */
export interface ErrorBody {
  error: string | null;
  message: string | null;
  tier: string | null;
  retryAfter: number | null;
}

/** Use on the body of any non-2xx response (parsed JSON, text, or undefined). */
export function normalizeErrorBody(raw: unknown): ErrorBody {
  if (typeof raw === 'string') {
    const text = raw.trim();
    return { error: null, message: text && text.length <= 300 ? text : null, tier: null, retryAfter: null };
  }
  if (!isObj(raw)) return { error: null, message: null, tier: null, retryAfter: null };
  const errorField = raw['error'];
  // Some services nest the details: { error: { message, ... } }.
  const nested = isObj(errorField) ? errorField : undefined;
  const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
  return {
    error: str(nested ? nested['error'] ?? nested['code'] : errorField),
    message: str(raw['message'] ?? nested?.['message'] ?? raw['detail']),
    tier: str(raw['tier'] ?? nested?.['tier']),
    retryAfter: nullable(toNumber(raw['retry_after'] ?? nested?.['retry_after'])),
  };
}
