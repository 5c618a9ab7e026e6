// msnap's paper trading over v1 (docs/bots.md "Paper trading"): POST paper/orders (market or limit),
// GET paper/orders (?status=open: resting limit orders), GET paper/orders/:id, POST
// paper/orders/:id/cancel, GET paper/account, POST paper/reset. Keyed and charged like any request; the account is the
// caller's API key's. Bodies are checked after credentials, rate limit, route and method (413, 415,
// 400), then the market (404, 403), as the contract orders every check.
import { NotRestingError, PaperDesk } from '../../paper/paper-desk.js';
import { ReplayView } from '../../replay/replay-view.js';
import { clampToMax, type ListLimits } from '../list-limit.js';
import { envelopeTail } from '../dialects/list-body.js';
import { HttpException, quote } from '../http-error.js';
import { jsonBody } from '../request-body.js';
import type { KeyedContext, PostHandler, Route, RouteContext } from '../route.js';
import { readableMarket } from './market-lookup.js';
import { orderRequest } from './paper-order-body.js';

/** Default and maximum `limit` of GET paper/orders. */
const PAPER_ORDER_LIMITS: ListLimits = { default: 100, max: 1000 };

/** The desk of this request: the store as the clock shows it, at the clock's now. */
function deskOf(ctx: RouteContext): PaperDesk {
  if (!ctx.store.paper) throw new HttpException(501, 'This store keeps no paper accounts (serve paper trading over SQLite or PostgreSQL).');
  return new PaperDesk(ctx.store, ctx.store.paper, ctx.paper, ctx.now);
}

function keyed(ctx: RouteContext): KeyedContext {
  if (!ctx.caller) throw new Error('paper routes need a caller');
  return ctx as KeyedContext;
}

/**
 * The context at one reading of the data clock, its store bounded there: an order sees the market
 * as the clock shows it and the newest snapshot taken by then, on any store. A replay's own view
 * moves on while the request runs, so it is bounded again at this reading.
 */
function atClock(ctx: KeyedContext): KeyedContext {
  const at = ctx.clock.now();
  return { ...ctx, store: new ReplayView(ctx.store, () => at), now: at };
}

const noGet: Route['prepare'] = () => () => Promise.reject(new Error('POST-only route'));

const placeOrder: PostHandler = {
  prepare(body, headers, query) {
    const req = orderRequest(jsonBody(body, headers));
    query.check();
    return async (ctx) => {
      const k = atClock(keyed(ctx));
      const desk = deskOf(k);
      const market = await readableMarket(k, req.order.market_id);
      const order = req.type === 'limit' ? await desk.post(k.caller.key.id, req.order, market) : await desk.place(k.caller.key.id, req.order, market);
      return { status: 201, body: JSON.stringify({ order }) };
    };
  },
};

/** The `:id` of an order path: a whole number, else 404 (no order has such an id). */
function orderId(params: Readonly<Record<string, string>>): number {
  const raw = params['id'] ?? '';
  const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw new HttpException(404, `No paper order with id ${quote(raw.slice(0, 40))}.`);
  return id;
}

const cancelOrder: PostHandler = {
  prepare(body, headers, query, params) {
    const value = jsonBody(body, headers);
    const empty = value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);
    if (!empty) throw new HttpException(400, 'POST /v1/paper/orders/:id/cancel takes no fields: send no body or {}.');
    query.check();
    const id = orderId(params);
    return async (ctx) => {
      const k = atClock(keyed(ctx));
      try {
        return { status: 200, body: JSON.stringify({ order: await deskOf(k).cancel(k.caller.key.id, id) }) };
      } catch (err) {
        if (!(err instanceof NotRestingError)) throw err;
        if (!err.order) throw new HttpException(404, `No paper order with id ${id}.`);
        throw new HttpException(409, `Paper order ${id} is not resting (status ${err.order.status}): only an open limit order can be cancelled.`);
      }
    };
  },
};

const reset: PostHandler = {
  prepare(body, headers, query) {
    const value = jsonBody(body, headers);
    const empty = value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);
    if (!empty) throw new HttpException(400, 'POST /v1/paper/reset takes no fields: send no body or {}.');
    query.check();
    return async (ctx) => {
      const k = atClock(keyed(ctx));
      return { status: 200, body: JSON.stringify(await deskOf(k).reset(k.caller.key.id)) };
    };
  },
};

/** The paper routes of v1's table. */
export const PAPER_ROUTES: readonly Route[] = [
  {
    pattern: 'paper/orders',
    prepare(query) {
      const limit = clampToMax(query.limit('limit'), PAPER_ORDER_LIMITS);
      const offset = query.integer('offset') ?? 0;
      const status = query.raw('status');
      if (status !== undefined && status !== 'open' && status !== 'all') query.fail('status', `Parameter status must be open or all; got ${quote(status.slice(0, 40))}.`);
      query.check();
      return async (ctx) => {
        const k = atClock(keyed(ctx));
        const page = await deskOf(k).orders(k.caller.key.id, limit.limit, offset, status === 'open');
        const tail = envelopeTail({ total: page.total, limit: limit.limit, offset, count: page.orders.length, warnings: limit.warnings, includeTotal: true }, false);
        return '{"orders":' + JSON.stringify(page.orders) + tail;
      };
    },
    post: placeOrder,
  },
  {
    pattern: 'paper/account',
    prepare(query) {
      query.check();
      return async (ctx) => {
        const k = atClock(keyed(ctx));
        return JSON.stringify(await deskOf(k).account(k.caller.key.id));
      };
    },
  },
  {
    pattern: 'paper/orders/:id',
    prepare(query, params) {
      query.check();
      const id = orderId(params);
      return async (ctx) => {
        const k = atClock(keyed(ctx));
        const order = await deskOf(k).order(k.caller.key.id, id);
        if (!order) throw new HttpException(404, `No paper order with id ${id}.`);
        return JSON.stringify({ order });
      };
    },
  },
  { pattern: 'paper/orders/:id/cancel', prepare: noGet, get: false, post: cancelOrder },
  { pattern: 'paper/reset', prepare: noGet, get: false, post: reset },
];
