// v2 (/v2/...): `coin` required, ISO times out, `{coin}_price` fields, FastAPI-style `{detail}`
// error bodies (422 for bad parameters, 402 for the builder window).
import { coinPriceKey, dialectMarket, dialectSnapshot } from '../../domain/dialect-records.js';
import type { SnapshotFormat } from '../../store/store.js';
import { marketCore } from '../handlers/market.js';
import { marketsCore } from '../handlers/markets.js';
import { snapshotAtCore } from '../handlers/snapshot-at.js';
import { snapshotsCore } from '../handlers/snapshots.js';
import type { HttpException } from '../http-error.js';
import type { ParamRules } from '../query.js';
import { defineRoute } from '../route.js';
import { createMatcher } from '../routes.js';
import type { Dialect, ErrorAnswer } from './dialect.js';
import { envelopeTail } from './list-body.js';

/** Default and maximum `limit` of the v2 and v4 lists (the hosted service's documented caps). */
export const HOSTED_LIMITS = {
  markets: { default: 50, max: 100 },
  snapshots: { default: 100, max: 1000 },
} as const;

const RULES: ParamRules = { coinRequired: true, msTimes: false, includeTotal: false };
const FORMATS = new Map<string, SnapshotFormat>();

/** The snapshot format of v2 (iso) or v4 (ms) for a coin: `btc_price`, cached per coin. */
export function coinSnapshotFormat(times: SnapshotFormat['times']): (coin: Parameters<typeof coinPriceKey>[0]) => SnapshotFormat {
  return (coin) => {
    const key = `${times}/${coin}`;
    let format = FORMATS.get(key);
    if (!format) {
      format = { priceKey: coinPriceKey(coin), times };
      FORMATS.set(key, format);
    }
    return format;
  };
}

const routes = [
  defineRoute('markets', marketsCore(HOSTED_LIMITS.markets), (r) =>
    '{"markets":' + JSON.stringify(r.markets.map((m) => dialectMarket('v2', m))) + envelopeTail(r, false),
  ),
  defineRoute('markets/by-slug/:id', marketCore, (m) => JSON.stringify(dialectMarket('v2', m))),
  defineRoute('markets/:id', marketCore, (m) => JSON.stringify(dialectMarket('v2', m))),
  defineRoute('markets/:id/snapshots', snapshotsCore(HOSTED_LIMITS.snapshots, coinSnapshotFormat('iso')), (r) =>
    '{"market":' + JSON.stringify(dialectMarket('v2', r.market)) + ',"snapshots":' + r.json + envelopeTail(r, false),
  ),
  defineRoute('markets/:id/snapshot-at/:time', snapshotAtCore, (r) =>
    JSON.stringify({ market: dialectMarket('v2', r.market), snapshots: [dialectSnapshot('v2', r.snapshot, r.market.coin)] }),
  ),
];

function v2Error(err: HttpException): ErrorAnswer {
  const { info } = err;
  switch (info.kind) {
    case 'params':
      return {
        status: 422,
        body: JSON.stringify({
          detail: (info.params ?? []).map((p) => ({
            loc: [p.location, p.name],
            msg: p.message,
            type: p.problem === 'missing' ? 'missing' : 'value_error',
          })),
        }),
      };
    case 'data_window':
      return {
        status: 402,
        body: JSON.stringify({ detail: { error: 'upgrade_required', message: err.message, current_plan: info.window?.plan ?? 'builder' } }),
      };
    case 'rate_limited':
      return { status: 429, body: JSON.stringify({ detail: err.message, error: err.message }) };
    case 'no_route':
      return { status: 404, body: '{"detail":"Not Found"}' };
    case 'method':
      return { status: 405, body: '{"detail":"Method Not Allowed"}' };
    default:
      return { status: err.status, body: JSON.stringify({ detail: err.message }) };
  }
}

/** v2, the dialect of paths under /v2/. */
export const v2: Dialect = {
  name: 'v2',
  rules: RULES,
  match: createMatcher(routes, ['/v2/']),
  publicRoutes: {},
  noRouteMessage: 'Not Found',
  start: () => ({ headers: {}, error: v2Error }),
};
