// The same data set in memory, in SQLite and in PostgreSQL must give the same responses, byte for
// byte: every endpoint of every dialect, successes and errors, with the same clock. Only Date and
// X-Request-Id (and the v4 request id in a body) may differ, as they do between two runs.
import { afterAll, describe, expect, it } from 'vitest';
import { availableBackends, usePostgres } from '../../test/support/each-backend.js';
import type { AppResponse } from './app.js';
import { removeBackendFiles } from './test-support/backends.js';
import { btc24, ETH_1H, NEWEST_24H, testApp, type Backend } from './test-support/test-app.js';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const LAST_BTC_SNAPSHOT = NEWEST_24H + 39 * 125;

/** One request: what it asks, with which key (none: undefined), and the status it must get. */
type Req = [url: string, key: string | undefined, status: number, method?: string];

const REQUESTS: Req[] = [
  // v1 (the contract)
  ['/api/health', 'key-pro', 200],
  ['/health', undefined, 200],
  ['/api/v1/markets?coin=btc&limit=5', 'key-pro', 200],
  ['/v1/markets?status=active', 'key-pro', 200],
  ['/api/v1/markets?coin=eth&market_type=1hr', 'key-builder', 200],
  ['/api/v1/markets?coin=btc&market_type=24hr&offset=10&limit=10', 'key-builder', 200],
  [`/api/v1/markets?start_time=${iso(NEWEST_24H - 3 * DAY)}&end_time=${NEWEST_24H}&limit=50`, 'key-pro', 200],
  ['/api/v1/markets?coin=btc&market_type=24hr&offset=14', 'key-builder', 403],
  [`/api/v1/markets/${btc24(0)}`, 'key-builder', 200],
  [`/v1/markets/${ETH_1H}`, 'key-pro', 200],
  [`/v1/markets/by-slug/${btc24(1)}`, 'key-pro', 200],
  [`/api/v1/markets/${btc24(0)}/snapshots?include_orderbook=true&limit=5`, 'key-builder', 200],
  [`/api/v1/markets/${btc24(2)}/snapshots?offset=30&limit=20`, 'key-pro', 200],
  [`/v1/markets/${btc24(1)}/snapshots?start_time=${NEWEST_24H - DAY + 250}&end_time=${NEWEST_24H - DAY + 1000}`, 'key-pro', 200],
  [`/v1/markets/${ETH_1H}/snapshots`, 'key-pro', 200],
  [`/v1/markets/${btc24(0)}/snapshot-at/${NEWEST_24H + 130}?include_orderbook=true`, 'key-pro', 200],
  [`/v1/snapshots/at-timestamp?market=${btc24(0)}&ts=${NEWEST_24H + 188}`, 'key-pro', 200],
  [`/v1/snapshots/at-timestamp?market=${btc24(0)}&ts=${LAST_BTC_SNAPSHOT + 2001}`, 'key-pro', 404],
  ['/api/v1/limits', 'key-trial', 200],
  ['/api/v1/limits', 'key-ent', 200],
  ['/api/v1/markets/btc-updown-24hr-1', 'key-pro', 404],
  [`/api/v1/markets/${btc24(19)}/snapshots`, 'key-builder', 403],
  ['/api/v1/markets?coin=doge', 'key-pro', 400],
  ['/api/v1/markets', 'key-revoked', 401],
  ['/api/v1/markets', 'key-expired', 401],
  ['/api/v1/markets', 'key-ended', 401],
  ['/api/v1/markets', 'no-such-key', 401],
  ['/api/v1/markets', 'key-pro', 405, 'POST'],
  ['/nope', 'key-pro', 404],
  // v2
  ['/v2/markets?coin=btc&limit=3', 'key-pro', 200],
  [`/v2/markets/${btc24(0)}?coin=btc`, 'key-pro', 200],
  [`/v2/markets/by-slug/${ETH_1H}?coin=eth`, 'key-pro', 200],
  [`/v2/markets/${btc24(0)}/snapshots?coin=btc&include_orderbook=true&limit=3`, 'key-builder', 200],
  [`/v2/markets/${btc24(0)}/snapshot-at/${encodeURIComponent(iso(NEWEST_24H + 250))}?coin=btc`, 'key-pro', 200],
  ['/v2/markets?coin=doge&limit=0', 'key-pro', 422],
  [`/v2/markets/${btc24(14)}?coin=btc`, 'key-builder', 402],
  ['/v2/markets/btc-updown-5m-1?coin=btc', 'key-pro', 404],
  // v4
  ['/v4/health', undefined, 200],
  ['/v4/markets?coin=btc&limit=5&offset=15', 'key-pro', 200],
  ['/v4/markets?coin=eth&include_total=false', 'key-pro', 200],
  [`/v4/markets/${btc24(0)}?coin=btc`, 'key-builder', 200],
  [`/v4/markets/by-slug/${btc24(3)}?coin=btc`, 'key-pro', 200],
  [`/v4/markets/${btc24(0)}/snapshots?coin=btc&include_orderbook=true&limit=3`, 'key-builder', 200],
  [`/v4/markets/${btc24(0)}/snapshot-at/${NEWEST_24H + 130}?coin=btc&include_orderbook=true`, 'key-pro', 200],
  ['/v4/billing/plan-limits?coin=btc', 'key-builder', 200],
  [`/v4/markets/${btc24(19)}/snapshots?coin=btc`, 'key-builder', 402],
  [`/v4/markets/${btc24(0)}?coin=eth`, 'key-pro', 404],
  [`/v4/markets/${btc24(0)}/snapshot-at/${LAST_BTC_SNAPSHOT + 2001}?coin=btc`, 'key-pro', 404],
  ['/v4/markets?coin=btc&start_time=soon', 'key-pro', 400],
  ['/v4/markets?coin=btc', 'key-expired', 401],
  // key-slow: 3 a minute, so the fourth is refused.
  ['/v4/markets?coin=sol', 'key-slow', 200],
  ['/v4/markets?coin=sol', 'key-slow', 200],
  ['/v4/markets?coin=sol', 'key-slow', 200],
  ['/v4/markets?coin=sol', 'key-slow', 429],
];

/** The whole response as text: status, headers in order (less Date and X-Request-Id), body with request ids masked. */
function comparable(r: AppResponse): string {
  const headers = Object.entries(r.headers).filter(([name]) => name !== 'Date' && name !== 'X-Request-Id');
  const body = r.body.replace(/"request_id":"req_[0-9a-f]{12}"/g, '"request_id":"req_masked"');
  return [String(r.status), ...headers.map(([name, value]) => `${name}: ${value}`), '', body].join('\n');
}

async function answers(backend: Backend): Promise<AppResponse[]> {
  const { call } = await testApp({ backend });
  const out: AppResponse[] = [];
  for (const [url, key, , method] of REQUESTS) out.push(await call(method ?? 'GET', url, key === undefined ? {} : { 'X-API-Key': key }));
  return out;
}

const backends = availableBackends('same bytes on every backend (same-bytes.test.ts)');

describe('every backend answers the same bytes', () => {
  if (backends.includes('postgres')) usePostgres();
  afterAll(removeBackendFiles);

  it(`${REQUESTS.length} requests over every endpoint and dialect: ${backends.join(', ')}`, async () => {
    const memory = await answers('memory');
    // The list does what it says: every request gets the status it is there for.
    expect(memory.map((r) => r.status)).toEqual(REQUESTS.map((r) => r[2]));
    const expected = memory.map(comparable);
    for (const backend of backends.filter((b) => b !== 'memory')) {
      const got = (await answers(backend)).map(comparable);
      got.forEach((text, i) => expect.soft(text, `${backend}: ${REQUESTS[i]![3] ?? 'GET'} ${REQUESTS[i]![0]} (${REQUESTS[i]![1]})`).toBe(expected[i]));
    }
  });
});
