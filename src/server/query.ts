// Query-string validation: one reader per request, one typed method per kind of parameter.
// Every failure is a 400 whose message names the parameter and the allowed values; parameters
// a route does not read are ignored.
import {
  checkCoin,
  COINS,
  MARKET_STATUSES,
  MARKET_TYPES,
  parseMarketStatus,
  parseMarketType,
  type Coin,
  type MarketStatus,
  type MarketType,
} from '../domain/market.js';
import { HttpException, quote } from './http-error.js';

const DIGITS = /^\d+$/;
// ISO 8601 date or date-time; a date-time without a zone is read as UTC.
const ISO_8601 = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

function badParam(message: string): HttpException {
  return new HttpException(400, message);
}

/** Use in a route's query parser: each method reads one parameter (undefined when absent). */
export class QueryReader {
  constructor(private readonly params: URLSearchParams) {}

  /** The single raw value of `name`; 400 when empty or given more than once. */
  raw(name: string): string | undefined {
    const all = this.params.getAll(name);
    if (all.length === 0) return undefined;
    if (all.length > 1) throw badParam(`Parameter ${name} is given ${all.length} times; give it once.`);
    const value = all[0]!;
    if (value === '') throw badParam(`Parameter ${name} is empty; give it a value or leave it out.`);
    return value;
  }

  /** Like `raw`, but 400 when absent. */
  required(name: string, what: string): string {
    const value = this.raw(name);
    if (value === undefined) throw badParam(`Parameter ${name} is required: ${what}.`);
    return value;
  }

  /** A served coin, case-insensitive; coming-soon coins get their own message. */
  coin(name: string): Coin | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const checked = checkCoin(value);
    if ('coin' in checked) return checked.coin;
    if (checked.refused === 'coming-soon') {
      throw badParam(
        `Parameter ${name}: ${value.toUpperCase()} is coming soon and not available yet; available coins: ${COINS.join(', ')}.`,
      );
    }
    throw badParam(`Parameter ${name} must be one of ${COINS.join(', ')}; got ${quote(value)}.`);
  }

  /** A market type, case-insensitive. */
  marketType(name: string): MarketType | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const type = parseMarketType(value);
    if (type) return type;
    throw badParam(`Parameter ${name} must be one of ${MARKET_TYPES.join(', ')}; got ${quote(value)}.`);
  }

  /** A market status, case-insensitive. */
  status(name: string): MarketStatus | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const status = parseMarketStatus(value);
    if (status) return status;
    throw badParam(`Parameter ${name} must be one of ${MARKET_STATUSES.join(', ')}; got ${quote(value)}.`);
  }

  /** A non-negative integer (plain decimal digits); `min` rejects e.g. limit=0. */
  integer(name: string, min = 0): number | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const n = DIGITS.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < min) {
      throw badParam(
        `Parameter ${name} must be an integer from ${min} to ${Number.MAX_SAFE_INTEGER}; got ${quote(value)}.`,
      );
    }
    return n;
  }

  /** A list limit: an integer >= 1; above-maximum values are kept for the caller to clamp with a warning. */
  limit(name: string): number | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (!DIGITS.test(value) || Number(value) < 1) {
      throw badParam(`Parameter ${name} must be a positive integer; got ${quote(value)}.`);
    }
    // Digits only, so huge values are just "above the maximum".
    return Math.min(Number(value), Number.MAX_SAFE_INTEGER);
  }

  /** A time as epoch milliseconds or ISO 8601 (a date-time without a zone is UTC). */
  time(name: string): number | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (DIGITS.test(value)) {
      const n = Number(value);
      if (Number.isSafeInteger(n)) return n;
    } else {
      const m = ISO_8601.exec(value);
      if (m) {
        const text = m[2] === undefined ? `${m[1]}T00:00:00Z` : `${m[1]}T${m[2]}${m[3] ?? 'Z'}`;
        const ms = Date.parse(text);
        if (Number.isFinite(ms) && ms >= 0) return ms;
      }
    }
    throw badParam(`Parameter ${name} must be epoch milliseconds or an ISO 8601 time; got ${quote(value)}.`);
  }

  /** A boolean flag: true/false/1/0 (case-insensitive). */
  flag(name: string): boolean | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    switch (value.toLowerCase()) {
      case 'true':
      case '1':
        return true;
      case 'false':
      case '0':
        return false;
      default:
        throw badParam(`Parameter ${name} must be one of true, false, 1, 0; got ${quote(value)}.`);
    }
  }
}
