// v4 conformance over the socket-less core: every endpoint, every error code, the envelopes, and
// X-Request-Id on every response.
import { HEALTH_CONFIG } from '../rate-limit.js';
import { describe, expect, it } from 'vitest';
import type { AppResponse } from '../app.js';
import { eachBackend } from '../../../test/support/each-backend.js';
import { BOOK, body, btc24, DETAILS, ETH_1H, NEWEST_24H, testApp, type TestAppOptions } from '../test-support/test-app.js';

const REQUEST_ID = /^req_[0-9a-f]{12}$/;

/** A v4 error: status, code, request id in body and header alike; returns the details. */
function v4Error(r: AppResponse, status: number, code: string, message?: RegExp): unknown {
  expect(r.status).toBe(status);
  const b = body(r);
  expect(Object.keys(b)).toEqual(['error', 'code', 'request_id', 'details']);
  expect(b.code).toBe(code);
  expect(typeof b.error).toBe('string');
  if (message) expect(b.error).toMatch(message);
  expect(b.request_id).toMatch(REQUEST_ID);
  expect(r.headers['X-Request-Id']).toBe(b.request_id);
  return b.details;
}

eachBackend('v4 conformance (v4.test.ts)', (backend) => {
  const setup = (options: TestAppOptions = {}) => testApp({ backend, ...options });

  describe('v4 records and envelopes', () => {
    it('markets: short types, ms times, coin prices, details; the envelope counts and pages', async () => {
      const { get } = await setup();
      const r = await get('/v4/markets?coin=btc&limit=5', 'key-pro');
      expect(r.status).toBe(200);
      expect(r.headers['X-Request-Id']).toMatch(REQUEST_ID);
      const b = body(r);
      expect(Object.keys(b)).toEqual(['markets', 'total', 'limit', 'offset', 'count', 'has_more', 'next_offset', 'warning']);
      expect(b).toMatchObject({ total: 20, limit: 5, offset: 0, count: 5, has_more: true, next_offset: 5, warning: null });
      const [m] = b.markets as Record<string, unknown>[];
      expect(m).toEqual({
        market_id: btc24(0),
        slug: btc24(0),
        market_type: '24h',
        start_time: NEWEST_24H,
        end_time: NEWEST_24H + 86_400_000,
        btc_price_start: 100,
        btc_price_end: 101,
        winner: 'Up',
        ...DETAILS,
        // msnap's extension (the hosted v4 sends none): saves msnap's client a count request per market.
        snapshot_count: (body(await get(`/v1/markets/${btc24(0)}`, 'key-pro')) as { snapshot_count: number }).snapshot_count,
      });
      expect(m!['snapshot_count']).toBe(40);
      const last = body((await get('/v4/markets?coin=btc&limit=5&offset=15', 'key-pro')));
      expect(last).toMatchObject({ count: 5, has_more: false, next_offset: null });
      expect(body((await get('/v4/markets?coin=btc&include_total=false', 'key-pro')))).toMatchObject({ total: null, count: 20, has_more: false });
      expect(body((await get('/v4/markets?coin=btc&include_total=0&limit=3', 'key-pro')))).toMatchObject({ total: null, has_more: true, next_offset: 3 });
    });

    it('paging by next_offset while has_more reads every market once, newest first', async () => {
      const { get } = await setup();
      const seen: string[] = [];
      let offset: number | null = 0;
      while (offset !== null) {
        const page = body((await get(`/v4/markets?coin=BTC&limit=7&offset=${offset}`, 'key-pro')));
        seen.push(...(page.markets as { market_id: string }[]).map((m) => m.market_id));
        offset = page.has_more ? (page.next_offset as number) : null;
      }
      expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => btc24(i)));
    });

    it('limits: default 50, above 100 clamped with a warning; builder lists stop at the window', async () => {
      const { get } = await setup();
      expect(body((await get('/v4/markets?coin=btc', 'key-pro'))).limit).toBe(50);
      const clamped = body((await get('/v4/markets?coin=btc&limit=500', 'key-pro')));
      expect(clamped.limit).toBe(100);
      expect(clamped.warning).toMatch(/maximum of 100/);
      const builder = body((await get('/v4/markets?coin=btc&market_type=24h', 'key-builder')));
      expect(builder).toMatchObject({ total: 14, count: 14, has_more: false, limit: 14 });
      expect(builder.warning).toMatch(/most recent 14 24hr markets/);
    });

    it('times in are ms, both ends inclusive; status and resolved filter', async () => {
      const { get } = await setup();
      const from = NEWEST_24H - 2 * 86_400_000;
      const ids = async (url: string) => (body((await get(url, 'key-pro'))).markets as { market_id: string }[]).map((m) => m.market_id);
      expect((await ids(`/v4/markets?coin=btc&start_time=${from}&end_time=${NEWEST_24H}`))).toEqual([btc24(0), btc24(1), btc24(2)]);
      expect((await ids(`/v4/markets?coin=eth&resolved=false`))).toEqual([ETH_1H]);
      expect((await ids(`/v4/markets?coin=eth&status=active&resolved=0`))).toEqual([ETH_1H]);
      expect((await ids(`/v4/markets?coin=eth&market_type=1h&resolved=true`))).toHaveLength(2);
    });

    it('one market by id and by slug, bare', async () => {
      const { get } = await setup();
      const byId = body((await get(`/v4/markets/${btc24(0)}?coin=btc`, 'key-builder')));
      expect(byId.market_id).toBe(btc24(0));
      expect(byId.market_type).toBe('24h');
      expect(body((await get(`/v4/markets/by-slug/${btc24(0)}?coin=BTC`, 'key-builder')))).toEqual(byId);
    });

    it('snapshots: btc_price and ms times, depth as {price, size}, the envelope', async () => {
      const { get } = await setup();
      const b = body((await get(`/v4/markets/${btc24(0)}/snapshots?coin=btc&include_orderbook=true&limit=3`, 'key-builder')));
      expect(Object.keys(b)).toEqual(['market', 'snapshots', 'total', 'limit', 'offset', 'count', 'has_more', 'next_offset', 'warning']);
      expect(b).toMatchObject({ total: 40, limit: 3, offset: 0, count: 3, has_more: true, next_offset: 3, warning: null });
      expect((b.market as { market_type: string }).market_type).toBe('24h');
      const snaps = b.snapshots as Record<string, unknown>[];
      expect(Object.keys(snaps[0]!)).toEqual(['id', 'market_id', 'time', 'btc_price', 'price_up', 'price_down']);
      expect(snaps[0]!.time).toBe(NEWEST_24H);
      expect(snaps[1]!.orderbook_up).toEqual(BOOK);
      expect(body((await get(`/v4/markets/${btc24(0)}/snapshots?coin=btc&offset=39`, 'key-builder')))).toMatchObject({ count: 1, has_more: false, next_offset: null });
      const ranged = body((await get(`/v4/markets/${btc24(0)}/snapshots?coin=btc&start_time=${NEWEST_24H + 125}&end_time=${NEWEST_24H + 375}`, 'key-builder')));
      expect((ranged.snapshots as { time: number }[]).map((s) => s.time)).toEqual([NEWEST_24H + 125, NEWEST_24H + 250, NEWEST_24H + 375]);
      expect(body((await get(`/v4/markets/${btc24(0)}/snapshots?coin=btc&limit=5000`, 'key-builder'))).limit).toBe(1000);
    });

    it('snapshot-at: the nearest within 2,000 ms, as a one-element list, depth when asked', async () => {
      const { get } = await setup();
      const b = body((await get(`/v4/markets/${btc24(0)}/snapshot-at/${NEWEST_24H + 130}?coin=btc&include_orderbook=true`, 'key-builder')));
      expect((b.market as { market_id: string }).market_id).toBe(btc24(0));
      expect(b.snapshots).toEqual([
        { id: expect.any(Number), market_id: btc24(0), time: NEWEST_24H + 125, btc_price: 101, price_up: 0.5, price_down: 0.5, orderbook_up: BOOK, orderbook_down: { bids: [], asks: [{ price: 0.48, size: 1 }] } },
      ]);
    });

    it('plan-limits: plan, rate limits and the window with v4 type names', async () => {
      const { get } = await setup();
      expect(JSON.parse((await get('/v4/billing/plan-limits?coin=btc', 'key-builder')).body)).toEqual({
        plan_id: 'builder', coin: 'btc', is_enterprise: false, max_history_days: null,
        rate_limits: { max_per_second: 12, max_per_minute: 250 },
        data_window: { '5m': 4100, '15m': 1400, '1h': 350, '4h': 85, '24h': 14 },
      });
      expect(JSON.parse((await get('/v4/billing/plan-limits?coin=SOL', 'key-trial')).body)).toMatchObject({ plan_id: 'builder', coin: 'sol' });
      expect(JSON.parse((await get('/v4/billing/plan-limits?coin=eth', 'key-pro')).body)).toMatchObject({
        plan_id: 'pro', rate_limits: { max_per_second: 40, max_per_minute: 750 }, data_window: null,
      });
      expect(JSON.parse((await get('/v4/billing/plan-limits?coin=eth', 'key-ent')).body)).toMatchObject({
        plan_id: 'enterprise', is_enterprise: true, rate_limits: { max_per_second: 7, max_per_minute: 100 },
      });
    });

    it('health answers without a key and charges the address its own health allowance', async () => {
      const { get } = await setup({ step: 0 });
      const r = await get('/v4/health');
      expect(r.status).toBe(200);
      // version and snapshots_page_max are msnap extensions (the hosted body is status and service).
      expect(body(r)).toEqual({ status: 'ok', service: 'msnap', version: '9.9.9', snapshots_page_max: { v1: 10_000, v2: 1000, v4: 1000 } });
      expect(r.headers['X-Request-Id']).toMatch(REQUEST_ID);
      expect(r.headers['X-RateLimit-Limit']).toBe(String(HEALTH_CONFIG.perMinute));
      for (let i = 0; i < HEALTH_CONFIG.burst - 1; i++) (await get('/v4/health'));
      v4Error((await get('/v4/health')), 429, 'RATE_LIMIT_BURST');
    });

    it('every response has its own request id', async () => {
      const { get, call } = await setup();
      const ids = [(await get('/v4/markets?coin=btc', 'key-pro')), (await get('/v4/nope', 'key-pro')), (await get('/v4/markets')), (await call('POST', '/v4/health'))].map(
        (r) => r.headers['X-Request-Id'],
      );
      ids.forEach((id) => expect(id).toMatch(REQUEST_ID));
      expect(new Set(ids).size).toBe(4);
      // Other dialects carry none.
      expect((await get('/v1/markets', 'key-pro')).headers['X-Request-Id']).toBeUndefined();
    });
  });

  describe('v4 errors', () => {
    it('credentials: AUTH_MISSING, AUTH_INVALID, AUTH_EXPIRED; two keys INVALID_PARAMETER', async () => {
      const { get } = await setup();
      const missing = await get('/v4/markets?coin=btc');
      expect(v4Error(missing, 401, 'AUTH_MISSING', /API key is required/)).toBeNull();
      expect(missing.headers['WWW-Authenticate']).toBe('Bearer');
      v4Error((await get('/v4/markets?coin=btc', 'nope')), 401, 'AUTH_INVALID');
      v4Error((await get('/v4/markets?coin=btc', 'key-revoked')), 401, 'AUTH_INVALID', /revoked/);
      v4Error((await get('/v4/markets?coin=btc', 'key-expired')), 401, 'AUTH_EXPIRED', /expired/);
      v4Error((await get('/v4/markets?coin=btc', 'key-ended')), 401, 'AUTH_EXPIRED', /trial/);
      v4Error((await get('/v4/markets?coin=btc', undefined, { Authorization: 'Basic x' })), 401, 'AUTH_INVALID');
      const two = v4Error((await get('/v4/markets?coin=btc', 'key-pro', { Authorization: 'Bearer key-builder' })), 400, 'INVALID_PARAMETER');
      expect(two).toMatchObject({ parameter: 'X-API-Key' });
    });

    it('rate limits: RATE_LIMIT_BURST from the bucket, RATE_LIMIT_SUSTAINED from the minute window', async () => {
      const { get } = await setup({ step: 0 });
      for (let i = 0; i < 12; i++) expect((await get('/v4/markets?coin=btc', 'key-builder')).status).toBe(200);
      const burst = await get('/v4/markets?coin=btc', 'key-builder');
      expect(v4Error(burst, 429, 'RATE_LIMIT_BURST')).toEqual({ retry_after: 1, limit: 12, window: 'second' });
      expect(burst.headers['Retry-After']).toBe('1');
      // key-slow: 3 a minute, burst 50.
      for (let i = 0; i < 3; i++) (await get('/v4/markets?coin=btc', 'key-slow'));
      const sustained = await get('/v4/markets?coin=btc', 'key-slow');
      expect(v4Error(sustained, 429, 'RATE_LIMIT_SUSTAINED')).toEqual({ retry_after: 60, limit: 3, window: 'minute' });
    });

    it('route and method: ENDPOINT_NOT_FOUND, METHOD_NOT_ALLOWED with Allow', async () => {
      const { get, call } = await setup();
      for (const path of ['/v4/nope', '/v4/markets/x/y/z', '/v4', '/v4/limits', '/v4/snapshots/at-timestamp']) {
        v4Error((await get(path, 'key-pro')), 404, 'ENDPOINT_NOT_FOUND');
      }
      const r = await call('DELETE', '/v4/markets?coin=btc', { 'x-api-key': 'key-pro' });
      v4Error(r, 405, 'METHOD_NOT_ALLOWED', /DELETE/);
      expect(r.headers.Allow).toBe('GET');
    });

    it.each([
      ['/v4/markets', 'INVALID_PARAMETER', 'coin'],
      ['/v4/markets?coin=doge', 'INVALID_COIN', 'coin'],
      ['/v4/markets?coin=xrp', 'INVALID_COIN', 'coin'],
      ['/v4/markets?coin=btc&start_time=2025-11-22T00:00:00Z', 'INVALID_TIMESTAMP', 'start_time'],
      ['/v4/markets?coin=btc&end_time=999', 'INVALID_TIMESTAMP', 'end_time'],
      ['/v4/markets?coin=btc&end_time=10000000000000', 'INVALID_TIMESTAMP', 'end_time'],
      ['/v4/markets?coin=btc&limit=0', 'INVALID_PARAMETER', 'limit'],
      ['/v4/markets?coin=btc&market_type=1d', 'INVALID_PARAMETER', 'market_type'],
      ['/v4/markets?coin=btc&status=active&resolved=true', 'INVALID_PARAMETER', 'resolved'],
      ['/v4/markets?coin=btc&include_total=maybe', 'INVALID_PARAMETER', 'include_total'],
      ['/v4/markets?coin=btc&coin=eth', 'INVALID_PARAMETER', 'coin'],
      [`/v4/markets/${btc24(0)}`, 'INVALID_PARAMETER', 'coin'],
      [`/v4/markets/${btc24(0)}/snapshot-at/yesterday?coin=btc`, 'INVALID_TIMESTAMP', 'time'],
      ['/v4/billing/plan-limits', 'INVALID_PARAMETER', 'coin'],
    ])('%s is 400 %s naming %s', async (url, code, parameter) => {
      const { get } = await setup();
      const details = v4Error((await get(url, 'key-pro')), 400, code) as { parameter: string; errors: { parameter: string; message: string }[] };
      expect(details.parameter).toBe(parameter);
      expect(details.errors[0]).toEqual({ parameter, message: expect.stringContaining(parameter) });
    });

    it('lists every bad parameter in details.errors', async () => {
      const { get } = await setup();
      const details = v4Error((await get('/v4/markets?coin=doge&limit=x&offset=-1', 'key-pro')), 400, 'INVALID_COIN') as { errors: { parameter: string }[] };
      expect(details.errors.map((e) => e.parameter)).toEqual(['coin', 'limit', 'offset']);
    });

    it('MARKET_NOT_FOUND (unknown, or of another coin), SNAPSHOT_NOT_FOUND, PLAN_UPGRADE_REQUIRED', async () => {
      const { get } = await setup();
      v4Error((await get('/v4/markets/btc-updown-24hr-1?coin=btc', 'key-pro')), 404, 'MARKET_NOT_FOUND');
      v4Error((await get(`/v4/markets/${btc24(0)}?coin=eth`, 'key-pro')), 404, 'MARKET_NOT_FOUND', /coin ETH/);
      v4Error((await get(`/v4/markets/${btc24(0)}/snapshots?coin=sol`, 'key-pro')), 404, 'MARKET_NOT_FOUND');
      v4Error((await get(`/v4/markets/${btc24(0)}/snapshot-at/${NEWEST_24H + 39 * 125 + 2001}?coin=btc`, 'key-pro')), 404, 'SNAPSHOT_NOT_FOUND', /2,000 ms/);
      const window = v4Error((await get(`/v4/markets/${btc24(19)}/snapshots?coin=btc`, 'key-builder')), 402, 'PLAN_UPGRADE_REQUIRED', /most recent 14 24hr/);
      expect(window).toEqual({ current_plan: 'builder', required_plan: 'pro', market_type: '24h', cap: 14 });
      v4Error((await get('/v4/markets?coin=btc&market_type=24hr&offset=14', 'key-builder')), 402, 'PLAN_UPGRADE_REQUIRED');
      expect((await get(`/v4/markets/${btc24(19)}/snapshots?coin=btc`, 'key-pro')).status).toBe(200);
    });

    it('INTERNAL_ERROR without internals; an over-long URL is INVALID_PARAMETER', async () => {
      // `failing` wraps this backend's own store (test-app.ts), so the 500 path runs on every backend.
      const failing = await setup({ failing: true });
      const r = await failing.get('/v4/markets?coin=btc', 'key-pro');
      v4Error(r, 500, 'INTERNAL_ERROR');
      expect(r.body).not.toMatch(/secret|disk/);
      expect(failing.logs.join('\n')).toMatch(/disk on fire/);
      const { get } = await setup();
      v4Error((await get(`/v4/markets?coin=btc&x=${'a'.repeat(9000)}`, 'key-pro')), 414, 'INVALID_PARAMETER');
    });

    it('keeps the check order: credentials, rate limit, route and method, parameters, market, window', async () => {
      const { get, call } = await setup();
      expect(JSON.parse((await get('/v4/nope', 'bad')).body).code).toBe('AUTH_INVALID');
      expect(JSON.parse((await call('POST', '/v4/nope', { 'x-api-key': 'key-pro' })).body).code).toBe('ENDPOINT_NOT_FOUND');
      expect(JSON.parse((await call('POST', '/v4/markets?coin=zzz', { 'x-api-key': 'key-pro' })).body).code).toBe('METHOD_NOT_ALLOWED');
      expect(JSON.parse((await get(`/v4/markets/btc-updown-24hr-1/snapshots?coin=zzz`, 'key-pro')).body).code).toBe('INVALID_COIN');
      expect(JSON.parse((await get(`/v4/markets/${btc24(19)}/snapshots?coin=eth`, 'key-builder')).body).code).toBe('MARKET_NOT_FOUND');
    });
  });
});
