// v4 (/v4/...): `coin` required, epoch-ms times in and out, inclusive end_time, `{coin}_price`
// fields, short market types, paging envelopes, coded error bodies and a request id on everything.
import { randomBytes } from 'node:crypto';
import { dialectMarket, dialectSnapshot, type V4ErrorCode } from '../../domain/dialect-records.js';
import { MARKET_TYPES, SHORT_MARKET_TYPES, type ServedMarket } from '../../domain/market.js';
import { marketCore } from '../handlers/market.js';
import { marketsCore } from '../handlers/markets.js';
import { planLimitsCore, type PlanLimitsResult } from '../handlers/plan-limits.js';
import { snapshotAtCore } from '../handlers/snapshot-at.js';
import { snapshotsCore } from '../handlers/snapshots.js';
import type { HttpException } from '../http-error.js';
import type { ParamRules } from '../query.js';
import { definePublicRoute, defineRoute } from '../route.js';
import { createMatcher } from '../routes.js';
import type { Dialect, ErrorAnswer } from './dialect.js';
import { envelopeTail } from './list-body.js';
import { V1_LIMITS } from './v1.js';
import { coinSnapshotFormat, HOSTED_LIMITS } from './v2.js';

const RULES: ParamRules = { coinRequired: true, msTimes: true, includeTotal: true };

/**
 * A v4 market record plus `snapshot_count` (an msnap extension: the hosted v4 sends none, and
 * clients ignore a field they do not know). msnap's own client uses it instead of asking one
 * count request per listed market; against the hosted service it still asks.
 */
function v4Market(m: ServedMarket): Record<string, unknown> {
  return { ...dialectMarket('v4', m), snapshot_count: m.snapshot_count };
}

function planLimitsBody(r: PlanLimitsResult): string {
  const window = r.window && Object.fromEntries(MARKET_TYPES.map((t) => [SHORT_MARKET_TYPES[t], r.window![t]]));
  return JSON.stringify({
    plan_id: r.plan,
    coin: r.coin.toLowerCase(),
    is_enterprise: r.plan === 'enterprise',
    max_history_days: null,
    rate_limits: { max_per_second: r.perSecond, max_per_minute: r.perMinute },
    data_window: window,
  });
}

const routes = [
  defineRoute('markets', marketsCore(HOSTED_LIMITS.markets), (r) =>
    '{"markets":' + JSON.stringify(r.markets.map((m) => v4Market(m))) + envelopeTail(r, true),
  ),
  defineRoute('markets/by-slug/:id', marketCore, (m) => JSON.stringify(v4Market(m))),
  defineRoute('markets/:id', marketCore, (m) => JSON.stringify(v4Market(m))),
  defineRoute('markets/:id/snapshots', snapshotsCore(HOSTED_LIMITS.snapshots, coinSnapshotFormat('ms')), (r) =>
    '{"market":' + JSON.stringify(v4Market(r.market)) + ',"snapshots":' + r.json + envelopeTail(r, true),
  ),
  defineRoute('markets/:id/snapshot-at/:time', snapshotAtCore, (r) =>
    JSON.stringify({ market: v4Market(r.market), snapshots: [dialectSnapshot('v4', r.snapshot, r.market.coin)] }),
  ),
  defineRoute('billing/plan-limits', planLimitsCore, planLimitsBody),
];

function invalid(parameter: string, message: string, code: V4ErrorCode = 'INVALID_PARAMETER') {
  return { code, details: { parameter, errors: [{ parameter, message }] } };
}

// The code and details of an error; the status is v1's except where the hosted service differs.
function classify(err: HttpException): { status: number; code: V4ErrorCode; details: unknown } {
  const { info } = err;
  switch (info.kind) {
    case 'two_keys':
      return { status: 400, ...invalid('X-API-Key', err.message) };
    case 'auth_missing':
      return { status: 401, code: 'AUTH_MISSING', details: null };
    case 'auth_invalid':
      return { status: 401, code: 'AUTH_INVALID', details: null };
    case 'auth_expired':
      return { status: 401, code: 'AUTH_EXPIRED', details: null };
    case 'rate_limited': {
      const rate = info.rate;
      const code = rate?.window === 'second' ? 'RATE_LIMIT_BURST' : 'RATE_LIMIT_SUSTAINED';
      return { status: 429, code, details: rate ? { retry_after: rate.retryAfter, limit: rate.limit, window: rate.window } : null };
    }
    case 'no_route':
      return { status: 404, code: 'ENDPOINT_NOT_FOUND', details: null };
    case 'method':
      return { status: 405, code: 'METHOD_NOT_ALLOWED', details: null };
    case 'params': {
      const all = info.params ?? [];
      const first = all[0];
      const code = first?.problem === 'coin' ? 'INVALID_COIN' : first?.problem === 'time' ? 'INVALID_TIMESTAMP' : 'INVALID_PARAMETER';
      const details = { parameter: first?.name ?? null, errors: all.map((p) => ({ parameter: p.name, message: p.message })) };
      return { status: 400, code, details };
    }
    case 'market_not_found':
      return { status: 404, code: 'MARKET_NOT_FOUND', details: null };
    case 'snapshot_not_found':
      return { status: 404, code: 'SNAPSHOT_NOT_FOUND', details: null };
    case 'data_window': {
      const w = info.window;
      const details = w && { current_plan: w.plan, required_plan: 'pro', market_type: SHORT_MARKET_TYPES[w.marketType], cap: w.cap };
      return { status: 402, code: 'PLAN_UPGRADE_REQUIRED', details: details ?? null };
    }
    case 'internal':
      return { status: 500, code: 'INTERNAL_ERROR', details: null };
    case 'unavailable':
      return { status: 503, code: 'DATABASE_UNAVAILABLE', details: null };
    case 'request':
      return { status: err.status, ...invalid('url', err.message) };
  }
}

/**
 * msnap extensions to the hosted health body: the server's version, and each dialect's largest
 * snapshot page, so `--api auto` can take the dialect that needs the fewest requests here (the
 * hosted service sends neither, and stays on v4).
 */
function serveExtension(version: string): { version: string; snapshots_page_max: Record<string, number> } {
  return { version, snapshots_page_max: { v1: V1_LIMITS.snapshots.max, v2: HOSTED_LIMITS.snapshots.max, v4: HOSTED_LIMITS.snapshots.max } };
}

/** A fresh `req_` + 12 lowercase hex. */
function newRequestId(): string {
  return `req_${randomBytes(6).toString('hex')}`;
}

/** v4, the dialect of paths under /v4/. */
export const v4: Dialect = {
  name: 'v4',
  rules: RULES,
  match: createMatcher(routes, ['/v4/']),
  publicRoutes: {
    '/v4/health': definePublicRoute('/v4/health', (_now, down, version) =>
      JSON.stringify({ status: down.length === 0 ? 'ok' : 'degraded', service: 'msnap', ...serveExtension(version), ...(down.length ? { unavailable: down } : {}) }),
    ),
  },
  noRouteMessage: 'No such endpoint; see /v4/markets and /v4/billing/plan-limits.',
  start: () => {
    const requestId = newRequestId();
    return {
      headers: { 'X-Request-Id': requestId },
      error: (err): ErrorAnswer => {
        const { status, code, details } = classify(err);
        return { status, body: JSON.stringify({ error: err.message, code, request_id: requestId, details }) };
      },
    };
  },
};
