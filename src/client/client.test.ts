// The client facade: normalised records, snapshot paging, market listings and pacing.
import { describe, expect, it } from 'vitest';
import type { MsnapClient, ClientOptions, WindowEnd } from './client.js';
import { KeyLimiter } from '../ratelimit/key-limiter.js';
import { marketId, type Market, type Snapshot } from '../domain/market.js';
import { BASE, market, query, T0, useMockService } from './test-support/mock-service.js';

const mock = useMockService();
const client = (extra: Partial<ClientOptions> = {}): MsnapClient => mock.client(extra);

describe('normalised responses', () => {
  it('accepts numeric strings, ISO times, btc_price, btc_price_start/end, id instead of market_id', async () => {
    const id = marketId('ETH', '15m', T0);
    mock.agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith(`/api/v1/markets/${id}/snapshots`), method: 'GET' })
      .reply(200, {
        market: {
          id,
          coin: 'eth',
          market_type: '15m',
          start_time: new Date(T0).toISOString(),
          end_time: String(T0 + 900_000),
          btc_price_start: '3100.5',
          btc_price_end: null,
          winner: 'up',
          snapshot_count: '7200',
        },
        snapshots: [
          { time: new Date(T0 + 125).toISOString(), btc_price: '3100.75', price_up: '0.51', price_down: 0.49, id: '7' },
          { id: 8, market_id: id, time: T0 + 250, price: 3101, price_up: 0.5, price_down: 0.5 },
        ],
        total: '2',
        limit: '10000',
        offset: '0',
      });
    const page = await client().snapshotsPage(id, { limit: 10000 });
    expect(Object.keys(page.market!)).toEqual([
      'market_id', 'slug', 'coin', 'market_type', 'status', 'start_time', 'end_time', 'price_start', 'price_end', 'winner', 'snapshot_count',
    ]);
    expect(page.market).toEqual({
      market_id: id, slug: id, coin: 'ETH', market_type: '15m', status: 'active', start_time: T0, end_time: T0 + 900_000,
      price_start: 3100.5, price_end: null, winner: 'Up', snapshot_count: 7200,
    });
    expect(page.page.rows()[0]).toEqual({ id: 7, market_id: id, time: T0 + 125, price: 3100.75, price_up: 0.51, price_down: 0.49 });
    expect(Object.keys(page.page.rows()[0]!)).toEqual(['id', 'market_id', 'time', 'price', 'price_up', 'price_down']);
    expect(page.page.rows()[1]).toEqual({ id: 8, market_id: id, time: T0 + 250, price: 3101, price_up: 0.5, price_down: 0.5 });
    expect(page.total).toBe(2);
  });

  it('passes list warnings to onWarning once per distinct text', async () => {
    const warnings: string[] = [];
    const body = (warning: string) => ({ markets: [market(T0)], total: 1, limit: 1, offset: 0, warning });
    const pool = mock.agent.get(BASE);
    pool.intercept({ path: (p) => p.startsWith('/api/v1/markets?'), method: 'GET' }).reply(200, body('limit clamped to 1000'));
    pool.intercept({ path: (p) => p.startsWith('/api/v1/markets?'), method: 'GET' }).reply(200, body('limit clamped to 1000'));
    pool.intercept({ path: (p) => p.startsWith('/api/v1/markets?'), method: 'GET' }).reply(200, body('other'));
    const c = client({ onWarning: (w) => warnings.push(w) });
    for (let i = 0; i < 3; i++) await c.marketsPage({ limit: 5000 });
    expect(warnings).toEqual(['limit clamped to 1000', 'other']);
  });

  it('sends the contract parameter names', async () => {
    let path = '';
    mock.agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/api/v1/markets?'), method: 'GET' })
      .reply((o) => {
        path = o.path;
        return { statusCode: 200, data: { markets: [], total: 0, limit: 5, offset: 10 } };
      });
    await client().marketsPage({ coin: 'BTC', marketType: '5m', status: 'resolved', limit: 5, offset: 10, startTime: 1, endTime: 2 });
    expect(Object.fromEntries(query(path))).toEqual({
      coin: 'BTC', market_type: '5m', status: 'resolved', limit: '5', offset: '10', start_time: '1', end_time: '2',
    });
  });

  it('at() reads the nearest snapshot', async () => {
    const id = marketId('BTC', '5m', T0);
    mock.agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/v1/snapshots/at-timestamp?'), method: 'GET' })
      .reply((o) => {
        expect(Object.fromEntries(query(o.path))).toEqual({ market: id, ts: String(T0 + 100) });
        return {
          statusCode: 200,
          data: { market_id: id, ts: T0 + 100, delta_ms: 25, snapshot: { id: 1, market_id: id, time: T0 + 125, price: 1, price_up: 0.5, price_down: 0.5 } },
        };
      });
    const r = await client().at(id, T0 + 100);
    expect(r).toEqual({ market_id: id, ts: T0 + 100, delta_ms: 25, snapshot: { id: 1, market_id: id, time: T0 + 125, price: 1, price_up: 0.5, price_down: 0.5 } });
  });
});

describe('snapshots pagination', () => {
  it('with a server that clamps limit to 1000, yields every row once, in order, paging by rows returned', async () => {
    const id = marketId('BTC', '5m', T0);
    const total = 2400;
    const asked: { limit: number; offset: number }[] = [];
    mock.agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith(`/api/v1/markets/${id}/snapshots?`), method: 'GET' })
      .reply((o) => {
        const q = query(o.path);
        const limit = Number(q.get('limit'));
        const offset = Number(q.get('offset'));
        asked.push({ limit, offset });
        const given = Math.min(limit, 1000);
        const rows = [];
        for (let i = offset; i < Math.min(total, offset + given); i++) {
          rows.push({ id: i + 1, market_id: id, time: T0 + i * 125, price: 97_000 + i, price_up: 0.5, price_down: 0.5 });
        }
        return {
          statusCode: 200,
          data: { market: market(T0), snapshots: rows, total, limit: given, offset, ...(limit > 1000 ? { warning: 'limit clamped to 1000' } : {}) },
        };
      })
      .times(3);
    const pages: number[] = [];
    const warnings: string[] = [];
    const c = client({ onWarning: (w) => warnings.push(w) });
    let expected = 0;
    for await (const s of c.snapshots(id, { onPage: (p) => pages.push(p.rows) })) {
      expect(s.time).toBe(T0 + expected * 125);
      expected++;
    }
    expect(expected).toBe(total);
    expect(pages).toEqual([1000, 1000, 400]);
    expect(asked).toEqual([
      { limit: 10000, offset: 0 },
      { limit: 1000, offset: 1000 },
      { limit: 1000, offset: 2000 },
    ]);
    // The clamp answered the export's own page size, and paging by rows returned lost nothing.
    expect(warnings).toEqual([]);
  });

  it('stops at an empty page even if total says more', async () => {
    const id = marketId('BTC', '5m', T0);
    const pool = mock.agent.get(BASE);
    pool
      .intercept({ path: (p) => p.includes('offset=0'), method: 'GET' })
      .reply(200, { snapshots: [{ id: 1, time: T0, price: 1, price_up: 0.5, price_down: 0.5 }], total: 5, limit: 10000, offset: 0 });
    pool.intercept({ path: (p) => p.includes('offset=1'), method: 'GET' }).reply(200, { snapshots: [], total: 5, limit: 10000, offset: 1 });
    const rows = [];
    for await (const s of client().snapshots(id, {})) rows.push(s);
    expect(rows.map((r) => r.market_id)).toEqual([id]);
  });

  it('snapshotPages yields the pages as served (never an empty one), holding the rows snapshots() yields', async () => {
    const id = marketId('BTC', '5m', T0);
    const total = 25;
    mock.agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith(`/api/v1/markets/${id}/snapshots?`), method: 'GET' })
      .reply((o) => {
        const q = query(o.path);
        const offset = Number(q.get('offset'));
        const given = Math.min(Number(q.get('limit')), 10);
        const rows = [];
        for (let i = offset; i < Math.min(total, offset + given); i++) {
          rows.push({ id: i + 1, market_id: id, time: T0 + i * 125, price: 97_000 + i / 3, price_up: 0.5, price_down: 0.5 });
        }
        // The last page says the total grew: the next (empty) page ends the stream.
        return { statusCode: 200, data: { snapshots: rows, total: rows.length === 0 ? total : total + 1, limit: given, offset } };
      })
      .times(8);
    const pages: (readonly Snapshot[])[] = [];
    for await (const page of client().snapshotPages(id, {})) pages.push(page.rows());
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    const rows: Snapshot[] = [];
    for await (const s of client().snapshots(id, {})) rows.push(s);
    expect(rows).toEqual(pages.flat());
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });
});

describe('markets pagination', () => {
  /** A newest-first list whose head grows (and, optionally, loses items) between pages. */
  function driftingService(initial: number, onPage: (page: number, list: Market[]) => void): { served: number } {
    const list: Market[] = [];
    for (let i = initial - 1; i >= 0; i--) list.push(market(T0 + i * 300_000));
    const state = { served: 0 };
    mock.agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/api/v1/markets?'), method: 'GET' })
      .reply((o) => {
        const q = query(o.path);
        const limit = Math.min(Number(q.get('limit') ?? 100), 7);
        const offset = Number(q.get('offset') ?? 0);
        const data = { markets: list.slice(offset, offset + limit), total: list.length, limit, offset };
        state.served++;
        onPage(state.served, list);
        return { statusCode: 200, data };
      })
      .persist();
    return state;
  }

  /** Ids of `markets({ all: true, limit: 7 })` and those of the original newest-first list of `n`. */
  async function listedAndOriginal(n: number): Promise<{ ids: string[]; original: string[] }> {
    const ids: string[] = [];
    for await (const m of client().markets({ all: true, limit: 7 })) ids.push(m.market_id);
    const original = Array.from({ length: n }, (_, i) => marketId('BTC', '5m', T0 + (n - 1 - i) * 300_000));
    return { ids, original };
  }

  it('yields every market exactly once when new ones are prepended between pages', async () => {
    let newest = 49;
    driftingService(50, (_page, list) => {
      // Two new markets appear at the top after every page.
      for (let k = 0; k < 2; k++) list.unshift(market(T0 + ++newest * 300_000));
    });
    const { ids, original } = await listedAndOriginal(50);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(original);
  });

  it('steps back so nothing is skipped when markets vanish above the position', async () => {
    driftingService(40, (page, list) => {
      // A status filter drops the newest three after the first page.
      if (page === 1) list.splice(0, 3);
    });
    const { ids, original } = await listedAndOriginal(40);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(original);
  });

  it('stops at max', async () => {
    const state = driftingService(50, () => undefined);
    const ids: string[] = [];
    for await (const m of client().markets({ max: 10, limit: 7 })) ids.push(m.market_id);
    expect(ids.length).toBe(10);
    expect(state.served).toBe(2);
  });
});

describe('markets listing at a builder window', () => {
  /**
   * A builder list of BTC 5m markets: `cap` of `count` readable, pages of at most `pageMax`;
   * limits past the window or the maximum are clamped with a warning, as the contract says.
   * `shrink` moves the window while we page (new markets pushed old ones out): a 403 on a later page.
   */
  function builderService(opts: { count: number; cap: number; pageMax: number; shrink?: { afterPages: number; cap: number }; noLimits?: boolean }) {
    let cap = opts.cap;
    const list = Array.from({ length: opts.count }, (_, i) => market(T0 - i * 300_000));
    const asked: { offset: number; limit: number }[] = [];
    const pool = mock.agent.get(BASE);
    if (!opts.noLimits) {
      pool
        .intercept({ path: (p) => p.startsWith('/api/v1/limits'), method: 'GET' })
        .reply(200, {
          plan: 'builder', trial: null, rate_limit: { requests_per_minute: 250, burst_per_second: 12 },
          data_window: { '5m': opts.cap, '15m': 1400, '1hr': 350, '4hr': 85, '24hr': 14 }, api_keys: { active: 1, max: 3 },
          usage: null,
        })
        .times(1);
    }
    pool
      .intercept({ path: (p) => p.startsWith('/api/v1/markets?'), method: 'GET' })
      .reply((o) => {
        const q = query(o.path);
        const offset = Number(q.get('offset'));
        let limit = Number(q.get('limit'));
        asked.push({ offset, limit });
        if (opts.shrink && asked.length > opts.shrink.afterPages) cap = opts.shrink.cap;
        if (offset >= cap) {
          return {
            statusCode: 403,
            data: { error: 'Forbidden', message: `Your builder plan only includes the most recent ${cap} 5m markets.`, tier: 'builder' },
          };
        }
        const warnings: string[] = [];
        if (limit > opts.pageMax) {
          warnings.push(`limit ${limit} is above the maximum of ${opts.pageMax}; clamped to ${opts.pageMax}.`);
          limit = opts.pageMax;
        }
        if (offset + limit > cap) {
          limit = cap - offset;
          warnings.push(`Your builder plan only includes the most recent ${cap} 5m markets; limit clamped to ${limit}.`);
        }
        const data = {
          markets: list.slice(offset, offset + limit),
          total: cap,
          limit,
          offset,
          ...(warnings.length > 0 ? { warning: warnings.join(' ') } : {}),
        };
        return { statusCode: 200, data };
      })
      .persist();
    return { asked };
  }

  function listing(extra: Partial<ClientOptions>, q: Parameters<MsnapClient['markets']>[0]) {
    const warnings: string[] = [];
    const c = client({ pacing: true, onWarning: (w) => warnings.push(w), ...extra });
    const ids: string[] = [];
    return {
      warnings,
      ids,
      run: async () => {
        for await (const m of c.markets(q)) ids.push(m.market_id);
      },
    };
  }

  it('all: the last page cut by the window reaches onWindowEnd with the plan and cap, not as a warning', async () => {
    const svc = builderService({ count: 250, cap: 205, pageMax: 1000 });
    const ends: WindowEnd[] = [];
    const l = listing({}, { coin: 'BTC', marketType: '5m', all: true, limit: 100, onWindowEnd: (e) => ends.push(e) });
    await l.run();
    expect(l.ids).toHaveLength(205);
    expect(svc.asked.at(-1)).toEqual({ offset: 198, limit: 100 });
    expect(l.warnings).toEqual([]);
    expect(ends).toEqual([
      { message: 'Your builder plan only includes the most recent 205 5m markets; limit clamped to 7.', plan: 'builder', cap: 205, marketType: '5m' },
    ]);
  });

  it('all: a 403 on a later page (the window shrank) also ends at the window', async () => {
    const svc = builderService({ count: 250, cap: 205, pageMax: 1000, shrink: { afterPages: 2, cap: 190 } });
    const ends: WindowEnd[] = [];
    const l = listing({}, { coin: 'BTC', marketType: '5m', all: true, limit: 100, onWindowEnd: (e) => ends.push(e) });
    await l.run();
    expect(svc.asked.at(-1)).toEqual({ offset: 198, limit: 100 });
    expect(l.ids).toHaveLength(199);
    expect(l.warnings).toEqual([]);
    expect(ends).toEqual([{ message: 'Your builder plan only includes the most recent 190 5m markets.', plan: 'builder', cap: 205, marketType: '5m' }]);
  });

  it('all without onWindowEnd: the window warning is still reported, once', async () => {
    builderService({ count: 250, cap: 205, pageMax: 1000 });
    const l = listing({}, { coin: 'BTC', marketType: '5m', all: true, limit: 100 });
    await l.run();
    expect(l.warnings).toEqual(['Your builder plan only includes the most recent 205 5m markets; limit clamped to 7.']);
  });

  it('a max beyond the window keeps the warning that answers it', async () => {
    builderService({ count: 250, cap: 205, pageMax: 1000 });
    const l = listing({}, { coin: 'BTC', marketType: '5m', max: 230 });
    await l.run();
    expect(l.ids).toHaveLength(205);
    // In the caller's terms (its max, what it got), not the last page's own clamp.
    expect(l.warnings).toEqual(['limit 230 clamped to 205: your builder plan only includes the most recent 205 5m markets']);
  });

  it('clamps of our own page size are dropped when everything asked for arrives', async () => {
    const svc = builderService({ count: 250, cap: 250, pageMax: 100 });
    const l = listing({}, { coin: 'BTC', marketType: '5m', max: 150 });
    await l.run();
    expect(l.ids).toHaveLength(150);
    expect(svc.asked[0]).toEqual({ offset: 0, limit: 150 });
    expect(svc.asked).toHaveLength(2);
    expect(l.warnings).toEqual([]);
  });

  it('a single page the service clamps still reports its warning', async () => {
    builderService({ count: 250, cap: 205, pageMax: 1000, noLimits: true });
    const l = listing({}, { coin: 'BTC', marketType: '5m', offset: 200, max: 10 });
    await l.run();
    expect(l.ids).toHaveLength(5);
    expect(l.warnings).toEqual(['Your builder plan only includes the most recent 205 5m markets; limit clamped to 5.']);
  });
});

describe('pacing', () => {
  /** A service that runs the server's own limiter on arrival times and answers 429 when it says no. */
  function limitedService(perMinute: number, burst: number, latency: () => number) {
    const limiter = new KeyLimiter({ perMinute, burst }, mock.clock.t);
    const admitted: number[] = [];
    let rejected = 0;
    const id = marketId('BTC', '5m', T0);
    const pool = mock.agent.get(BASE);
    const headers = (d: ReturnType<KeyLimiter['take']>) => ({
      'x-ratelimit-limit': String(d.limit),
      'x-ratelimit-remaining': String(d.remaining),
      'x-ratelimit-reset': String(d.resetSec),
      date: new Date(mock.clock.t).toUTCString(),
      ...(d.admitted ? {} : { 'retry-after': String(d.retryAfterSec) }),
    });
    pool
      .intercept({ path: (p) => p.startsWith('/'), method: 'GET' })
      .reply((o) => {
        mock.clock.t += latency(); // request leg
        const d = limiter.take(mock.clock.t);
        const h = headers(d);
        let data: object;
        if (!d.admitted) {
          rejected++;
          data = { error: 'Too Many Requests', retry_after: d.retryAfterSec };
        } else {
          admitted.push(mock.clock.t);
          if (o.path.startsWith('/api/v1/limits')) {
            data = {
              plan: 'builder', trial: null, rate_limit: { requests_per_minute: perMinute, burst_per_second: burst },
              data_window: null, api_keys: { active: 1, max: 3 }, usage: { remaining: d.remaining, reset: d.resetSec },
            };
          } else {
            const offset = Number(query(o.path).get('offset'));
            data = { snapshots: [{ id: offset + 1, time: T0 + offset * 125, price: 1, price_up: 0.5, price_down: 0.5 }], total: 600, limit: 1, offset };
          }
        }
        mock.clock.t += latency(); // response leg
        return { statusCode: d.admitted ? 200 : 429, data, responseOptions: { headers: h } };
      })
      .persist();
    return { admitted, rejected: () => rejected, id };
  }

  /** Earliest possible admission times of n requests under both limits (greedy is optimal). */
  function theoreticalMs(n: number, perMinute: number, burst: number): number {
    const l = new KeyLimiter({ perMinute, burst }, 0);
    let t = 0;
    for (let i = 0; i < n; i++) {
      for (;;) {
        const d = l.take(t);
        if (d.admitted) break;
        t += d.waitMs;
      }
    }
    return t;
  }

  function bucketViolations(times: number[], burst: number, perSecond: number): number {
    let bad = 0;
    for (let j = 0; j < times.length; j++) {
      for (let i = Math.max(0, j - 3 * burst); i < j; i++) {
        if (j - i + 1 > burst + ((times[j]! - times[i]!) * perSecond) / 1000 + 1e-9) bad++;
      }
    }
    return bad;
  }

  function maxInWindow(times: number[], windowMs: number): number {
    let best = 0;
    let lo = 0;
    for (let hi = 0; hi < times.length; hi++) {
      while (times[hi]! - times[lo]! >= windowMs) lo++;
      best = Math.max(best, hi - lo + 1);
    }
    return best;
  }

  it('600 requests on builder: no 429, bucket never overdrawn, every 60 s window <= 250, within 5% of the minimum', async () => {
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const svc = limitedService(250, 12, () => Math.floor(rand() * 15));
    const c = client({ pacing: true, random: rand });
    const start = mock.clock.t;
    let rows = 0;
    for await (const _ of c.snapshots(svc.id, { pageSize: 1 })) rows++;
    const elapsed = mock.clock.t - start;
    expect(rows).toBe(600);
    expect(svc.rejected()).toBe(0);
    expect(c.stats().responses429).toBe(0);
    const n = svc.admitted.length; // 600 pages + the /limits call
    expect(n).toBe(601);
    // Sliding windows over arrival times, as the server counts them (1 s bucket = burst over any second).
    expect(maxInWindow(svc.admitted, 60_000)).toBeLessThanOrEqual(250);
    // The burst limit is a token bucket, so the exact check is its inequality over every pair:
    // requests i..j fit in burst + (t_j - t_i) * rate. (Any 1 s window may hold up to 2 x burst.)
    expect(bucketViolations(svc.admitted, 12, 12)).toBe(0);
    expect(maxInWindow(svc.admitted, 1000)).toBeLessThanOrEqual(2 * 12);
    const minimum = theoreticalMs(n, 250, 12);
    console.log(`pacing: ${n} requests, ${elapsed} ms simulated, minimum ${minimum} ms, ratio ${(elapsed / minimum).toFixed(4)}, max per 1 s ${maxInWindow(svc.admitted, 1000)}`);
    expect(elapsed / minimum).toBeLessThanOrEqual(1.05);
    expect(elapsed / minimum).toBeGreaterThanOrEqual(1);
  });

  /**
   * A service with the server's own limiter that pages markets like the hosted one (at most 100
   * a page) and holds `count` markets of 3 snapshots; request legs take `legs[i % legs.length]` ms.
   */
  function enterpriseService(perMinute: number, burst: number, count: number, legs: number[]) {
    const limiter = new KeyLimiter({ perMinute, burst }, mock.clock.t);
    const admitted: number[] = [];
    const paths: string[] = [];
    let rejected = 0;
    let n = 0;
    const list = Array.from({ length: count }, (_, i) => market(T0 - i * 300_000, { snapshot_count: 3 }));
    mock.agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/'), method: 'GET' })
      .reply((o) => {
        mock.clock.t += legs[n++ % legs.length]!;
        const d = limiter.take(mock.clock.t);
        const headers = {
          'x-ratelimit-limit': String(d.limit),
          'x-ratelimit-remaining': String(d.remaining),
          'x-ratelimit-reset': String(d.resetSec),
          date: new Date(mock.clock.t).toUTCString(),
          ...(d.admitted ? {} : { 'retry-after': String(d.retryAfterSec) }),
        };
        paths.push(`${d.admitted ? 200 : 429} ${o.path}`);
        if (!d.admitted) {
          rejected++;
          return { statusCode: 429, data: { error: 'Too Many Requests', retry_after: d.retryAfterSec }, responseOptions: { headers } };
        }
        admitted.push(mock.clock.t);
        const q = query(o.path);
        let data: object;
        if (o.path.startsWith('/api/v1/limits')) {
          data = {
            plan: 'enterprise', trial: null, rate_limit: { requests_per_minute: perMinute, burst_per_second: burst },
            data_window: null, api_keys: { active: 1, max: null }, usage: { remaining: d.remaining, reset: d.resetSec },
          };
        } else if (o.path.startsWith('/api/v1/markets?')) {
          const limit = Math.min(Number(q.get('limit') ?? 100), 100);
          const offset = Number(q.get('offset') ?? 0);
          data = { markets: list.slice(offset, offset + limit), total: list.length, limit, offset };
        } else {
          const id = decodeURIComponent(o.path.split('/')[4]!);
          const start = Number(id.split('-').pop()) * 1000;
          const snaps = [0, 1, 2].map((i) => ({ id: i + 1, time: start + i * 125, price: 1, price_up: 0.5, price_down: 0.5 }));
          data = { snapshots: snaps, total: 3, limit: Number(q.get('limit')), offset: 0 };
        }
        return { statusCode: 200, data, responseOptions: { headers } };
      })
      .persist();
    return { admitted, paths, rejected: () => rejected };
  }

  // Request legs that alternate slow and fast: the arrival gaps shrink by up to 20 ms.
  const JITTER = [0, 20];

  it.each([1, 2, 3])(
    'enterprise 60/min, burst %i: `snapshots BTC 5m --last 2` (list, then two exports) sees no 429',
    async (burst) => {
      const svc = enterpriseService(60, burst, 5, JITTER);
      const c = client({ pacing: true });
      const picked: Market[] = [];
      for await (const m of c.markets({ coin: 'BTC', marketType: '5m', all: true })) {
        picked.push(m);
        if (picked.length === 2) break;
      }
      let rows = 0;
      for (const m of picked) for await (const _ of c.snapshots(m.market_id, {})) rows++;
      expect(rows).toBe(6);
      expect(svc.paths[0]).toMatch(/^200 \/api\/v1\/limits/);
      expect(svc.paths.filter((p) => p.includes('/limits'))).toHaveLength(1);
      expect(svc.rejected()).toBe(0);
      expect(c.stats().responses429).toBe(0);
      expect(bucketViolations(svc.admitted, burst, burst)).toBe(0);
    },
  );

  it.each([1, 2, 3])('enterprise 60/min, burst %i: 250 markets over 100-market pages see no 429', async (burst) => {
    const svc = enterpriseService(60, burst, 300, JITTER);
    const c = client({ pacing: true });
    let n = 0;
    for await (const _ of c.markets({ coin: 'BTC', marketType: '5m', max: 250 })) n++;
    expect(n).toBe(250);
    // The limits come first: no request is paced on a guess.
    expect(svc.paths[0]).toMatch(/^200 \/api\/v1\/limits/);
    expect(svc.rejected()).toBe(0);
    expect(bucketViolations(svc.admitted, burst, burst)).toBe(0);
  });

  it('with no latency at all the pacer still never trips the server', async () => {
    const svc = limitedService(30, 5, () => 0);
    const c = client({ pacing: true });
    let rows = 0;
    for await (const _ of c.snapshots(svc.id, { pageSize: 1 })) {
      if (++rows === 100) break;
    }
    expect(svc.rejected()).toBe(0);
    expect(maxInWindow(svc.admitted, 60_000)).toBeLessThanOrEqual(30);
  });
});
