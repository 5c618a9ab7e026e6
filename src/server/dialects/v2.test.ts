// v2 conformance over the socket-less core: required coin, ISO times, {coin}_price fields, and
// FastAPI-style error bodies (422 per bad parameter, 402 for the window).
import { describe, expect, it } from 'vitest';
import type { AppResponse } from '../app.js';
import { eachBackend } from '../../../test/support/each-backend.js';
import { BOOK, body, btc24, DETAILS, ETH_1H, NEWEST_24H, testApp, type TestAppOptions } from '../test-support/test-app.js';

const iso = (ms: number) => new Date(ms).toISOString();

function detail(r: AppResponse, status: number): unknown {
  expect(r.status).toBe(status);
  const b = body(r);
  expect(Object.keys(b)[0]).toBe('detail');
  expect(r.headers['X-Request-Id']).toBeUndefined();
  return b.detail;
}

eachBackend('v2 conformance (v2.test.ts)', (backend) => {
  const setup = (options: TestAppOptions = {}) => testApp({ backend, ...options });

  describe('v2 records', () => {
    it('markets: ISO times, long types, coin prices and details; the contract envelope', async () => {
      const { get } = await setup();
      const b = body((await get('/v2/markets?coin=btc&limit=2', 'key-pro')));
      expect(Object.keys(b)).toEqual(['markets', 'total', 'limit', 'offset']);
      expect(b).toMatchObject({ total: 20, limit: 2, offset: 0 });
      expect((b.markets as unknown[])[0]).toEqual({
        market_id: btc24(0),
        slug: btc24(0),
        market_type: '24hr',
        start_time: iso(NEWEST_24H),
        end_time: iso(NEWEST_24H + 86_400_000),
        btc_price_start: 100,
        btc_price_end: 101,
        winner: 'Up',
        ...DETAILS,
        resolved_at: iso(DETAILS.resolved_at),
        created_at: iso(DETAILS.created_at),
        updated_at: iso(DETAILS.updated_at),
      });
      const eth = body((await get(`/v2/markets/${ETH_1H}?coin=eth`, 'key-pro')));
      expect(eth).toMatchObject({ market_type: '1hr', eth_price_start: 100, event_id: null, resolved_at: null });
      expect(body((await get(`/v2/markets/by-slug/${ETH_1H}?coin=ETH`, 'key-pro')))).toEqual(eth);
    });

    it('lists: default 50, max 100 with a warning; ISO or ms input, end exclusive; 1h and resolved', async () => {
      const { get } = await setup();
      expect(body((await get('/v2/markets?coin=btc', 'key-pro'))).limit).toBe(50);
      const clamped = body((await get('/v2/markets?coin=btc&limit=101', 'key-pro')));
      expect([clamped.limit, clamped.warning]).toEqual([100, expect.stringMatching(/maximum of 100/)]);
      const ids = async (url: string) => (body((await get(url, 'key-pro'))).markets as { market_id: string }[]).map((m) => m.market_id);
      const from = iso(NEWEST_24H - 2 * 86_400_000);
      expect((await ids(`/v2/markets?coin=btc&start_time=${from}&end_time=${iso(NEWEST_24H)}`))).toEqual([btc24(1), btc24(2)]);
      expect((await ids(`/v2/markets?coin=btc&start_time=${NEWEST_24H}`))).toEqual([btc24(0)]);
      expect((await ids(`/v2/markets?coin=eth&market_type=1h&resolved=false`))).toEqual([ETH_1H]);
    });

    it('snapshots: btc_price and ISO times that Date.parse reads back to v1 times; depth as {price, size}', async () => {
      const { get } = await setup();
      const v2 = body((await get(`/v2/markets/${btc24(0)}/snapshots?coin=btc&include_orderbook=true&limit=3&offset=0`, 'key-builder')));
      const v1 = body((await get(`/api/v1/markets/${btc24(0)}/snapshots?include_orderbook=true&limit=3`, 'key-builder')));
      expect(Object.keys(v2)).toEqual(['market', 'snapshots', 'total', 'limit', 'offset']);
      const s2 = v2.snapshots as Record<string, unknown>[];
      const s1 = v1.snapshots as Record<string, unknown>[];
      expect(s2.map((s) => Date.parse(s.time as string))).toEqual(s1.map((s) => s.time));
      expect(s2.map((s) => s.btc_price)).toEqual(s1.map((s) => s.price));
      expect(s2[1]!.orderbook_up).toEqual(BOOK);
      expect(s2[0]!.price).toBeUndefined();
      expect(body((await get(`/v2/markets/${btc24(0)}/snapshots?coin=btc`, 'key-builder'))).limit).toBe(100);
    });

    it('snapshot-at takes ISO or ms in the path', async () => {
      const { get } = await setup();
      for (const t of [iso(NEWEST_24H + 250), String(NEWEST_24H + 250)]) {
        const b = body((await get(`/v2/markets/${btc24(0)}/snapshot-at/${encodeURIComponent(t)}?coin=btc`, 'key-builder')));
        expect((b.snapshots as { time: string }[]).map((s) => s.time)).toEqual([iso(NEWEST_24H + 250)]);
      }
    });
  });

  describe('v2 errors', () => {
    it('422: one item per bad parameter, missing or value_error, query or path', async () => {
      const { get } = await setup();
      expect(detail((await get('/v2/markets', 'key-pro')), 422)).toEqual([
        { loc: ['query', 'coin'], msg: expect.stringMatching(/coin is required/), type: 'missing' },
      ]);
      expect(detail((await get('/v2/markets?coin=doge&limit=0&start_time=soon', 'key-pro')), 422)).toEqual([
        { loc: ['query', 'coin'], msg: expect.stringMatching(/BTC, ETH, SOL/), type: 'value_error' },
        { loc: ['query', 'limit'], msg: expect.stringMatching(/limit/), type: 'value_error' },
        { loc: ['query', 'start_time'], msg: expect.stringMatching(/ISO 8601/), type: 'value_error' },
      ]);
      expect(detail((await get(`/v2/markets/${btc24(0)}/snapshot-at/later?coin=btc`, 'key-pro')), 422)).toEqual([
        { loc: ['path', 'time'], msg: expect.stringMatching(/time/), type: 'value_error' },
      ]);
      expect(detail((await get('/v2/markets?coin=btc&resolved=yes', 'key-pro')), 422)).toHaveLength(1);
    });

    it('401, 400, 404, 405, 429 as {detail}; 429 also as error', async () => {
      const { get, call } = await setup({ step: 0 });
      const missing = await get('/v2/markets?coin=btc');
      expect(detail(missing, 401)).toMatch(/API key is required/);
      expect(missing.headers['WWW-Authenticate']).toBe('Bearer');
      expect(detail((await get('/v2/markets?coin=btc', 'key-expired')), 401)).toMatch(/expired/);
      expect(detail((await get('/v2/markets?coin=btc', 'key-pro', { Authorization: 'Bearer key-builder' })), 400)).toMatch(/different keys/);
      expect(detail((await get('/v2/nope', 'key-pro')), 404)).toBe('Not Found');
      expect(detail((await get('/v2/markets/btc-updown-5m-1?coin=btc', 'key-pro')), 404)).toMatch(/No market/);
      expect(detail((await get(`/v2/markets/${btc24(0)}?coin=eth`, 'key-pro')), 404)).toMatch(/No market of coin ETH/);
      expect(detail((await get(`/v2/markets/${btc24(0)}/snapshot-at/${NEWEST_24H - 2001}?coin=btc`, 'key-pro')), 404)).toMatch(/2,000 ms/);
      const post = await call('POST', '/v2/markets?coin=btc', { 'x-api-key': 'key-pro' });
      expect(detail(post, 405)).toBe('Method Not Allowed');
      expect(post.headers.Allow).toBe('GET');
      for (let i = 0; i < 12; i++) (await get('/v2/markets?coin=btc', 'key-builder'));
      const limited = await get('/v2/markets?coin=btc', 'key-builder');
      const b = JSON.parse(limited.body);
      expect(limited.status).toBe(429);
      expect(b.detail).toMatch(/Rate limit exceeded/);
      expect(b.error).toBe(b.detail);
      expect(limited.headers['Retry-After']).toBe('1');
    });

    it('402 for the builder window, 500 without internals', async () => {
      const { get } = await setup();
      expect(detail((await get(`/v2/markets/${btc24(14)}?coin=btc`, 'key-builder')), 402)).toEqual({
        error: 'upgrade_required',
        message: expect.stringMatching(/most recent 14 24hr markets/),
        current_plan: 'builder',
      });
      // `failing` wraps this backend's own store (test-app.ts), so the 500 path runs on every backend.
      const failing = await setup({ failing: true });
      const r = await failing.get('/v2/markets?coin=btc', 'key-pro');
      expect(detail(r, 500)).toMatch(/unexpected error/);
      expect(r.body).not.toMatch(/disk/);
    });
  });
});
