// v1's additions to the contract (app.test.ts holds the contract itself), and what every dialect
// shares: one limiter charging each request once, the same data, the same check order.
import { HEALTH_CONFIG } from '../rate-limit.js';
import { describe, expect, it } from 'vitest';
import { eachBackend } from '../../../test/support/each-backend.js';
import { BOOK, body, btc24, DETAILS, ETH_1H, NEWEST_24H, testApp, type TestAppOptions } from '../test-support/test-app.js';

eachBackend('v1 conformance (v1.test.ts)', (backend) => {
  const setup = (options: TestAppOptions = {}) => testApp({ backend, ...options });

  describe('v1 extras', () => {
    it('GET /health answers without a key (one key is not even read), charging the address its health allowance', async () => {
      const { get, clock } = await setup({ step: 0 });
      const r = await get('/health', 'not-a-key');
      expect(r.status).toBe(200);
      expect(body(r)).toEqual({ status: 'ok', timestamp: new Date(clock.t).toISOString(), version: '9.9.9' });
      expect(r.headers['X-RateLimit-Limit']).toBe(String(HEALTH_CONFIG.perMinute));
      for (let i = 0; i < HEALTH_CONFIG.burst - 1; i++) (await get('/health'));
      const limited = await get('/health');
      expect(limited.status).toBe(429);
      expect(body(limited)).toMatchObject({ error: 'Too Many Requests', retry_after: 1 });
      // /api/health stays keyed.
      expect((await get('/api/health', undefined, {}, '10.0.0.2')).status).toBe(401);
    });

    it('the bare market carries the coin prices and the descriptive fields (ms times), by id and by slug', async () => {
      const { get } = await setup();
      const m = body((await get(`/api/v1/markets/${btc24(0)}`, 'key-builder')));
      expect(m).toEqual({
        market_id: btc24(0),
        slug: btc24(0),
        coin: 'BTC',
        market_type: '24hr',
        status: 'resolved',
        start_time: NEWEST_24H,
        end_time: NEWEST_24H + 86_400_000,
        price_start: 100,
        price_end: 101,
        winner: 'Up',
        snapshot_count: 40,
        btc_price_start: 100,
        btc_price_end: 101,
        ...DETAILS,
      });
      expect(body((await get(`/v1/markets/by-slug/${btc24(0)}`, 'key-builder')))).toEqual(m);
      expect(body((await get(`/api/v1/markets/by-slug/${btc24(0)}`, 'key-builder')))).toEqual(m);
      expect(body((await get(`/v1/markets/${ETH_1H}`, 'key-builder')))).toMatchObject({ eth_price_start: 100, event_id: null, status: 'active' });
      expect((await get('/v1/markets/by-slug/nope', 'key-builder')).status).toBe(404);
      expect((await get(`/v1/markets/by-slug/${btc24(14)}`, 'key-builder')).status).toBe(403);
    });

    it('snapshot-at/{time}: ms or ISO, nearest within 2,000 ms, depth with include_orderbook', async () => {
      const { get } = await setup();
      for (const t of [String(NEWEST_24H + 130), new Date(NEWEST_24H + 130).toISOString(), '2025-11-21T00:00:00.130']) {
        const b = body((await get(`/v1/markets/${btc24(0)}/snapshot-at/${t}?include_orderbook=true`, 'key-builder')));
        expect((b.market as { market_id: string }).market_id).toBe(btc24(0));
        expect(b.snapshots).toEqual([expect.objectContaining({ time: NEWEST_24H + 125, price: 101, orderbook_up: BOOK })]);
      }
      const plain = body((await get(`/api/v1/markets/${btc24(0)}/snapshot-at/${NEWEST_24H + 130}`, 'key-builder')));
      expect(Object.keys((plain.snapshots as object[])[0]!)).toEqual(['id', 'market_id', 'time', 'price', 'price_up', 'price_down']);
      expect((await get(`/v1/markets/${btc24(0)}/snapshot-at/${NEWEST_24H - 2001}`, 'key-builder')).status).toBe(404);
      const bad = await get(`/v1/markets/${btc24(0)}/snapshot-at/soon`, 'key-builder');
      expect(bad.status).toBe(400);
      expect(body(bad).message).toMatch(/time must be epoch milliseconds or an ISO 8601 time/);
      expect((await get(`/v1/markets/${btc24(19)}/snapshot-at/${NEWEST_24H}`, 'key-builder')).status).toBe(403);
    });

    it('snapshots carry depth as {price, size} objects', async () => {
      const { get } = await setup();
      const b = body((await get(`/v1/markets/${btc24(0)}/snapshots?include_orderbook=1&limit=2`, 'key-builder')));
      expect((b.snapshots as Record<string, unknown>[])[1]).toMatchObject({ orderbook_up: BOOK, orderbook_down: { bids: [], asks: [{ price: 0.48, size: 1 }] } });
    });

    it('resolved= is status=; 1h, 4h and 24h are market types; contradictions are bad', async () => {
      const { get } = await setup();
      const ids = async (url: string) => (body((await get(url, 'key-pro'))).markets as { market_id: string }[]).map((m) => m.market_id);
      expect((await ids('/v1/markets?coin=eth&resolved=false'))).toEqual([ETH_1H]);
      expect((await ids('/v1/markets?coin=eth&resolved=0&status=active'))).toEqual([ETH_1H]);
      expect((await ids('/v1/markets?coin=eth&market_type=1h&resolved=true'))).toEqual((await ids('/v1/markets?coin=eth&market_type=1hr&status=resolved')));
      expect((await ids('/v1/markets?market_type=24H&limit=2'))).toEqual([btc24(0), btc24(1)]);
      const bad = await get('/v1/markets?status=resolved&resolved=false', 'key-pro');
      expect(bad.status).toBe(400);
      expect(body(bad).message).toMatch(/contradict/);
      expect((await get('/v1/markets?market_type=1d', 'key-pro')).status).toBe(400);
      expect((await get('/v1/markets?resolved=maybe', 'key-pro')).status).toBe(400);
    });
  });

  describe('one core under every dialect', () => {
    it('one limiter: a request is charged once, whatever its dialect', async () => {
      const { get } = await setup({ step: 0 });
      const paths = ['/api/v1/markets', '/v2/markets?coin=btc', '/v4/markets?coin=btc', `/v4/billing/plan-limits?coin=btc`];
      const remaining: number[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await get(paths[i % paths.length]!, 'key-builder');
        expect(r.status).toBe(200);
        remaining.push(Number(r.headers['X-RateLimit-Remaining']));
      }
      expect(remaining).toEqual(Array.from({ length: 12 }, (_, i) => 249 - i));
      for (const path of paths) expect((await get(path, 'key-builder')).status).toBe(429);
    });

    it('the same markets in the same order, and the same snapshots, in every dialect', async () => {
      const { get } = await setup();
      const ids = async (url: string) => (body((await get(url, 'key-builder'))).markets as { market_id: string }[]).map((m) => m.market_id);
      const v1 = await ids('/v1/markets?coin=btc&limit=100');
      expect(v1).toHaveLength(14);
      expect((await ids('/v2/markets?coin=btc&limit=100'))).toEqual(v1);
      expect((await ids('/v4/markets?coin=btc&limit=100'))).toEqual(v1);
      const snaps = async (url: string) => (body((await get(url, 'key-builder'))).snapshots as Record<string, unknown>[]).map((s) => [s.id, Date.parse(String(s.time)) || s.time, s.price ?? s.btc_price, s.price_up]);
      const base = await snaps(`/v1/markets/${btc24(3)}/snapshots?limit=40`);
      expect(base).toHaveLength(40);
      expect((await snaps(`/v2/markets/${btc24(3)}/snapshots?coin=btc&limit=40`))).toEqual(base);
      expect((await snaps(`/v4/markets/${btc24(3)}/snapshots?coin=btc&limit=40`))).toEqual(base);
    });

    it('the same check order: credentials first in every dialect, then the rest', async () => {
      const { get, call } = await setup();
      for (const prefix of ['/v1', '/v2', '/v4']) {
        expect((await get(`${prefix}/nope`, 'bad')).status).toBe(401);
        expect((await call('POST', `${prefix}/nope`, { 'x-api-key': 'key-pro' })).status).toBe(404);
        expect((await call('POST', `${prefix}/markets?coin=zz`, { 'x-api-key': 'key-pro' })).status).toBe(405);
      }
    });
  });
});
