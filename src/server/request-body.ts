// The body of an API POST (msnap's paper trading), read by the listener with a size cap before the
// app runs, and checked by the route after credentials, rate limit, route and method, as the
// contract's order wants: 413 too large, 415 not JSON, 400 not valid JSON.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLarge, readBody } from './form-body.js';
import { HttpException } from './http-error.js';
import type { RequestBody } from './route.js';

/** JSON bodies are an order of a few fields; anything larger is refused unread. */
export const MAX_JSON_BYTES = 16 * 1024;

/** Use in the listener: a POST's request with its body (at most MAX_JSON_BYTES); other methods as they are. */
export async function withBody<R extends { method: string }>(request: R, req: IncomingMessage, res: ServerResponse): Promise<R & { payload?: RequestBody }> {
  if (request.method !== 'POST') return request;
  try {
    return { ...request, payload: { text: await readBody(req, MAX_JSON_BYTES), tooLarge: false } };
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    // The rest of the body stays unread: the connection cannot carry another request.
    res.setHeader('Connection', 'close');
    return { ...request, payload: { text: '', tooLarge: true } };
  }
}

/**
 * Use in a POST route: the body's JSON value, or undefined when the body is empty. 413 when it
 * was too large, 415 when it is not `application/json` (UTF-8), 400 when it does not parse.
 */
export function jsonBody(body: RequestBody | undefined, headers: IncomingHttpHeaders): unknown {
  if (body?.tooLarge) throw new HttpException(413, `The request body is larger than ${MAX_JSON_BYTES} bytes.`);
  if (!body || body.text.trim() === '') return undefined;
  const type = (headers['content-type'] ?? '').toLowerCase();
  const [media, ...params] = type.split(';').map((p) => p.trim());
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  if (media !== 'application/json' || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new HttpException(415, 'The request body must be JSON: send Content-Type: application/json (UTF-8).');
  }
  try {
    return JSON.parse(body.text) as unknown;
  } catch (err) {
    const why = err instanceof Error ? err.message.slice(0, 120) : 'cannot parse';
    throw new HttpException(400, `The request body is not valid JSON (${why}).`);
  }
}
