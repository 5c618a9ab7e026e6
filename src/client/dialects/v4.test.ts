// The client speaking v4 (and choosing it with auto) against undici's MockAgent: what it sends,
// how it maps records and envelopes back to msnap's, and every v4 error code the hosted service
// sends, msnap serve's and the ones only the hosted service has.
import { describe, expect, it } from 'vitest';
import { marketId, type Coin, type MarketType } from '../../domain/market.js';
import { AuthError, HttpError, NotFoundError, UsageError, WindowError } from '../../errors.js';
import type { ClientOptions, MsnapClient } from '../client.js';
import { BASE, JSON_HEADERS, query, T0, useMockService } from '../test-support/mock-service.js';

const mock = useMockService();
const client = (extra: Partial<ClientOptions> = {}): MsnapClient => mock.client({ api: 'v4', ...extra });

const SHORT: Record<MarketType, string> = { '5m': '5m', '15m': '15m', '1hr': '1h', '4hr': '4h', '24hr': '24h' };
const MS: Record<MarketType, number> = { '5m': 300_000, '15m': 900_000, '1hr': 3_600_000, '4hr': 14_400_000, '24hr': 86_400_000 };

/** A market as /v4 sends it: short type, `{coin}_price_*`, no coin, status or snapshot_count. */
function v4Market(coin: Coin, type: MarketType, start: number, winner: 'Up' | 'Down' | null = 'Up'): Record<string, unknown> {
  const c = coin.toLowerCase();
  const id = marketId(coin, type, start);
  return {
    market_id: id,
    slug: id,
    market_type: SHORT[type],
    start_time: start,
    end_time: start + MS[type],
    [`${c}_price_start`]: 100.5,
    [`${c}_price_end`]: winner === null ? null : 101.25,
    winner,
    event_id: null,
    condition_id: null,
  };
}

function envelope(items: number, offset: number, total: number, limit = 100): Record<string, unknown> {
  const hasMore = offset + items < total;
  return { total, limit, offset, count: items, has_more: hasMore, next_offset: hasMore ? offset + items : null, warning: null };
}

/** Answers one GET whose path starts with `prefix`; returns the query strings it saw. */
function answer(prefix: string, status: number, body: unknown, headers: Record<string, string> = {}): URLSearchParams[] {
  const seen: URLSearchParams[] = [];
  mock.agent
    .get(BASE)
    .intercept({ path: (p: string) => p.split('?')[0] === prefix, method: 'GET' })
    .reply((opts) => {
      seen.push(query(opts.path));
      return { statusCode: status, data: JSON.stringify(body), responseOptions: { headers: { ...JSON_HEADERS, ...headers } } };
    });
  return seen;
}

function countAnswer(id: string, total: number): URLSearchParams[] {
  return answer(`/v4/markets/${id}/snapshots`, 200, { market: null, snapshots: [], ...envelope(0, 0, total, 1) });
}

const PLAN_LIMITS = {
  plan_id: 'builder',
  coin: 'btc',
  is_enterprise: false,
  max_history_days: null,
  rate_limits: { max_per_second: 12, max_per_minute: 250 },
  data_window: { '5m': 4100, '15m': 1400, '1h': 350, '4h': 85, '24h': 14 },
};

describe('records and paging', () => {
  it('maps a v4 market back to msnap\'s: 1h is 1hr, eth_price_* is price_*, coin from the request, status derived, snapshot_count counted', async () => {
    const ended = T0 - 2 * MS['1hr'];
    const running = T0 - MS['1hr'] / 2;
    const seen = answer('/v4/markets', 200, {
      markets: [v4Market('ETH', '1hr', running, null), v4Market('ETH', '1hr', ended, null)],
      ...envelope(2, 0, 2),
    });
    countAnswer(marketId('ETH', '1hr', running), 1234);
    countAnswer(marketId('ETH', '1hr', ended), 0);
    const got = [];
    for await (const m of client().markets({ coin: 'ETH', marketType: '1hr', limit: 2 })) got.push(m);
    expect(seen[0]!.get('coin')).toBe('eth');
    expect(seen[0]!.get('market_type')).toBe('1h');
    expect(got).toEqual([
      {
        market_id: marketId('ETH', '1hr', running),
        slug: marketId('ETH', '1hr', running),
        coin: 'ETH',
        market_type: '1hr',
        status: 'active',
        start_time: running,
        end_time: running + MS['1hr'],
        price_start: 100.5,
        price_end: null,
        winner: null,
        snapshot_count: 1234,
      },
      // Ended by the clock with no winner known yet: resolved, as v1 says.
      expect.objectContaining({ status: 'resolved', snapshot_count: 0, price_end: null }),
    ]);
  });

  it('uses a record\'s own snapshot_count (msnap serve\'s extension) and asks a count only for records without one', async () => {
    const a = T0 - 10 * MS['5m'];
    const counted = (start: number, n: number) => ({ ...v4Market('BTC', '5m', start), snapshot_count: n });
    answer('/v4/markets', 200, { markets: [counted(a, 2400), v4Market('BTC', '5m', a - MS['5m']), counted(a - 2 * MS['5m'], 0)], ...envelope(3, 0, 3) });
    // The only count request: an interceptor left unused, or a request without one, fails the test.
    const asked = countAnswer(marketId('BTC', '5m', a - MS['5m']), 17);
    const got = [];
    for await (const m of client().markets({ coin: 'BTC', marketType: '5m', limit: 3 })) got.push(m.snapshot_count);
    expect(got).toEqual([2400, 17, 0]);
    expect(asked).toHaveLength(1);
    // One market by id: the record's count, no second request; without one, a count request.
    answer(`/v4/markets/${marketId('BTC', '5m', a)}`, 200, counted(a, 2400));
    expect((await client().market(marketId('BTC', '5m', a))).snapshot_count).toBe(2400);
    answer(`/v4/markets/${marketId('BTC', '5m', a - MS['5m'])}`, 200, v4Market('BTC', '5m', a - MS['5m']));
    countAnswer(marketId('BTC', '5m', a - MS['5m']), 2399);
    expect((await client().market(marketId('BTC', '5m', a - MS['5m']))).snapshot_count).toBe(2399);
  });

  it('without a coin asks btc, eth and sol and merges them newest first (ties by id descending), offset applied to the merge', async () => {
    const a = T0 - 10 * MS['5m'];
    answer('/v4/markets', 200, { markets: [v4Market('BTC', '5m', a), v4Market('BTC', '5m', a - MS['5m'])], ...envelope(2, 0, 2) });
    answer('/v4/markets', 200, { markets: [v4Market('ETH', '5m', a + MS['5m'])], ...envelope(1, 0, 1) });
    answer('/v4/markets', 200, { markets: [v4Market('SOL', '5m', a)], ...envelope(1, 0, 1) });
    for (const id of [marketId('SOL', '5m', a), marketId('BTC', '5m', a)]) countAnswer(id, 7);
    const ids = [];
    for await (const m of client().markets({ marketType: '5m', offset: 1, max: 2 })) ids.push(`${m.market_id} ${m.coin}`);
    expect(ids).toEqual([`${marketId('SOL', '5m', a)} SOL`, `${marketId('BTC', '5m', a)} BTC`]);
  });

  it('pages snapshots by next_offset while has_more, sends ms times with an inclusive end, maps {coin}_price to price', async () => {
    const id = marketId('SOL', '5m', T0 - MS['5m']);
    const row = (i: number) => ({ id: i, market_id: id, time: T0 - MS['5m'] + i * 125, sol_price: 200 + i, price_up: 0.5, price_down: 0.5 });
    const first = answer(`/v4/markets/${id}/snapshots`, 200, { market: null, snapshots: [row(0), row(1)], ...envelope(2, 0, 3, 2) });
    // has_more is false although total says 3: v4's own word ends the paging.
    answer(`/v4/markets/${id}/snapshots`, 200, { market: null, snapshots: [row(2)], ...envelope(1, 2, 3, 2), has_more: false, next_offset: null });
    const rows = [];
    for await (const s of client({ pacing: false }).snapshots(id, { from: T0 - MS['5m'], to: T0, pageSize: 2 })) rows.push(s);
    expect(rows).toEqual([0, 1, 2].map((i) => ({ id: i, market_id: id, time: T0 - MS['5m'] + i * 125, price: 200 + i, price_up: 0.5, price_down: 0.5 })));
    expect(Object.fromEntries(first[0]!)).toEqual({ coin: 'sol', limit: '2', offset: '0', start_time: String(T0 - MS['5m']), end_time: String(T0 - 1) });
  });

  it('at: /snapshot-at/{ms} with the market\'s coin, delta_ms from the snapshot', async () => {
    const id = marketId('BTC', '5m', T0 - MS['5m']);
    const seen = answer(`/v4/markets/${id}/snapshot-at/${T0 - 1000}`, 200, {
      market: v4Market('BTC', '5m', T0 - MS['5m']),
      snapshots: [{ id: 9, market_id: id, time: T0 - 1125, btc_price: 97000.5, price_up: 0.6, price_down: 0.41 }],
    });
    const at = await client().at(id, T0 - 1000);
    expect(seen[0]!.get('coin')).toBe('btc');
    expect(at).toEqual({
      market_id: id,
      ts: T0 - 1000,
      delta_ms: -125,
      snapshot: { id: 9, market_id: id, time: T0 - 1125, price: 97000.5, price_up: 0.6, price_down: 0.41 },
    });
  });

  it('limits: plan-limits for the plan, rates and window (1h as 1hr), usage from its headers; trial and keys from v1 when it answers', async () => {
    answer('/v4/billing/plan-limits', 200, PLAN_LIMITS, { 'x-ratelimit-limit': '250', 'x-ratelimit-remaining': '249', 'x-ratelimit-reset': '1763769660' });
    answer('/api/v1/limits', 404, { error: 'Not Found', message: 'gone' });
    expect(await client().limits()).toEqual({
      plan: 'builder',
      trial: null,
      rate_limit: { requests_per_minute: 250, burst_per_second: 12 },
      data_window: { '5m': 4100, '15m': 1400, '1hr': 350, '4hr': 85, '24hr': 14 },
      api_keys: null,
      usage: { remaining: 249, reset: 1763769660 },
    });
  });
});

describe('auto', () => {
  it('uses v4 with the hosted service (its /v4/health declares no page sizes), reusing that answer for health()', async () => {
    const health = answer('/v4/health', 200, { status: 'ok', service: 'msnap' }, { date: new Date(T0).toUTCString() });
    const c = client({ api: 'auto', pacing: true });
    expect(await c.api()).toBe('v4');
    expect(await c.health()).toMatchObject({ time: T0, version: 'unknown' });
    expect(health).toHaveLength(1);
    // A multi-page listing learns its limits first, from plan-limits.
    const limits = answer('/v4/billing/plan-limits', 200, PLAN_LIMITS);
    answer('/v4/markets', 200, { markets: [], ...envelope(0, 0, 0) });
    for await (const m of c.markets({ coin: 'BTC', all: true })) expect(m).toBeUndefined();
    expect(limits).toHaveLength(1);
    expect(limits[0]!.get('coin')).toBe('btc');
  });

  it('uses the dialect with the largest snapshot pages when msnap serve declares them (v1 here; v4 on a tie)', async () => {
    answer('/v4/health', 200, { status: 'ok', service: 'msnap', version: '1.2.3', snapshots_page_max: { v1: 10_000, v4: 1000 } });
    const c = client({ api: 'auto' });
    expect(await c.api()).toBe('v1');
    expect((await c.health()).version).toBe('1.2.3');
    answer('/v4/health', 200, { status: 'ok', service: 'msnap', snapshots_page_max: { v1: 1000, v4: 1000 } });
    expect(await client({ api: 'auto' }).api()).toBe('v4');
  });

  it('without a public /v4/health: v4 when plan-limits answers (and paces by it), else v1', async () => {
    answer('/v4/health', 404, { error: 'Not Found' });
    const probe = answer('/v4/billing/plan-limits', 200, PLAN_LIMITS);
    const c = client({ api: 'auto', pacing: true });
    expect(await c.api()).toBe('v4');
    answer('/v4/markets', 200, { markets: [], ...envelope(0, 0, 0) });
    for await (const m of c.markets({ coin: 'BTC', all: true })) expect(m).toBeUndefined();
    expect(probe).toHaveLength(1);

    answer('/v4/health', 404, { error: 'Not Found' });
    answer('/v4/billing/plan-limits', 404, { error: 'Not Found', message: 'No such endpoint.' });
    answer('/api/health', 200, { status: 'ok', time: T0, version: '0.1.0' });
    const old = client({ api: 'auto' });
    expect((await old.health()).version).toBe('0.1.0');
    expect(await old.api()).toBe('v1');
  });

  it('a v1 answering 410 Gone switches the client to v4 for good, with one note', async () => {
    const notes: string[] = [];
    const id = marketId('BTC', '5m', T0 - MS['5m']);
    answer(`/api/v1/markets/${id}`, 410, { error: 'Gone', message: 'v1 is retired' });
    answer(`/v4/markets/${id}`, 200, v4Market('BTC', '5m', T0 - MS['5m']));
    countAnswer(id, 2400);
    const c = client({ api: 'v1', onNote: (n) => notes.push(n) });
    expect(await c.market(id)).toMatchObject({ market_id: id, snapshot_count: 2400 });
    expect(await c.api()).toBe('v4');
    expect(notes).toEqual([`${BASE}/api/v1/markets/${id} answered 410 Gone: the service has retired API v1, so this run speaks v4 (--api v4 skips the v1 attempt)`]);
  });
});

describe('v4 error codes', () => {
  const id = marketId('BTC', '5m', T0 - MS['5m']);
  const path = `/v4/markets/${id}`;
  const body = (code: string, error: string, details: unknown = null) => ({ error, code, request_id: 'req_0123456789ab', details });

  it('402 PLAN_UPGRADE_REQUIRED ends like v1\'s 403: a WindowError (exit 4) with the service\'s sentence and plan', async () => {
    const sentence = 'Your builder plan only includes the most recent 4,100 5m markets. Upgrade to Pro for full access.';
    answer(path, 402, body('PLAN_UPGRADE_REQUIRED', sentence, { current_plan: 'builder', required_plan: 'pro', market_type: '5m', cap: 4100 }));
    const err = await client().market(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WindowError);
    expect(err).toMatchObject({ message: sentence, tier: 'builder', exitCode: 4 });
  });

  for (const code of ['HISTORY_LIMIT_EXCEEDED', 'COIN_NOT_IN_PLAN', 'ENDPOINT_NOT_IN_PLAN']) {
    it(`403 ${code} (hosted only) ends the command with exit 4 and the service's own sentence`, async () => {
      const sentence = `The hosted service says no (${code.toLowerCase()}).`;
      answer(path, 403, body(code, sentence));
      const err = await client().market(id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WindowError);
      expect(err).toMatchObject({ message: sentence, exitCode: 4 });
    });
  }

  for (const [status, code] of [[502, 'UPSTREAM_UNAVAILABLE'], [503, 'DATABASE_UNAVAILABLE']] as const) {
    it(`${status} ${code} is retried like any 5xx, then the answer is used`, async () => {
      answer(path, status, body(code, 'try again'));
      answer(path, 200, v4Market('BTC', '5m', T0 - MS['5m']));
      countAnswer(id, 2400);
      expect(await client().market(id)).toMatchObject({ market_id: id, snapshot_count: 2400 });
      expect(mock.clock.sleeps).toHaveLength(1);
    });

    it(`${status} ${code} still failing after the retries is an HttpError (exit 1) naming the status`, async () => {
      for (let i = 0; i < 3; i++) answer(path, status, body(code, 'still down'));
      const err = await client({ maxRetries: 2 }).market(id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HttpError);
      expect((err as HttpError).message).toContain(`answered ${status}: still down`);
      expect((err as HttpError).exitCode).toBe(1);
    });
  }

  it('429 RATE_LIMIT_BURST waits Retry-After (never less) and tries again', async () => {
    answer(path, 429, body('RATE_LIMIT_BURST', 'Too many requests.', { retry_after: 3, limit: 12, window: 'second' }), { 'retry-after': '3' });
    answer(path, 200, v4Market('BTC', '5m', T0 - MS['5m']));
    countAnswer(id, 2400);
    expect((await client().market(id)).market_id).toBe(id);
    expect(mock.clock.sleeps[0]).toBeGreaterThanOrEqual(3000);
  });

  it('429 without Retry-After waits details.retry_after', async () => {
    answer(path, 429, body('RATE_LIMIT_SUSTAINED', 'Too many requests.', { retry_after: 7, limit: 250, window: 'minute' }));
    answer(path, 200, v4Market('BTC', '5m', T0 - MS['5m']));
    countAnswer(id, 2400);
    await client().market(id);
    expect(mock.clock.sleeps[0]).toBeGreaterThanOrEqual(7000);
  });

  it('INVALID_* is a usage error (exit 2), AUTH_* an auth error (exit 3), MARKET_NOT_FOUND not found (exit 6)', async () => {
    answer(path, 400, body('INVALID_COIN', 'Parameter coin must be one of BTC, ETH, SOL; got "doge".'));
    answer(path, 401, body('AUTH_INVALID', 'Invalid API key.'));
    answer(path, 404, body('MARKET_NOT_FOUND', `No market with id "${id}".`));
    const errs = [];
    for (let i = 0; i < 3; i++) errs.push(await client().market(id).catch((e: unknown) => e));
    expect(errs[0]).toBeInstanceOf(UsageError);
    expect((errs[0] as UsageError).message).toBe('Parameter coin must be one of BTC, ETH, SOL; got "doge".');
    expect(errs[1]).toBeInstanceOf(AuthError);
    expect(errs[2]).toBeInstanceOf(NotFoundError);
    expect(errs.map((e) => (e as { exitCode: number }).exitCode)).toEqual([2, 3, 6]);
  });
});
