// Query-string validation: one reader per request, one typed method per kind of parameter.
// Every failure names the parameter and the allowed values; the reader collects them all (v2 and
// v4 list each bad parameter) and `check` throws them as one 400. Parameters a route does not
// read are ignored. A dialect's spelling rules (required coin, ms-only times) are given once.
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
import type { ParamFailure } from './error-kind.js';
import { HttpException, quote } from './http-error.js';

/** How a dialect spells parameters; the reader applies them so routes stay dialect-free. */
export interface ParamRules {
  /** v2, v4: every endpoint about markets needs `coin`, and a market of another coin is unknown. */
  coinRequired: boolean;
  /** v4: times only as epoch ms in [MIN_MS_TIME, MAX_MS_TIME], and `end_time` includes its instant. */
  msTimes: boolean;
  /** v4: lists take `include_total`. */
  includeTotal: boolean;
}

/** The contract's (v1) rules: optional coin, ms or ISO times, exclusive end. */
export const V1_RULES: ParamRules = { coinRequired: false, msTimes: false, includeTotal: false };

/** The range of an input time in v4 (13-digit epoch ms). */
const MIN_MS_TIME = 1_000_000_000_000;
const MAX_MS_TIME = 9_999_999_999_999;

const DIGITS = /^\d+$/;

/** Use for a bad parameter found after reading (a check across parameters or against the data). */
export function badParameter(name: string, message: string): HttpException {
  return new HttpException(400, message, {}, {}, { kind: 'params', params: [{ name, location: 'query', problem: 'invalid', message }] });
}
// ISO 8601 date or date-time; a date-time without a zone is read as UTC.
const ISO_8601 = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Use in a route's query parser: each method reads one parameter (undefined when absent or bad). */
export class QueryReader {
  /** Every bad parameter so far, in the order read. */
  readonly failures: ParamFailure[] = [];

  constructor(
    private readonly params: URLSearchParams,
    readonly rules: ParamRules = V1_RULES,
  ) {}

  /** Record a bad parameter (routes use it for checks across parameters); returns undefined. */
  fail(name: string, message: string, problem: ParamFailure['problem'] = 'invalid', location: ParamFailure['location'] = 'query'): undefined {
    this.failures.push({ name, location, problem, message });
    return undefined;
  }

  /** Call after reading: the 400 holding every recorded failure (its message is the first one's). */
  check(): void {
    const first = this.failures[0];
    if (first) throw new HttpException(400, first.message, {}, {}, { kind: 'params', params: this.failures });
  }

  /** The single raw value of `name`; bad when empty or given more than once. */
  raw(name: string): string | undefined {
    const all = this.params.getAll(name);
    if (all.length === 0) return undefined;
    if (all.length > 1) return this.fail(name, `Parameter ${name} is given ${all.length} times; give it once.`);
    const value = all[0]!;
    if (value === '') return this.fail(name, `Parameter ${name} is empty; give it a value or leave it out.`);
    return value;
  }

  /** Like `raw`, but bad when absent. */
  required(name: string, what: string): string | undefined {
    const given = this.params.has(name);
    const value = this.raw(name);
    if (!given) return this.fail(name, `Parameter ${name} is required: ${what}.`, 'missing');
    return value;
  }

  /** A served coin, case-insensitive; coming-soon coins get their own message. Required where the dialect says. */
  coin(name: string): Coin | undefined {
    const value = this.rules.coinRequired ? this.required(name, `one of ${COINS.join(', ')}`) : this.raw(name);
    if (value === undefined) return undefined;
    const checked = checkCoin(value);
    if ('coin' in checked) return checked.coin;
    if (checked.refused === 'coming-soon') {
      return this.fail(
        name,
        `Parameter ${name}: ${value.toUpperCase()} is coming soon and not available yet; available coins: ${COINS.join(', ')}.`,
        'coin',
      );
    }
    return this.fail(name, `Parameter ${name} must be one of ${COINS.join(', ')}; got ${quote(value)}.`, 'coin');
  }

  /** The coin an endpoint about one market is scoped to: required where the dialect says, else not read. */
  scopeCoin(): Coin | undefined {
    return this.rules.coinRequired ? this.coin('coin') : undefined;
  }

  /** A market type, case-insensitive. */
  marketType(name: string): MarketType | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const type = parseMarketType(value);
    if (type) return type;
    return this.fail(name, `Parameter ${name} must be one of ${MARKET_TYPES.join(', ')} (or 1h, 4h, 24h); got ${quote(value)}.`);
  }

  /** A market status from `status` (active|resolved) or `resolved` (a bool), which must agree when both are given. */
  status(): MarketStatus | undefined {
    const value = this.raw('status');
    let status: MarketStatus | undefined;
    if (value !== undefined) {
      status = parseMarketStatus(value);
      if (status === undefined) this.fail('status', `Parameter status must be one of ${MARKET_STATUSES.join(', ')}; got ${quote(value)}.`);
    }
    const resolved = this.flag('resolved');
    if (resolved === undefined) return status;
    const fromFlag: MarketStatus = resolved ? 'resolved' : 'active';
    if (status !== undefined && status !== fromFlag) {
      return this.fail('resolved', `Parameters status=${status} and resolved=${resolved} contradict each other; give one.`);
    }
    return fromFlag;
  }

  /** v4's include_total (default true); every other dialect always counts. */
  includeTotal(): boolean {
    return this.rules.includeTotal ? (this.flag('include_total') ?? true) : true;
  }

  /** A non-negative integer (plain decimal digits); `min` rejects e.g. limit=0. */
  integer(name: string, min = 0): number | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const n = DIGITS.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < min) {
      return this.fail(
        name,
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
      return this.fail(name, `Parameter ${name} must be a positive integer; got ${quote(value)}.`);
    }
    // Digits only, so huge values are just "above the maximum".
    return Math.min(Number(value), Number.MAX_SAFE_INTEGER);
  }

  /** A time as epoch milliseconds or ISO 8601 (a date-time without a zone is UTC); v4: ms only. */
  time(name: string): number | undefined {
    const value = this.raw(name);
    return value === undefined ? undefined : this.timeValue(name, value, 'query');
  }

  /** The exclusive upper bound an `end_time` gives: the time itself, or the next ms where the dialect includes it. */
  endTime(name: string): number | undefined {
    const t = this.time(name);
    return t !== undefined && this.rules.msTimes ? t + 1 : t;
  }

  /** A time given as a path segment (`snapshot-at/{time}`). */
  pathTime(name: string, value: string): number | undefined {
    return this.timeValue(name, value, 'path');
  }

  private timeValue(name: string, value: string, location: ParamFailure['location']): number | undefined {
    if (this.rules.msTimes) {
      const n = DIGITS.test(value) ? Number(value) : NaN;
      if (n >= MIN_MS_TIME && n <= MAX_MS_TIME) return n;
      return this.fail(
        name,
        `Parameter ${name} must be epoch milliseconds from ${MIN_MS_TIME} to ${MAX_MS_TIME}; got ${quote(value)}.`,
        'time',
        location,
      );
    }
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
    return this.fail(name, `Parameter ${name} must be epoch milliseconds or an ISO 8601 time; got ${quote(value)}.`, 'time', location);
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
        return this.fail(name, `Parameter ${name} must be one of true, false, 1, 0; got ${quote(value)}.`);
    }
  }
}
