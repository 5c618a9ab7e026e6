// v1: the contract (docs/contract.md) plus the hosted service's v1 extras. Paths answer under /api/v1/
// and /v1/; bodies and errors are the contract's.
import { dialectMarket, dialectSnapshot } from '../../domain/dialect-records.js';
import { V1_SNAPSHOT_FORMAT } from '../../store/store.js';
import { atTimestampCore } from '../handlers/at-timestamp.js';
import { clockCore } from '../handlers/clock.js';
import { healthCore } from '../handlers/health.js';
import { limitsCore } from '../handlers/limits.js';
import { marketCore } from '../handlers/market.js';
import { marketsCore } from '../handlers/markets.js';
import { PAPER_ROUTES } from '../handlers/paper.js';
import { snapshotAtCore } from '../handlers/snapshot-at.js';
import { snapshotsCore } from '../handlers/snapshots.js';
import { errorBody } from '../http-error.js';
import { V1_RULES } from '../query.js';
import { definePublicRoute, defineRoute } from '../route.js';
import { createMatcher } from '../routes.js';
import type { Dialect } from './dialect.js';
import { envelopeTail } from './list-body.js';

/** Default and maximum `limit` of v1's lists. */
export const V1_LIMITS = {
  markets: { default: 100, max: 1000 },
  snapshots: { default: 1000, max: 10_000 },
} as const;

const routes = [
  defineRoute('health', healthCore, (r) => JSON.stringify(r)),
  defineRoute('markets', marketsCore(V1_LIMITS.markets), (r) =>
    '{"markets":' + JSON.stringify(r.markets.map((m) => dialectMarket('v1', m))) + envelopeTail(r, false),
  ),
  defineRoute('markets/by-slug/:id', marketCore, (m) => JSON.stringify(dialectMarket('v1', m))),
  defineRoute('markets/:id', marketCore, (m) => JSON.stringify(dialectMarket('v1', m))),
  defineRoute('markets/:id/snapshots', snapshotsCore(V1_LIMITS.snapshots, () => V1_SNAPSHOT_FORMAT), (r) =>
    '{"market":' + JSON.stringify(dialectMarket('v1', r.market)) + ',"snapshots":' + r.json + envelopeTail(r, false),
  ),
  defineRoute('markets/:id/snapshot-at/:time', snapshotAtCore, (r) =>
    JSON.stringify({ market: dialectMarket('v1', r.market), snapshots: [dialectSnapshot('v1', r.snapshot, r.market.coin)] }),
  ),
  defineRoute('snapshots/at-timestamp', atTimestampCore, (r) => JSON.stringify(r)),
  defineRoute('limits', limitsCore, (r) => JSON.stringify(r)),
  defineRoute('clock', clockCore, (r) => JSON.stringify(r)),
  ...PAPER_ROUTES,
];

/** v1, the dialect of every path not under /v2/ or /v4/. */
export const v1: Dialect = {
  name: 'v1',
  rules: V1_RULES,
  match: createMatcher(routes, ['/api/v1/', '/v1/'], { '/api/health': 'health' }),
  publicRoutes: {
    // `version` is an msnap extension (`msnap health` shows it without a key).
    '/health': definePublicRoute('/health', (now, down, version) =>
      JSON.stringify({
        status: down.length === 0 ? 'ok' : 'degraded',
        timestamp: new Date(now).toISOString(),
        version,
        ...(down.length ? { unavailable: down } : {}),
      }),
    ),
  },
  noRouteMessage: 'No such endpoint; see /api/v1/markets, /api/v1/limits, /api/health.',
  start: () => ({
    headers: {},
    error: (err) => ({ status: err.status, body: errorBody(err.status, err.message, err.extra) }),
  }),
};
