// What went wrong, as the core knows it: each dialect turns the same kind into its own status,
// code and body (v1 403 is v2's and v4's 402, v1 400 is v2's 422, ...).
import type { MarketType } from '../domain/market.js';
import type { PlanName } from '../domain/plans.js';

/** The cases every dialect answers, one per row of the error table of docs/dialects.md. */
export type ErrorKind =
  | 'two_keys'
  | 'auth_missing'
  | 'auth_invalid'
  | 'auth_expired'
  | 'rate_limited'
  | 'no_route'
  | 'method'
  | 'params'
  | 'market_not_found'
  | 'snapshot_not_found'
  | 'data_window'
  /** Any other refusal with its own status (414). */
  | 'request'
  /** The store or the shared limiter cannot be reached (503): nothing was served, nothing admitted. */
  | 'unavailable'
  | 'internal';

/** One bad parameter: where it was, what kind of value it wanted, and a sentence naming it. */
export interface ParamFailure {
  name: string;
  location: 'query' | 'path' | 'body';
  /** `missing` when absent; `coin` and `time` get their own v4 codes. */
  problem: 'missing' | 'coin' | 'time' | 'invalid';
  message: string;
}

/** The facts a dialect needs beyond status and message. */
export interface ErrorInfo {
  kind: ErrorKind;
  /** kind `params`: every bad parameter, in the order read. */
  params?: readonly ParamFailure[];
  /** kind `data_window`: the plan and the cap that refused. */
  window?: { plan: PlanName; marketType: MarketType; cap: number };
  /** kind `rate_limited`: which limit refused (minute when both did) and its number. */
  rate?: { retryAfter: number; limit: number; window: 'second' | 'minute' };
}
