// Paper trading through the client (the hosted service's absence is a MockAgent): the order goes out
// as JSON once, never again after a 5xx or a dropped answer; a 429 (refused before anything ran) is
// sent again; a server without paper trading is one clear NotFoundError; bodies are checked.
import { describe, expect, it } from 'vitest';
import { HttpError, NotFoundError, UsageError } from '../../errors.js';
import { BASE, JSON_HEADERS, KEY, T0, useMockService } from '../test-support/mock-service.js';

const mock = useMockService();
const paper = () => mock.client({ maxRetries: 3 }).capabilities().paper!;

const ORDER = { market_id: 'btc-updown-5m-1763769600', side: 'up', action: 'buy', shares: 10, max_price: 0.6 } as const;
const FILLED = {
  id: 7, status: 'filled', market_id: ORDER.market_id, side: 'up', action: 'buy', shares_requested: 10, shares: 10,
  vwap: 0.55, fee: 0.17, filled_at: T0, depth: true, levels: 2, cash_after: 994.33, fee_shares: 0, type: 'market' as const, price: null, rebate: 0, expires_at: null,
};

describe('PaperClient', () => {
  it('posts the order as JSON with the key, once, and reads the order back', async () => {
    let seen: { body: unknown; headers: Record<string, string> } | undefined;
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders', method: 'POST' }).reply((opts) => {
      seen = { body: JSON.parse(String(opts.body)), headers: opts.headers as Record<string, string> };
      return { statusCode: 201, data: { order: FILLED }, responseOptions: { headers: JSON_HEADERS } };
    });
    expect(await paper().order(ORDER)).toEqual(FILLED);
    expect(seen?.body).toEqual(ORDER);
    expect(seen?.headers['x-api-key']).toBe(KEY);
    expect(seen?.headers['content-type']).toBe('application/json');
  });

  it('never sends an order twice after a 5xx or a reset connection, but does after a 429', async () => {
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders', method: 'POST' }).reply(503, { error: 'Service Unavailable', message: 'store down' });
    await expect(paper().order(ORDER)).rejects.toBeInstanceOf(HttpError);
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders', method: 'POST' }).replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await expect(paper().order(ORDER)).rejects.toThrow(/127\.0\.0\.1/);
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders', method: 'POST' }).reply(429, { error: 'Too Many Requests', message: 'slow down' }, { headers: { 'retry-after': '1' } });
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders', method: 'POST' }).reply(201, { order: FILLED }, { headers: JSON_HEADERS });
    expect((await paper().order(ORDER)).id).toBe(7);
    // assertNoPendingInterceptors (afterEach) proves no further attempt was needed or made.
  });

  it('says a server has no paper trading when the path is unknown, and passes market errors on', async () => {
    mock.agent.get(BASE).intercept({ path: '/v1/paper/account', method: 'GET' }).reply(404, { error: 'Not Found', message: 'No such endpoint; see /api/v1/markets.' });
    const err = await paper().account().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe(`${BASE} has no paper trading: it is an msnap serve extension (docs/bots.md), the hosted service has none`);
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders', method: 'POST' }).reply(404, { error: 'Not Found', message: "No market with id 'btc-updown-5m-1763769600'." });
    await expect(paper().order(ORDER)).rejects.toThrow(/No market with id 'btc-updown-5m-1763769600'/);
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders', method: 'POST' }).reply(400, { error: 'Bad Request', message: 'shares must be > 0' });
    await expect(paper().order(ORDER)).rejects.toBeInstanceOf(UsageError);
  });

  it('reads the account, its orders and reset, and refuses a body that is not one', async () => {
    const account = { cash: 994.33, positions: [{ market_id: ORDER.market_id, side: 'up', shares: 10, avg_price: 0.55 }], realized_pnl: 0, fees: 0.17, reserved_cash: 0, rebates: 0 };
    mock.agent.get(BASE).intercept({ path: '/v1/paper/account', method: 'GET' }).reply(200, account, { headers: JSON_HEADERS });
    expect(await paper().account()).toEqual(account);
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders?limit=5&offset=0', method: 'GET' }).reply(200, { orders: [FILLED], total: 1, limit: 5, offset: 0 }, { headers: JSON_HEADERS });
    expect(await paper().orders({ limit: 5, offset: 0 })).toEqual({ orders: [FILLED], total: 1 });
    mock.agent.get(BASE).intercept({ path: '/v1/paper/reset', method: 'POST' }).reply(200, { ...account, cash: 1000, positions: [], fees: 0 }, { headers: JSON_HEADERS });
    expect((await paper().reset()).cash).toBe(1000);
    mock.agent.get(BASE).intercept({ path: '/v1/paper/account', method: 'GET' }).reply(200, { cash: 'lots', positions: [], realized_pnl: 0, fees: 0 }, { headers: JSON_HEADERS });
    await expect(paper().account()).rejects.toThrow(/unexpected answer .*paper account has no number cash/);
  });

  it('posts a limit order, cancels it by id, lists the open ones; an unknown order is a NotFoundError, not "no paper trading"', async () => {
    const LIMIT = { type: 'limit', market_id: ORDER.market_id, side: 'up', action: 'buy', shares: 10, price: 0.45, ttl_ms: 30_000 } as const;
    const OPEN = { ...FILLED, id: 8, status: 'open', shares: 0, vwap: null, fee: 0, levels: 0, type: 'limit', price: 0.45, expires_at: T0 + 30_000 };
    let body: unknown;
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders', method: 'POST' }).reply((opts) => {
      body = JSON.parse(String(opts.body));
      return { statusCode: 201, data: { order: OPEN }, responseOptions: { headers: JSON_HEADERS } };
    });
    expect(await paper().post(LIMIT)).toEqual(OPEN);
    expect(body).toEqual(LIMIT);
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders?status=open', method: 'GET' }).reply(200, { orders: [OPEN], total: 1, limit: 100, offset: 0 }, { headers: JSON_HEADERS });
    expect(await paper().orders({ open: true })).toEqual({ orders: [OPEN], total: 1 });
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders/8/cancel', method: 'POST' }).reply(200, { order: { ...OPEN, status: 'cancelled' } }, { headers: JSON_HEADERS });
    expect((await paper().cancel(8)).status).toBe('cancelled');
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders/9/cancel', method: 'POST' }).reply(404, { error: 'Not Found', message: 'No paper order with id 9.' });
    await expect(paper().cancel(9)).rejects.toThrow(/^No paper order with id 9\.$/);
  });

  it('reads an order of a server before limit orders as a market order', async () => {
    const { type: _t, price: _p, rebate: _r, expires_at: _e, ...old } = FILLED;
    mock.agent.get(BASE).intercept({ path: '/v1/paper/orders', method: 'POST' }).reply(201, { order: old }, { headers: JSON_HEADERS });
    expect(await paper().order(ORDER)).toEqual(FILLED);
  });
});
