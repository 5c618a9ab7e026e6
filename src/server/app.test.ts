// Route tests over the pure core: every contract rule, no socket, a clock moved by hand.
import { describe, expect, it } from 'vitest';
import { marketStartCovering } from '../domain/market.js';
import type { AppResponse } from './app.js';
import { hashApiKey } from '../accounts/api-key.js';
import { eachBackend } from '../../test/support/each-backend.js';
import { btc24, inOrder, NEWEST_24H, T0, testApp, type TestAppOptions } from './test-support/test-app.js';

const DAY = 86_400_000;
type Headers = Record<string, string>;

function json(r: AppResponse): Record<string, unknown> {
  expect(r.headers['Content-Type']).toBe('application/json; charset=utf-8');
  return JSON.parse(r.body) as Record<string, unknown>;
}

function expectError(r: AppResponse, status: number, error: string, message?: RegExp): Record<string, unknown> {
  expect(r.status).toBe(status);
  const body = json(r);
  expect(body.error).toBe(error);
  expect(typeof body.message).toBe('string');
  if (message) expect(body.message).toMatch(message);
  expectRateLimitHeaders(r);
  return body;
}

function expectRateLimitHeaders(r: AppResponse): void {
  expect(r.headers['X-RateLimit-Limit']).toMatch(/^\d+$/);
  expect(r.headers['X-RateLimit-Remaining']).toMatch(/^\d+$/);
  expect(r.headers['X-RateLimit-Reset']).toMatch(/^\d+$/);
  expect(r.headers.Date).toMatch(/GMT$/);
}

eachBackend('route conformance (app.test.ts)', (backend) => {
  const setup = (options: TestAppOptions = {}) => testApp({ backend, ...options });

  describe('paths and prefixes', () => {
    it('health answers under /api/health with status, time and version', async () => {
      const { get, clock } = await setup();
      const r = await get('/api/health', 'key-builder');
      expect(r.status).toBe(200);
      expect(json(r)).toEqual({ status: 'ok', time: clock.t, version: '9.9.9' });
      expect(r.headers.Date).toBe(new Date(clock.t).toUTCString());
      expectRateLimitHeaders(r);
    });

    it.each([
      '/api/v1/markets',
      '/v1/markets',
      '/api/v1/limits',
      '/v1/limits',
      `/api/v1/markets/${btc24(0)}`,
      `/v1/markets/${btc24(0)}`,
      `/api/v1/markets/${btc24(0)}/snapshots`,
      `/v1/markets/${btc24(0)}/snapshots`,
      `/v1/snapshots/at-timestamp?market=${btc24(0)}&ts=${NEWEST_24H}`,
      `/api/v1/snapshots/at-timestamp?market=${btc24(0)}&ts=${NEWEST_24H}`,
    ])('GET %s answers 200', async (url) => {
      const { get } = await setup();
      expect((await get(url, 'key-builder')).status).toBe(200);
    });

    it('an unknown path with a valid key is 404 JSON with the rate-limit headers', async () => {
      const { get } = await setup();
      for (const url of ['/', '/api/v2/markets', '/api/v1/markets/', '/v1/markets//snapshots', '/api/v1/markets/x/y/z', '/%ff']) {
        expectError((await get(url, 'key-builder')), 404, 'Not Found');
      }
    });

    it('non-GET methods get 405 with Allow: GET; HEAD included', async () => {
      const { call } = await setup();
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']) {
        const r = await call(method, '/api/v1/markets', { 'x-api-key': 'key-builder' });
        expectError(r, 405, 'Method Not Allowed', new RegExp(method));
        expect(r.headers.Allow).toBe('GET');
      }
    });
  });

  describe('credentials', () => {
    it('accepts X-API-Key and Authorization: Bearer (scheme case-insensitive), and both when equal', async () => {
      const { get } = await setup();
      expect((await get('/api/v1/limits', 'key-pro')).status).toBe(200);
      expect((await get('/api/v1/limits', undefined, { Authorization: 'Bearer key-pro' })).status).toBe(200);
      expect((await get('/api/v1/limits', undefined, { Authorization: 'bearer   key-pro' })).status).toBe(200);
      expect((await get('/api/v1/limits', 'key-pro', { Authorization: 'Bearer key-pro' })).status).toBe(200);
    });

    it('two different keys: 400', async () => {
      const { get } = await setup();
      expectError((await get('/api/v1/limits', 'key-pro', { Authorization: 'Bearer key-builder' })), 400, 'Bad Request', /different keys/);
    });

    it('missing key: 401 with WWW-Authenticate: Bearer', async () => {
      const { get } = await setup();
      const r = await get('/api/v1/markets');
      expectError(r, 401, 'Unauthorized', /X-API-Key/);
      expect(r.headers['WWW-Authenticate']).toBe('Bearer');
    });

    it('says which: unknown, revoked, expired, trial ended, bad scheme', async () => {
      const { get } = await setup();
      expectError((await get('/api/v1/markets', 'nope')), 401, 'Unauthorized', /^Invalid API key\.$/);
      expectError((await get('/api/v1/markets', 'key-revoked')), 401, 'Unauthorized', /revoked/);
      expectError((await get('/api/v1/markets', 'key-expired')), 401, 'Unauthorized', /expired/);
      expectError((await get('/api/v1/markets', 'key-ended')), 401, 'Unauthorized', /trial .*ended/);
      expectError((await get('/api/v1/markets', undefined, { Authorization: 'Basic a2V5' })), 401, 'Unauthorized', /Bearer/);
      expect((await get('/api/v1/markets', 'key-trial')).status).toBe(200);
    });

    it("records a key's last use at most once a minute, and nothing for a refused key", async () => {
      const { get, clock, store } = await setup({ step: 1000 });
      const lastUse = async (key: string) => (await store.findKeyByHash(hashApiKey(key)))!.lastUsedAt;
      expect(await lastUse('key-pro')).toBeNull();
      expect((await get('/api/v1/limits', 'key-pro')).status).toBe(200);
      const first = clock.t;
      // Written after the answer (never delaying it): wait for it rather than for a time.
      await expect.poll(() => lastUse('key-pro')).toBe(first);
      for (let i = 0; i < 5; i++) await get('/api/v1/limits', 'key-pro');
      expect(await lastUse('key-pro')).toBe(first);
      clock.t = first + 59_000;
      await get('/api/v1/limits', 'key-pro');
      await expect.poll(() => lastUse('key-pro')).toBe(first + 60_000);
      expect((await get('/api/v1/markets', 'key-revoked')).status).toBe(401);
      expect(await lastUse('key-revoked')).toBeNull();
    });

    it('a wrong key sharing a prefix with a real one gets the same answer as any wrong key', async () => {
      const { get } = await setup();
      const near = await get('/api/v1/markets', 'key-builder-3', {}, '10.0.0.2');
      const far = await get('/api/v1/markets', 'zzz', {}, '10.0.0.3');
      expect(near.body).toBe(far.body);
      expect(near.headers['WWW-Authenticate']).toBe(far.headers['WWW-Authenticate']);
    });
  });

  describe('rate limiting', () => {
    it('builder: 12 in one instant, the 13th is 429 with Retry-After 1 and retry_after 1', async () => {
      const { get } = await setup({ step: 0 });
      const rs = await inOrder(13, () => get('/api/health', 'key-builder'));
      rs.slice(0, 12).forEach((r, i) => {
        expect(r.status).toBe(200);
        expect(r.headers['X-RateLimit-Limit']).toBe('250');
        expect(r.headers['X-RateLimit-Remaining']).toBe(String(249 - i));
      });
      const body = expectError(rs[12]!, 429, 'Too Many Requests');
      expect(rs[12]!.headers['Retry-After']).toBe('1');
      expect(body.retry_after).toBe(1);
      expect(rs[12]!.headers['X-RateLimit-Remaining']).toBe('238');
    });

    it('keys of one account have their own limiters; bad keys change no key state', async () => {
      const { get } = await setup({ step: 0 });
      for (let i = 0; i < 12; i++) (await get('/api/health', 'key-builder'));
      expect((await get('/api/health', 'key-builder')).status).toBe(429);
      const before = await get('/api/health', 'key-builder-2');
      expect(before.headers['X-RateLimit-Remaining']).toBe('249');
      for (let i = 0; i < 40; i++) (await get('/api/health', `bad-${i}`));
      expect((await get('/api/health', 'key-builder-2')).headers['X-RateLimit-Remaining']).toBe('248');
    });

    it('requests without a valid key are limited per address (burst 5, 30/min) and carry its headers', async () => {
      const { get } = await setup({ step: 0 });
      const rs = await inOrder(6, (i) => get('/api/health', i % 2 ? 'bad' : undefined, {}, '10.9.9.9'));
      rs.slice(0, 5).forEach((r) => {
        expect(r.status).toBe(401);
        expect(r.headers['X-RateLimit-Limit']).toBe('30');
      });
      expectError(rs[5]!, 429, 'Too Many Requests');
      expect((await get('/api/health', 'bad', {}, '10.9.9.8')).status).toBe(401);
      // The address limit does not touch keys from the same address.
      expect((await get('/api/health', 'key-pro', {}, '10.9.9.9')).status).toBe(200);
    });

    it('enterprise uses the account numbers', async () => {
      const { get } = await setup({ step: 0 });
      const rs = await inOrder(8, () => get('/api/health', 'key-ent'));
      expect(rs[0]!.headers['X-RateLimit-Limit']).toBe('100');
      expect(rs.filter((r) => r.status === 200)).toHaveLength(7);
    });
  });

  describe('check order', () => {
    it('credentials before everything: a bad key on an unknown path or wrong method is 401', async () => {
      const { get, call } = await setup();
      expect((await get('/nope', 'bad')).status).toBe(401);
      expect((await call('POST', '/api/v1/markets', { 'x-api-key': 'bad' })).status).toBe(401);
      expect((await get('/api/v1/markets?coin=zzz')).status).toBe(401);
    });

    it('rate limit before route, method and parameters', async () => {
      const { get, call } = await setup({ step: 0 });
      for (let i = 0; i < 12; i++) (await get('/api/health', 'key-builder'));
      expect((await get('/nope', 'key-builder')).status).toBe(429);
      expect((await call('DELETE', '/api/v1/markets', { 'x-api-key': 'key-builder' })).status).toBe(429);
      expect((await get('/api/v1/markets?coin=zzz', 'key-builder')).status).toBe(429);
    });

    it('route before method, method before parameters, parameters before market and window', async () => {
      const { get, call } = await setup();
      expect((await call('POST', '/nope', { 'x-api-key': 'key-builder' })).status).toBe(404);
      expect((await call('POST', '/api/v1/markets?coin=zzz', { 'x-api-key': 'key-builder' })).status).toBe(405);
      expect((await get('/api/v1/markets/btc-updown-5m-1/snapshots?limit=-1', 'key-builder')).status).toBe(400);
      expect((await get(`/api/v1/markets/${btc24(19)}/snapshots?limit=x`, 'key-builder')).status).toBe(400);
      expect((await get(`/api/v1/markets/${btc24(19)}/snapshots`, 'key-builder')).status).toBe(403);
    });
  });

  describe('parameters', () => {
    it.each([
      ['coin=DOGEZ', /coin must be one of BTC, ETH, SOL/],
      ['coin=xrp', /coin: XRP is coming soon.*BTC, ETH, SOL/],
      ['market_type=2m', /market_type must be one of 5m, 15m, 1hr, 4hr, 24hr/],
      ['status=open', /status must be one of active, resolved/],
      ['limit=abc', /limit must be a positive integer/],
      ['limit=-5', /limit/],
      ['limit=1.5', /limit/],
      ['limit=0', /limit/],
      ['offset=-1', /offset must be an integer/],
      ['offset=1e3', /offset/],
      ['offset=99999999999999999999', /offset/],
      ['coin=', /coin is empty/],
      ['coin', /coin is empty/],
      ['coin=btc&coin=eth', /coin is given 2 times/],
      ['start_time=yesterday', /start_time must be epoch milliseconds or an ISO 8601/],
      ['end_time=2025-13-45', /end_time/],
    ])('markets?%s is 400 naming the parameter', async (query, message) => {
      const { get } = await setup();
      expectError((await get(`/api/v1/markets?${query}`, 'key-pro')), 400, 'Bad Request', message);
    });

    it.each([
      ['include_orderbook=yes', /include_orderbook must be one of true, false, 1, 0/],
      ['limit=', /limit is empty/],
      ['offset=%20', /offset/],
    ])('snapshots?%s is 400', async (query, message) => {
      const { get } = await setup();
      expectError((await get(`/api/v1/markets/${btc24(0)}/snapshots?${query}`, 'key-pro')), 400, 'Bad Request', message);
    });

    it.each([
      ['ts=1', /market is required/],
      [`market=${'x'.repeat(10)}`, /ts is required/],
      [`market=m&ts=-1`, /ts must be an integer/],
      [`market=m&ts=1.5`, /ts/],
      [`market=m&ts=1&timestamp=1`, /only one/],
    ])('at-timestamp?%s is 400', async (query, message) => {
      const { get } = await setup();
      expectError((await get(`/v1/snapshots/at-timestamp?${query}`, 'key-pro')), 400, 'Bad Request', message);
    });

    it('unknown parameters are ignored; values are case-insensitive; a 10 KB value is not echoed back', async () => {
      const { get } = await setup();
      const r = await get('/api/v1/markets?coin=btc&market_type=24HR&status=RESOLVED&foo=bar&foo=baz', 'key-pro');
      expect(r.status).toBe(200);
      expect(json(r).total).toBe(20);
      const long = await get(`/api/v1/markets?coin=${'A'.repeat(7000)}`, 'key-pro');
      expect(long.status).toBe(400);
      expect(long.body.length).toBeLessThan(300);
    });
  });

  describe('markets', () => {
    it('lists newest first with total, limit, offset and defaults', async () => {
      const { get } = await setup();
      const body = json((await get('/api/v1/markets?coin=BTC', 'key-pro'))) as { markets: { start_time: number; coin: string }[] } & Record<string, unknown>;
      expect(body.total).toBe(20);
      expect(body.limit).toBe(100);
      expect(body.offset).toBe(0);
      expect(body.warning).toBeUndefined();
      const starts = body.markets.map((m) => m.start_time);
      expect(starts).toEqual([...starts].sort((a, b) => b - a));
    });

    it('pages with offset and filters by status and time range (ms or ISO)', async () => {
      const { get } = await setup();
      const page = json((await get('/api/v1/markets?coin=btc&limit=5&offset=5', 'key-pro'))) as { markets: { market_id: string }[] };
      expect(page.markets.map((m) => m.market_id)).toEqual([5, 6, 7, 8, 9].map(btc24));
      const active = json((await get('/api/v1/markets?status=active', 'key-pro'))) as { markets: { coin: string; status: string }[]; total: number };
      expect(active.total).toBe(1);
      expect(active.markets[0]!.coin).toBe('ETH');
      const from = new Date(NEWEST_24H - DAY).toISOString();
      const ranged = json((await get(`/api/v1/markets?coin=btc&start_time=${from}&end_time=${NEWEST_24H + 1}`, 'key-pro')));
      expect(ranged.total).toBe(2);
    });

    it('limit above the maximum is clamped to 1000 with a warning', async () => {
      const { get } = await setup();
      const body = json((await get('/api/v1/markets?limit=5000', 'key-pro')));
      expect(body.limit).toBe(1000);
      expect(body.warning).toMatch(/maximum of 1000/);
    });

    it('a builder list holds only in-window markets and total counts them', async () => {
      const { get } = await setup();
      const body = json((await get('/api/v1/markets?coin=btc&limit=1000', 'key-builder'))) as { markets: unknown[]; total: number };
      expect(body.total).toBe(14);
      expect(body.markets).toHaveLength(14);
    });

    it('builder with coin and type: offset + limit past the cap clamps with a warning; offset at the cap is 403', async () => {
      const { get } = await setup();
      const clamped = json((await get('/api/v1/markets?coin=btc&market_type=24hr&offset=10&limit=10', 'key-builder')));
      expect(clamped.limit).toBe(4);
      expect((clamped.markets as unknown[]).length).toBe(4);
      expect(clamped.warning).toMatch(/most recent 14 24hr markets; limit clamped to 4/);
      const r = await get('/api/v1/markets?coin=btc&market_type=24hr&offset=14', 'key-builder');
      expect(expectError(r, 403, 'Forbidden')).toEqual({
        error: 'Forbidden',
        message: 'Your builder plan only includes the most recent 14 24hr markets. Upgrade to Pro for full access.',
        tier: 'builder',
      });
      // Without both filters an offset past the end is just an empty page.
      const empty = json((await get('/api/v1/markets?coin=btc&offset=500', 'key-builder')));
      expect(empty.markets).toEqual([]);
      expect(empty.total).toBe(14);
    });
  });

  describe('one market and its snapshots', () => {
    it('market by id, 404 for unknown or malformed ids', async () => {
      const { get } = await setup();
      // The bare market (the contract's change from { market }), also by slug.
      expect(json((await get(`/api/v1/markets/${btc24(3)}`, 'key-builder'))).market_id).toBe(btc24(3));
      expect(json((await get(`/v1/markets/by-slug/${btc24(3)}`, 'key-builder'))).market_id).toBe(btc24(3));
      expectError((await get('/api/v1/markets/btc-updown-24hr-1', 'key-builder')), 404, 'Not Found', /No market/);
      expectError((await get(`/api/v1/markets/${'%27%20OR%201=1'}/snapshots`, 'key-builder')), 404, 'Not Found');
    });

    it('snapshots: oldest first, paged, total, the market, clamped limit with a warning', async () => {
      const { get } = await setup();
      const body = json((await get(`/api/v1/markets/${btc24(1)}/snapshots?limit=3&offset=2&include_orderbook=1`, 'key-builder')));
      const snaps = body.snapshots as { time: number; market_id: string }[];
      expect(snaps.map((s) => s.time)).toEqual([2, 3, 4].map((k) => NEWEST_24H - DAY + k * 125));
      expect(body.total).toBe(40);
      expect(body.limit).toBe(3);
      expect(body.offset).toBe(2);
      expect((body.market as { market_id: string }).market_id).toBe(btc24(1));
      const clamped = json((await get(`/v1/markets/${btc24(1)}/snapshots?limit=20000`, 'key-builder')));
      expect(clamped.limit).toBe(10_000);
      expect(clamped.warning).toMatch(/maximum of 10000/);
      const ranged = json((await get(`/v1/markets/${btc24(1)}/snapshots?start_time=${NEWEST_24H - DAY + 250}&end_time=${NEWEST_24H - DAY + 1000}`, 'key-builder')));
      expect(ranged.total).toBe(6);
    });

    it('outside the builder window: 403 for the market, its snapshots and at-timestamp; pro reads it', async () => {
      const { get } = await setup();
      const message = 'Your builder plan only includes the most recent 14 24hr markets. Upgrade to Pro for full access.';
      for (const url of [
        `/api/v1/markets/${btc24(14)}`,
        `/api/v1/markets/${btc24(14)}/snapshots`,
        `/v1/snapshots/at-timestamp?market=${btc24(19)}&ts=${NEWEST_24H - 19 * DAY}`,
      ]) {
        expect(expectError((await get(url, 'key-builder')), 403, 'Forbidden')).toEqual({ error: 'Forbidden', message, tier: 'builder' });
        expect((await get(url, 'key-pro')).status).toBe(200);
      }
      expect((await get(`/api/v1/markets/${btc24(13)}/snapshots`, 'key-trial')).status).toBe(200);
    });

    it('formats the cap with a thousands separator (4,100 5m markets)', async () => {
      const { get } = await setup({ more: [{ coin: 'SOL', type: '5m', newestStart: marketStartCovering('5m', T0) - 300_000, count: 4101 }] });
      const oldest = `sol-updown-5m-${(marketStartCovering('5m', T0) - 4101 * 300_000) / 1000}`;
      expect(json((await get(`/api/v1/markets/${oldest}`, 'key-builder'))).message).toBe(
        'Your builder plan only includes the most recent 4,100 5m markets. Upgrade to Pro for full access.',
      );
      expect(json((await get('/api/v1/markets?coin=sol&market_type=5m&limit=1000', 'key-builder'))).total).toBe(4100);
    });
  });

  describe('at-timestamp', () => {
    it('finds the nearest snapshot with delta_ms; timestamp is an alias', async () => {
      const { get } = await setup();
      const start = NEWEST_24H;
      const body = json((await get(`/v1/snapshots/at-timestamp?market=${btc24(0)}&ts=${start + 130}`, 'key-builder')));
      expect(body.market_id).toBe(btc24(0));
      expect(body.ts).toBe(start + 130);
      expect(body.delta_ms).toBe(-5);
      expect((body.snapshot as { time: number }).time).toBe(start + 125);
      const alias = json((await get(`/v1/snapshots/at-timestamp?market=${btc24(0)}&timestamp=${start + 188}`, 'key-builder')));
      expect(alias.delta_ms).toBe(62);
      expect((alias.snapshot as { time: number }).time).toBe(start + 250);
    });

    it('within 2,000 ms or 404', async () => {
      const { get } = await setup();
      const last = NEWEST_24H + 39 * 125;
      expect((await get(`/v1/snapshots/at-timestamp?market=${btc24(0)}&ts=${last + 2000}`, 'key-builder')).status).toBe(200);
      expectError((await get(`/v1/snapshots/at-timestamp?market=${btc24(0)}&ts=${last + 2001}`, 'key-builder')), 404, 'Not Found', /2,000 ms/);
      expectError((await get(`/v1/snapshots/at-timestamp?market=eth-updown-1hr-1&ts=1`, 'key-builder')), 404, 'Not Found', /No market/);
    });
  });

  describe('limits', () => {
    it('reports a builder trial exactly as the contract shapes it, usage matching the headers', async () => {
      const { get } = await setup();
      const r = await get('/api/v1/limits', 'key-trial');
      expect(json(r)).toEqual({
        plan: 'builder',
        trial: { active: true, ends_at: T0 + 2 * DAY },
        rate_limit: { requests_per_minute: 250, burst_per_second: 12 },
        data_window: { '5m': 4100, '15m': 1400, '1hr': 350, '4hr': 85, '24hr': 14 },
        api_keys: { active: 1, max: 3 },
        usage: { remaining: 249, reset: Number(r.headers['X-RateLimit-Reset']) },
      });
      expect(r.headers['X-RateLimit-Remaining']).toBe('249');
    });

    it('pro has no trial and no window; enterprise has its own numbers and unlimited keys', async () => {
      const { get } = await setup();
      const pro = json((await get('/v1/limits', 'key-pro')));
      expect(pro.trial).toBeNull();
      expect(pro.data_window).toBeNull();
      expect(pro.api_keys).toEqual({ active: 1, max: 10 });
      const ent = json((await get('/v1/limits', 'key-ent')));
      expect(ent.rate_limit).toEqual({ requests_per_minute: 100, burst_per_second: 7 });
      expect(ent.api_keys).toEqual({ active: 1, max: null });
    });
  });

  describe('failures', () => {
    it('a URL longer than 8 KiB is 414 JSON', async () => {
      const { get } = await setup();
      expectError((await get(`/api/v1/markets?x=${'a'.repeat(9000)}`, 'key-pro')), 414, 'URI Too Long');
    });

    it('an unexpected exception is 500 JSON without a stack; logged without the query', async () => {
      // `failing` wraps this backend's own store (test-app.ts), so the 500 path runs on every backend.
      const { get, logs } = await setup({ failing: true });
      const r = await get('/api/v1/markets?coin=btc', 'key-pro');
      const body = expectError(r, 500, 'Internal Server Error');
      expect(r.body).not.toMatch(/disk on fire|at .*\.ts|\n/);
      expect(Object.keys(body).sort()).toEqual(['error', 'message']);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(/500 on GET \/api\/v1\/markets: disk on fire/);
      expect(logs[0]).not.toMatch(/key-pro|coin=/);
    });
  });

  describe('malformed input', () => {
    it('2,000 hostile requests: never 500, always JSON with error, message and the rate-limit headers', async () => {
      const { call, logs } = await setup({ step: 500 });
      let seed = 42;
      const rand = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % n;
      };
      const pieces = ['', '/', '//', '..', '%', '%zz', '%00', '\u00e9', '\ud83d\ude00', "'; DROP TABLE markets;--", '../../etc/passwd', 'x'.repeat(3000), '-1', 'NaN', '1e309', '0x10', ' 1', '1.0', '9'.repeat(40)];
      const paths = ['/api/v1/markets', '/v1/markets/', '/api/v1/markets/', '/v1/snapshots/at-timestamp', '/api/health', '/api/v1/limits', '/v1/', ''];
      const params = ['coin', 'market_type', 'status', 'limit', 'offset', 'ts', 'timestamp', 'market', 'include_orderbook', 'start_time', 'end_time'];
      const methods = ['GET', 'GET', 'GET', 'POST', 'HEAD', 'BREW'];
      const auths: Headers[] = [{ 'x-api-key': 'key-pro' }, { authorization: 'Bearer key-pro' }, { authorization: 'Bearer' }, { authorization: 'Basic x' }, { 'x-api-key': '' }, { 'x-api-key': 'key-pro', authorization: 'Bearer other' }, {}];
      for (let i = 0; i < 2000; i++) {
        const pick = <T>(xs: readonly T[]): T => xs[rand(xs.length)]!;
        let url = pick(paths) + pick(pieces) + (rand(2) ? `/${pick(pieces)}` : '') + (rand(3) ? '/snapshots' : '');
        const n = rand(4);
        for (let k = 0; k < n; k++) url += `${k ? '&' : '?'}${pick(params)}=${encodeURIComponent(pick(pieces))}`;
        const r = await call(pick(methods), url, pick(auths), `10.1.${rand(4)}.${rand(4)}`);
        expect(r.status, url).toBeLessThan(500);
        const body = JSON.parse(r.body) as Record<string, unknown>;
        if (r.status >= 400) {
          expect(typeof body.error).toBe('string');
          expect(typeof body.message).toBe('string');
        }
        expectRateLimitHeaders(r);
      }
      expect(logs).toEqual([]);
    });
  });
});
