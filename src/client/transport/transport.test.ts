// The transport through the client facade: auth headers, retries, error mapping, 429 handling.
import { describe, expect, it } from 'vitest';
import type { MsnapClient, ClientOptions } from '../client.js';
import { AuthError, HttpError, MsnapError, NotFoundError, RateLimitedError, UnreachableError, UsageError, WindowError } from '../../errors.js';
import { DEFAULT_BACKOFF } from './backoff.js';
import { marketId } from '../../domain/market.js';
import { BASE, JSON_HEADERS, KEY, market, T0, useMockService } from '../test-support/mock-service.js';

const mock = useMockService();
const client = (extra: Partial<ClientOptions> = {}): MsnapClient => mock.client(extra);

describe('requests', () => {
  /** One /api/health answer of `data`; the request headers it saw are read after the call. */
  function healthSeeing(data: object, headers?: Record<string, string>): { seen: Record<string, string> } {
    const box = { seen: {} as Record<string, string> };
    mock.agent
      .get(BASE)
      .intercept({ path: '/api/health', method: 'GET' })
      .reply((opts) => {
        box.seen = opts.headers as Record<string, string>;
        return { statusCode: 200, data, ...(headers ? { responseOptions: { headers } } : {}) };
      });
    return box;
  }

  it('sends the key as X-API-Key by default, with accept and user-agent', async () => {
    const box = healthSeeing({ status: 'ok', time: T0, version: '0.1.0' }, JSON_HEADERS);
    const h = await client().health();
    const seen = box.seen;
    expect(h).toMatchObject({ status: 'ok', time: T0, version: '0.1.0' });
    expect(h.rttMs).toBeGreaterThanOrEqual(0);
    expect(seen['x-api-key']).toBe(KEY);
    expect(seen['authorization']).toBeUndefined();
    expect(seen['accept']).toBe('application/json');
    expect(seen['user-agent']).toMatch(/^msnap\/\d+\.\d+\.\d+/);
  });

  it('sends Authorization: Bearer with authScheme bearer', async () => {
    const box = healthSeeing({ status: 'ok', time: '2025-11-22T00:00:00Z', version: '1.2.3' });
    const h = await client({ authScheme: 'bearer' }).health();
    const seen = box.seen;
    expect(seen['authorization']).toBe(`Bearer ${KEY}`);
    expect(seen['x-api-key']).toBeUndefined();
    expect(h.time).toBe(Date.parse('2025-11-22T00:00:00Z'));
  });

  it('fails with AuthError before any request when no key is set', async () => {
    const err = await client({ apiKey: undefined }).market('x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).message).toBe('no API key: set MSNAP_API_KEY, pass --api-key or run msnap keys add');
  });

  it('reports each attempt to onRequest with a URL that holds no key', async () => {
    const seen: { url: string; status: number; attempt: number }[] = [];
    mock.agent.get(BASE).intercept({ path: '/api/v1/markets/x', method: 'GET' }).reply(503, { error: 'Service Unavailable' });
    mock.agent.get(BASE).intercept({ path: '/api/v1/markets/x', method: 'GET' }).reply(200, { market: market(T0) });
    await client({ onRequest: (i) => seen.push(i) }).market('x');
    expect(seen.map((s) => [s.status, s.attempt])).toEqual([
      [503, 1],
      [200, 2],
    ]);
    for (const s of seen) expect(s.url).not.toContain(KEY);
  });
});

describe('error mapping', () => {
  const cases: [number, object, new (...a: never[]) => MsnapError, RegExp, number][] = [
    [400, { error: 'Bad Request', message: 'coin must be one of BTC, ETH, SOL' }, UsageError, /^coin must be one of BTC, ETH, SOL$/, 2],
    [401, { error: 'Unauthorized', message: 'API key revoked' }, AuthError, /API key revoked/, 3],
    [
      403,
      { error: 'Forbidden', message: 'Your builder plan only includes the most recent 4,100 5m markets. Upgrade to Pro for full access.', tier: 'builder' },
      WindowError,
      /most recent 4,100 5m markets/,
      4,
    ],
    [404, { error: 'Not Found', message: 'unknown market btc-updown-5m-1' }, NotFoundError, /unknown market btc-updown-5m-1/, 6],
    [405, { error: 'Method Not Allowed' }, HttpError, /405: Method Not Allowed/, 1],
    [422, { error: 'Unprocessable Entity', message: 'odd' }, HttpError, /422: odd/, 1],
  ];
  for (const [status, body, cls, message, exit] of cases) {
    it(`${status} -> ${cls.name} (exit ${exit}), exactly one request`, async () => {
      let calls = 0;
      mock.agent
        .get(BASE)
        .intercept({ path: '/api/v1/markets/m1', method: 'GET' })
        .reply(() => {
          calls++;
          return { statusCode: status, data: body };
        });
      const err = await client({ maxRetries: 5 }).market('m1').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(cls);
      expect((err as MsnapError).message).toMatch(message);
      expect((err as MsnapError).exitCode).toBe(exit);
      expect(calls).toBe(1);
      expect(mock.clock.sleeps).toEqual([]);
      if (err instanceof WindowError) {
        expect(err.tier).toBe('builder');
        expect(err.hint).toMatch(/upgrade to Pro/i);
      }
      if (err instanceof HttpError) {
        expect(err.status).toBe(status);
        expect(err.url).toBe(`${BASE}/api/v1/markets/m1`);
        expect(err.body).toEqual(body);
      }
    });
  }

  it('uses `error` as the message when the body holds only `error`', async () => {
    mock.agent.get(BASE).intercept({ path: '/api/v1/markets/m1', method: 'GET' }).reply(404, { error: 'market not found' });
    const err = await client().market('m1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe('market not found');
  });

  it('never puts the key in a message, even when the service echoes it', async () => {
    mock.agent
      .get(BASE)
      .intercept({ path: '/api/v1/markets/m1', method: 'GET' })
      .reply(401, { error: 'Unauthorized', message: `unknown key ${KEY}` });
    mock.agent.get(BASE).intercept({ path: '/api/v1/markets/m2', method: 'GET' }).reply(418, `teapot ${KEY}`);
    const e1 = (await client().market('m1').catch((e: unknown) => e)) as HttpError;
    const e2 = (await client().market('m2').catch((e: unknown) => e)) as HttpError;
    for (const e of [e1, e2]) {
      expect(e).toBeInstanceOf(MsnapError);
      expect(`${e.message} ${e.hint ?? ''} ${JSON.stringify(e.body ?? '')} ${e.url ?? ''}`).not.toContain(KEY);
    }
    expect(e1.message).toContain('msk_abcd…');
  });

  it('gives up on 5xx after maxRetries with HttpError keeping the status, sleeps bounded', async () => {
    let calls = 0;
    mock.agent
      .get(BASE)
      .intercept({ path: '/api/v1/markets/m1', method: 'GET' })
      .reply(() => {
        calls++;
        return { statusCode: 502, data: { error: 'Bad Gateway' } };
      })
      .times(4);
    const err = await client({ maxRetries: 3, random: () => 0.999 }).market('m1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(502);
    expect(calls).toBe(4);
    expect(mock.clock.sleeps.length).toBe(3);
    const bound = [0, 1, 2].reduce((s, i) => s + Math.min(DEFAULT_BACKOFF.capMs, DEFAULT_BACKOFF.baseMs * 2 ** i), 0);
    expect(mock.clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(bound);
    // Exponential: each retry may wait longer than the one before.
    expect(mock.clock.sleeps[2]!).toBeGreaterThan(mock.clock.sleeps[0]!);
  });

  it('retries network errors, then succeeds', async () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    // MockAgent matches interceptors in order of definition: the errors come first.
    mock.agent.get(BASE).intercept({ path: '/api/v1/markets/m1', method: 'GET' }).replyWithError(reset).times(2);
    mock.agent.get(BASE).intercept({ path: '/api/v1/markets/m1', method: 'GET' }).reply(200, { market: market(T0) });
    const c = client();
    const m = await c.market('m1');
    expect(m).toMatchObject({ market_id: marketId('BTC', '5m', T0) });
    expect(c.stats()).toMatchObject({ requests: 3, retries: 2 });
    expect(mock.clock.sleeps.length).toBe(2);
  });

  it('fails fast with UnreachableError and a start hint when nothing ever answered on loopback', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8787'), { code: 'ECONNREFUSED' });
    mock.agent.get(BASE).intercept({ path: '/api/health', method: 'GET' }).replyWithError(refused).times(3);
    // With the pacer on: a failed first request must not hold the queue waiting for an answer.
    const err = await client({ maxRetries: 5, pacing: true }).health().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreachableError);
    expect((err as Error).message).toBe(
      'no msnap service at http://127.0.0.1:8787: start one with `msnap serve --demo` or set --base-url / MSNAP_BASE_URL',
    );
    expect((err as UnreachableError).exitCode).toBe(7);
    expect(mock.clock.sleeps.length).toBe(2);
  });

  it('says which host when a remote service is unreachable', async () => {
    const remote = 'http://msnap.invalid';
    const refused = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    mock.agent.get(remote).intercept({ path: '/api/health', method: 'GET' }).replyWithError(refused).times(3);
    const err = await client({ baseUrl: remote }).health().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreachableError);
    expect((err as Error).message).toMatch(/cannot reach the msnap service at http:\/\/msnap.invalid/);
  });
});

describe('429', () => {
  it('waits at least Retry-After, then succeeds', async () => {
    let firstAt = 0;
    let secondAt = 0;
    mock.agent
      .get(BASE)
      .intercept({ path: '/api/v1/markets/m1', method: 'GET' })
      .reply(() => {
        firstAt = mock.clock.t;
        return {
          statusCode: 429,
          data: { error: 'Too Many Requests', message: 'slow down', retry_after: 7 },
          responseOptions: { headers: { 'retry-after': '7', 'x-ratelimit-limit': '250', 'x-ratelimit-remaining': '0' } },
        };
      });
    mock.agent
      .get(BASE)
      .intercept({ path: '/api/v1/markets/m1', method: 'GET' })
      .reply(() => {
        secondAt = mock.clock.t;
        return { statusCode: 200, data: { market: market(T0) } };
      });
    for (const pacing of [true]) {
      const c = client({ pacing, random: () => 0 });
      const m = await c.market('m1');
      expect(m.market_id).toBe(marketId('BTC', '5m', T0));
      expect(secondAt - firstAt).toBeGreaterThanOrEqual(7000);
      expect(c.stats().responses429).toBe(1);
    }
  });

  it('pauses every request of the key, not just the one that got the 429', async () => {
    const times: number[] = [];
    let n = 0;
    mock.agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/api/v1/markets/'), method: 'GET' })
      .reply(() => {
        n++;
        times.push(mock.clock.t);
        if (n === 1) return { statusCode: 429, data: { error: 'Too Many Requests' }, responseOptions: { headers: { 'retry-after': '3' } } };
        return { statusCode: 200, data: { market: market(T0) } };
      })
      .times(3);
    const c = client({ pacing: true, random: () => 0.99 });
    await c.market('a');
    await c.market('b');
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(3000);
    expect(times[2]!).toBeGreaterThanOrEqual(times[0]! + 3000);
  });

  it('gives up with RateLimitedError after maxRateLimitRetries consecutive 429s', async () => {
    mock.agent
      .get(BASE)
      .intercept({ path: '/api/v1/markets/m1', method: 'GET' })
      .reply(429, { error: 'Too Many Requests' }, { headers: { 'retry-after': '1' } })
      .times(4);
    const err = await client({ maxRateLimitRetries: 3 }).market('m1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).exitCode).toBe(5);
    expect(mock.clock.sleeps.length).toBe(3);
    for (const s of mock.clock.sleeps) expect(s).toBeGreaterThanOrEqual(1000);
  });
});

