// The body of POST /v1/paper/orders, checked field by field: every bad field is named in one 400
// (the v1 error body), unknown fields included, so a typo such as "max_prize" never passes silently.
// "type":"market" (the default) executes at once; "type":"limit" posts a resting maker order.
import { MAX_PAPER_TTL_MS } from '../../domain/paper-order.js';
import type { OrderRequest } from '../../paper/paper-account.js';
import type { LimitRequest } from '../../paper/paper-maker.js';
import type { ParamFailure } from '../error-kind.js';
import { HttpException, quote } from '../http-error.js';

const FIELDS = ['market_id', 'side', 'action', 'shares', 'max_price', 'min_price', 'type', 'price', 'ttl_ms', 'post_only'];
/** The most shares one order may ask for (msnap decision: far above any book, far below float trouble). */
const MAX_ORDER_SHARES = 1_000_000_000;

/** A checked order body: a market order, or a limit order to post. */
export type OrderBody = { type: 'market'; order: OrderRequest } | { type: 'limit'; order: LimitRequest };

/** A JSON value in a message: strings quoted, anything else as JSON, both cut short. */
function shown(v: unknown): string {
  return typeof v === 'string' ? quote(v) : (JSON.stringify(v) ?? String(v)).slice(0, 64);
}

/** Use on the parsed JSON body (undefined: empty); throws the 400 naming every bad field. */
export function orderRequest(value: unknown): OrderBody {
  if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpException(
      400,
      'The request body must be a JSON object: {"market_id","side","action","shares","max_price"?,"min_price"?} or {"type":"limit","market_id","side","action","shares","price","ttl_ms"?}.',
    );
  }
  const body = value as Record<string, unknown>;
  const failures: ParamFailure[] = [];
  const fail = (name: string, message: string, problem: ParamFailure['problem'] = 'invalid'): undefined => {
    failures.push({ name, location: 'body', problem, message });
    return undefined;
  };
  for (const key of Object.keys(body)) {
    if (!FIELDS.includes(key)) fail(key, `Field ${quote(key)} is not an order field; use ${FIELDS.join(', ')}.`);
  }
  const text = (name: string, allowed?: readonly string[]): string | undefined => {
    const v = body[name];
    if (v === undefined) return fail(name, `Field ${name} is required${allowed ? `: ${allowed.map((a) => `"${a}"`).join(' or ')}` : ''}.`, 'missing');
    if (typeof v !== 'string' || v === '' || v.length > 200) return fail(name, `Field ${name} must be a non-empty string${allowed ? ` (${allowed.map((a) => `"${a}"`).join(' or ')})` : ''}.`);
    if (allowed && !allowed.includes(v)) return fail(name, `Field ${name} must be ${allowed.map((a) => `"${a}"`).join(' or ')}; got ${quote(v)}.`);
    return v;
  };
  const number = (name: string, min: number, max: number, exclusiveMin: boolean): number | undefined => {
    const v = body[name];
    if (v === undefined) return undefined;
    const ok = typeof v === 'number' && Number.isFinite(v) && (exclusiveMin ? v > min : v >= min) && v <= max;
    return ok ? v : fail(name, `Field ${name} must be a number ${exclusiveMin ? '>' : '>='} ${min} and <= ${max}; got ${shown(v)}.`);
  };
  const marketId = text('market_id');
  const side = text('side', ['up', 'down']) as OrderRequest['side'] | undefined;
  const action = text('action', ['buy', 'sell']) as OrderRequest['action'] | undefined;
  const shares = number('shares', 0, MAX_ORDER_SHARES, true);
  if (body.shares === undefined) fail('shares', 'Field shares is required: the number of shares, > 0.', 'missing');
  const type = body.type === undefined ? 'market' : text('type', ['market', 'limit']);
  const maxPrice = number('max_price', 0, 1, false);
  const minPrice = number('min_price', 0, 1, false);
  if (type === 'limit') {
    for (const f of ['max_price', 'min_price']) if (body[f] !== undefined) fail(f, `Field ${f} limits a market order; a limit order rests at its price.`);
    if (body.price === undefined) fail('price', 'Field price is required on a limit order: the price it rests at, > 0 and < 1.', 'missing');
    const p = body.price;
    if (p !== undefined && !(typeof p === 'number' && p > 0 && p < 1)) fail('price', `Field price must be a number > 0 and < 1; got ${shown(p)}.`);
    const ttl = body.ttl_ms;
    if (ttl !== undefined && !(typeof ttl === 'number' && Number.isInteger(ttl) && ttl > 0 && ttl <= MAX_PAPER_TTL_MS)) {
      fail('ttl_ms', `Field ttl_ms must be a whole number of milliseconds > 0 and <= ${MAX_PAPER_TTL_MS}; got ${shown(ttl)}.`);
    }
    if (body.post_only !== undefined && body.post_only !== true) fail('post_only', 'Field post_only must be true: paper limit orders are post-only (a crossing order is rejected, "crosses").');
  } else {
    for (const f of ['price', 'ttl_ms', 'post_only']) if (body[f] !== undefined) fail(f, `Field ${f} belongs to a limit order; add "type":"limit".`);
    if (action === 'sell' && body.max_price !== undefined) fail('max_price', 'Field max_price limits buys; a sell takes min_price.');
    if (action === 'buy' && body.min_price !== undefined) fail('min_price', 'Field min_price limits sells; a buy takes max_price.');
  }
  const first = failures[0];
  if (first) throw new HttpException(400, first.message, {}, {}, { kind: 'params', params: failures });
  const common = { market_id: marketId!, side: side!, action: action!, shares: shares! };
  if (type === 'limit') {
    return { type, order: { ...common, price: body.price as number, ...(body.ttl_ms !== undefined ? { ttl_ms: body.ttl_ms as number } : {}) } };
  }
  return {
    type: 'market',
    order: { ...common, ...(maxPrice !== undefined ? { max_price: maxPrice } : {}), ...(minPrice !== undefined ? { min_price: minPrice } : {}) },
  };
}
