// Paper trading through the app's core over a real SQLite file and a real PostgreSQL, at a data
// clock the test moves (a replay): an order fills on the newest visible snapshot with the numbers
// the backtest engine gives on that snapshot, a resolved market settles once, and malformed
// requests get the v1 error body in the contract's check order, never a 500.
import { afterAll, describe, expect, it } from 'vitest';
import { availableBackends, usePostgres } from '../../../test/support/each-backend.js';
import { runBacktest } from '../../backtest/engine/engine.js';
import { seriesFromSnapshots } from '../../backtest/series/snapshot-series.js';
import type { Market, Snapshot } from '../../domain/market.js';
import { ReplayView } from '../../replay/replay-view.js';
import type { ServerClock } from '../../replay/server-clock.js';
import { createApp, type AppResponse } from '../app.js';
import { openBackendStore, removeBackendFiles } from '../test-support/backends.js';
import { btc24, ETH_1H, NEWEST_24H, T0, type Backend } from '../test-support/test-app.js';
import type { RequestBody } from '../route.js';

const DAY = 86_400_000;
// btc24(0)'s snapshot at +125 holds its book (up: ask 0.53 × 7, bid 0.52 × 120.5; down: ask 0.48 × 1).
const NOW = NEWEST_24H + 200;
const JSON_TYPE = { 'content-type': 'application/json' };

async function paperApp(backend: Backend) {
  const store = await openBackendStore(backend);
  const data = { t: NOW };
  const wall = { t: T0 };
  const clock: ServerClock = { now: () => data.t, read: () => ({ now: data.t, speed: 1, mode: 'replay', until: null }) };
  const app = createApp({ store: new ReplayView(store, clock.now), clock, now: () => (wall.t += 100), version: '9.9.9', log: () => undefined, paper: { startCash: 100, feeRate: 0.07 } });
  const call = (method: string, url: string, headers: Record<string, string>, payload?: RequestBody): Promise<AppResponse> =>
    app.handle({ method, url, headers, remoteAddress: '10.0.0.1', ...(payload ? { payload } : {}) });
  const post = (url: string, body: unknown, key = 'key-pro', headers: Record<string, string> = JSON_TYPE) =>
    call('POST', url, { 'x-api-key': key, ...headers }, { text: typeof body === 'string' ? body : JSON.stringify(body), tooLarge: false });
  const get = (url: string, key = 'key-pro') => call('GET', url, { 'x-api-key': key });
  return { store, data, call, post, get };
}

const json = (r: AppResponse) => JSON.parse(r.body) as Record<string, any>;
const backends = availableBackends('paper trading on every SQL backend (paper.test.ts)').filter((b) => b !== 'memory');

describe.each(backends)('paper trading over %s', (backend: Backend) => {
  if (backend === 'postgres') usePostgres();
  afterAll(removeBackendFiles);

  it('fills on the newest visible snapshot with the numbers the backtest engine gives on it', async () => {
    const { post, get } = await paperApp(backend);
    const r = await post('/v1/paper/orders', { market_id: btc24(0), side: 'up', action: 'buy', shares: 10 });
    expect(r.status).toBe(201);
    const order = json(r).order;
    // The engine, on the snapshot the API shows at the same clock, with the same cash and rate.
    const market = json(await get(`/v1/markets/${btc24(0)}`)) as Market;
    const at = json(await get(`/v1/markets/${btc24(0)}/snapshot-at/${NOW}?include_orderbook=true`));
    const snapshot = at.snapshots[0] as Snapshot;
    expect(snapshot.time).toBe(NEWEST_24H + 125);
    const run = await runBacktest({ name: 'x', side: 'up', size: 10, entry: [{ field: 'price_up', op: '>=', value: 0 }] }, (async function* () {
      yield seriesFromSnapshots(market, [snapshot]);
    })(), { cash: 100, fee_rate: 0.07 });
    const { decided_at: _d, ...trade } = run.trades[0]!;
    expect(order).toEqual({ id: expect.any(Number), status: 'partial', ...trade, created_at: NOW, type: 'market', price: null, rebate: 0, expires_at: null });
    // 7 at 0.53 (all the book has), fee 7 × 0.07 × 0.53 × 0.47 = 0.122059 → 0.12206.
    expect(order).toMatchObject({ shares: 7, vwap: 0.53, fee: 0.12206, cash_after: 96.16794, depth: true, levels: 1, filled_at: NEWEST_24H + 125 });
    expect(json(await get('/v1/paper/account'))).toEqual({
      cash: 96.16794,
      positions: [{ market_id: btc24(0), side: 'up', shares: 7, avg_price: 0.53 }],
      realized_pnl: 0,
      fees: 0.12206,
      reserved_cash: 0,
      rebates: 0,
    });
    // Another key has an account of its own.
    expect(json(await get('/v1/paper/account', 'key-builder'))).toEqual({ cash: 100, positions: [], realized_pnl: 0, fees: 0, reserved_cash: 0, rebates: 0 });
  });

  it('settles once the clock passes the market\'s end, once', async () => {
    const { post, get, data } = await paperApp(backend);
    await post('/v1/paper/orders', { market_id: btc24(0), side: 'up', action: 'buy', shares: 5 });
    await post('/v1/paper/orders', { market_id: btc24(0), side: 'down', action: 'buy', shares: 1 });
    expect(json(await get('/v1/paper/account')).positions).toHaveLength(2);
    data.t = NEWEST_24H + DAY + 1;
    // The market resolved Up: 5 up shares pay 5, the down share 0.
    const account = json(await get('/v1/paper/account'));
    // Fees: 5 × 0.07 × 0.53 × 0.47 = 0.087185 → 0.08719; 1 × 0.07 × 0.48 × 0.52 = 0.017472 → 0.01747.
    const cost = 5 * 0.53 + 0.08719 + 0.48 + 0.01747;
    expect(account.positions).toEqual([]);
    expect(account.cash).toBe(101.76534);
    expect(account.cash).toBeCloseTo(100 - cost + 5, 9);
    expect(account.realized_pnl).toBeCloseTo(5 - 5 * 0.53 - 0.48, 6);
    expect(json(await get('/v1/paper/account'))).toEqual(account);
    const orders = json(await get('/v1/paper/orders?limit=10'));
    expect(orders.total).toBe(4);
    expect(orders.orders.map((o: any) => [o.action, o.side, o.vwap, o.filled_at])).toEqual([
      ['settle', 'down', 0, NEWEST_24H + DAY],
      ['settle', 'up', 1, NEWEST_24H + DAY],
      ['buy', 'down', 0.48, NEWEST_24H + 125],
      ['buy', 'up', 0.53, NEWEST_24H + 125],
    ]);
    expect(orders.orders[0].cash_after).toBe(account.cash);
    // The market is no longer active: an order on it is rejected, and listed.
    const late = json(await post('/v1/paper/orders', { market_id: btc24(0), side: 'up', action: 'buy', shares: 1 })).order;
    expect(late).toMatchObject({ status: 'rejected', reason: 'market_closed', shares: 0, vwap: null, cash_after: account.cash });
    expect(json(await get('/v1/paper/orders?limit=1&offset=1')).orders[0].action).toBe('settle');
  });

  it('resets to the starting cash', async () => {
    const { post, get } = await paperApp(backend);
    await post('/v1/paper/orders', { market_id: btc24(0), side: 'up', action: 'buy', shares: 2 });
    const r = await post('/v1/paper/reset', '', 'key-pro', {});
    expect(r.status).toBe(200);
    expect(json(r)).toEqual({ cash: 100, positions: [], realized_pnl: 0, fees: 0, reserved_cash: 0, rebates: 0 });
    expect(json(await get('/v1/paper/orders'))).toEqual({ orders: [], total: 0, limit: 100, offset: 0 });
  });

  it('answers unknown and unreadable markets as the market endpoints do', async () => {
    const { post } = await paperApp(backend);
    // Not started at the clock's now: unknown.
    expect((await post('/v1/paper/orders', { market_id: ETH_1H, side: 'up', action: 'buy', shares: 1 })).status).toBe(404);
    expect((await post('/v1/paper/orders', { market_id: 'btc-updown-5m-1', side: 'up', action: 'buy', shares: 1 })).status).toBe(404);
    // Outside the builder window.
    expect((await post('/v1/paper/orders', { market_id: btc24(15), side: 'up', action: 'buy', shares: 1 }, 'key-builder')).status).toBe(403);
  });

  it('refuses malformed requests with the v1 error body, in the contract\'s order, never with a 500', async () => {
    const { post, call } = await paperApp(backend);
    const good = { market_id: btc24(0), side: 'up', action: 'buy', shares: 1 };
    const bad: [unknown, number, Record<string, string>?][] = [
      ['', 400],
      ['{', 400],
      ['[]', 400],
      ['null', 400],
      ['"x"', 400],
      ['1e999', 400],
      [{ ...good, shares: 0 }, 400],
      [{ ...good, shares: -1 }, 400],
      [{ ...good, shares: '5' }, 400],
      [{ ...good, shares: 2e9 }, 400],
      [{ ...good, side: 'UP' }, 400],
      [{ ...good, action: 'short' }, 400],
      [{ ...good, market_id: 7 }, 400],
      [{ ...good, market_id: 'x'.repeat(201) }, 400],
      [{ ...good, max_price: 1.5 }, 400],
      [{ ...good, min_price: 0.2 }, 400],
      [{ ...good, max_prize: 0.2 }, 400],
      [`{"market_id":"${btc24(0)}","side":"up","action":"buy","shares":1,"__proto__":{"shares":9}}`, 400],
      [{ side: 'up' }, 400],
      [JSON.stringify(good), 415, {}],
      [JSON.stringify(good), 415, { 'content-type': 'text/plain' }],
      [JSON.stringify(good), 415, { 'content-type': 'application/json; charset=latin1' }],
      [JSON.stringify(good), 201, { 'content-type': 'Application/JSON; charset="UTF-8"' }],
    ];
    for (const [body, status, headers] of bad) {
      const r = await post('/v1/paper/orders', body, 'key-pro', headers ?? JSON_TYPE);
      expect.soft(r.status, JSON.stringify(body)).toBe(status);
      if (status !== 201) expect.soft(Object.keys(json(r)), JSON.stringify(body)).toEqual(['error', 'message']);
    }
    const big = await call('POST', '/v1/paper/orders', { 'x-api-key': 'key-pro', ...JSON_TYPE }, { text: '', tooLarge: true });
    expect(big.status).toBe(413);
    expect(json(big).message).toMatch(/larger than 16384 bytes/);
    // Credentials before the body, the method before the body.
    expect((await call('POST', '/v1/paper/orders', JSON_TYPE, { text: '{', tooLarge: true })).status).toBe(401);
    expect((await post('/v1/paper/orders', '{', 'nope')).status).toBe(401);
    const getReset = await call('GET', '/v1/paper/reset', { 'x-api-key': 'key-pro' });
    expect([getReset.status, getReset.headers.Allow]).toEqual([405, 'POST']);
    const postMarkets = await post('/v1/markets', good);
    expect([postMarkets.status, postMarkets.headers.Allow]).toEqual([405, 'GET']);
    const putOrders = await call('PUT', '/v1/paper/orders', { 'x-api-key': 'key-pro' });
    expect([putOrders.status, putOrders.headers.Allow]).toEqual([405, 'GET, POST']);
    expect((await post('/v1/paper/reset', { cash: 5 })).status).toBe(400);
    expect((await post('/v2/paper/orders', good)).status).toBe(404);
    expect((await call('GET', '/v1/paper/orders?limit=0', { 'x-api-key': 'key-pro' })).status).toBe(400);
  });
});
