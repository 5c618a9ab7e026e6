// Paper trading's records checked on the way in: a field the client shows must be there and have
// its type, else the body is malformed (an HttpError naming the path).
import { toNumber } from '../../domain/numeric-field.js';
import { asObject, MalformedBodyError } from '../normalize.js';
import type { PaperAccount, PaperOrder, PaperOrdersPage } from './paper-types.js';

type Obj = Record<string, unknown>;

function num(o: Obj, field: string, what: string): number {
  const n = toNumber(o[field]);
  if (n === undefined) throw new MalformedBodyError(`${what} has no number ${field}`);
  return n;
}

function text<T extends string>(o: Obj, field: string, what: string, allowed?: readonly T[]): T {
  const v = o[field];
  if (typeof v !== 'string' || (allowed && !allowed.includes(v as T))) throw new MalformedBodyError(`${what} has no valid ${field}`);
  return v as T;
}

const SIDES = ['up', 'down'] as const;

/** Use on an order as the server sent it (inside `{"order": …}` or a list). */
export function normalizePaperOrder(raw: unknown): PaperOrder {
  const o = asObject(raw, 'paper order');
  const what = 'paper order';
  return {
    id: num(o, 'id', what),
    status: text(o, 'status', what, ['filled', 'partial', 'rejected', 'open', 'cancelled', 'expired'] as const),
    ...(typeof o['reason'] === 'string' ? { reason: o['reason'] } : {}),
    market_id: text(o, 'market_id', what),
    side: text(o, 'side', what, SIDES),
    action: text(o, 'action', what, ['buy', 'sell', 'settle'] as const),
    shares_requested: num(o, 'shares_requested', what),
    shares: num(o, 'shares', what),
    vwap: o['vwap'] === null || o['vwap'] === undefined ? null : num(o, 'vwap', what),
    fee: num(o, 'fee', what),
    filled_at: num(o, 'filled_at', what),
    depth: o['depth'] === true,
    levels: toNumber(o['levels']) ?? 0,
    cash_after: num(o, 'cash_after', what),
    // A server before fee schedules does not send it: no fee was paid in shares there.
    fee_shares: toNumber(o['fee_shares']) ?? 0,
    // A server before limit orders sends none of these: every order there is a market order.
    type: o['type'] === 'limit' ? 'limit' : 'market',
    price: toNumber(o['price']) ?? null,
    rebate: toNumber(o['rebate']) ?? 0,
    expires_at: toNumber(o['expires_at']) ?? null,
  };
}

/** Use on `GET /v1/paper/account` (and reset's answer). */
export function normalizePaperAccount(raw: unknown): PaperAccount {
  const o = asObject(raw, 'paper account');
  const positions = o['positions'];
  if (!Array.isArray(positions)) throw new MalformedBodyError('paper account has no positions list');
  return {
    cash: num(o, 'cash', 'paper account'),
    positions: positions.map((p) => {
      const po = asObject(p, 'paper position');
      return {
        market_id: text(po, 'market_id', 'paper position'),
        side: text(po, 'side', 'paper position', SIDES),
        shares: num(po, 'shares', 'paper position'),
        avg_price: num(po, 'avg_price', 'paper position'),
      };
    }),
    realized_pnl: num(o, 'realized_pnl', 'paper account'),
    fees: num(o, 'fees', 'paper account'),
    reserved_cash: toNumber(o['reserved_cash']) ?? 0,
    rebates: toNumber(o['rebates']) ?? 0,
  };
}

/** Use on `GET /v1/paper/orders`. */
export function normalizePaperOrders(raw: unknown): PaperOrdersPage {
  const o = asObject(raw, 'paper orders');
  const orders = o['orders'];
  if (!Array.isArray(orders)) throw new MalformedBodyError('paper orders has no orders list');
  return { orders: orders.map(normalizePaperOrder), total: toNumber(o['total']) ?? orders.length };
}
