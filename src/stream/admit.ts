// Who may open GET /v1/stream: the key (X-API-Key, Authorization: Bearer, or ?token= for browsers,
// which cannot set headers on a WebSocket) checked as every request's is, and the opening charged
// as one request through the same limiter as HTTP. A refusal is an HTTP answer in the v1 error
// shape with the rate-limit headers, written before any upgrade; so is a handshake ws would refuse.
import type { IncomingHttpHeaders } from 'node:http';
import type { Decision } from '../ratelimit/key-limiter.js';
import { authenticate, presentedKey, type Caller, type KeyHasher } from '../server/auth.js';
import { errorBody, HttpException } from '../server/http-error.js';
import { recordKeyUse } from '../server/key-use.js';
import { ANONYMOUS_CONFIG, rateLimitHeaders, tooManyRequests, type RateLimits } from '../server/rate-limit.js';
import { unavailableError, unknownDecision } from '../server/unavailable.js';
import type { Store } from '../store/store.js';
import { checkHandshake } from './handshake.js';

/** The paths of the stream (v1 answers under /api/v1/ and /v1/). */
export const STREAM_PATHS = ['/v1/stream', '/api/v1/stream'];

/** An admitted opening, or the HTTP answer that refuses it. */
export type Admission = { ok: true; caller: Caller; /** The key as presented, to check it again while the stream is open. */ key: string } | { ok: false; status: number; headers: Record<string, string>; body: string };

/** What admission reads and charges. */
export interface AdmitDeps {
  store: Store;
  limits: RateLimits;
  hashKey: KeyHasher;
  log: (line: string) => void;
}

/** Use on an upgrade request for a stream path: the caller, charged one request, or the refusal. */
export async function admit(method: string, url: string, headers: IncomingHttpHeaders, remoteAddress: string, at: number, deps: AdmitDeps): Promise<Admission> {
  let decision: Decision | undefined;
  try {
    const withToken = keyHeaders(url, headers);
    let caller: Caller;
    try {
      caller = await authenticate(withToken, deps.store, at, deps.hashKey);
    } catch (err) {
      if (!(err instanceof HttpException)) throw err;
      // As over HTTP: failed credentials are charged to the address.
      decision = await deps.limits.takeAddress(remoteAddress, at);
      if (!decision.admitted) throw tooManyRequests(decision, 'requests without a valid API key from this address');
      throw err;
    }
    decision = await deps.limits.takeKey(caller.key.id, caller.account, at);
    if (!decision.admitted) throw tooManyRequests(decision, 'this API key');
    // After the charge, as a request's parameters are checked after its rate limit.
    checkHandshake(method, headers);
    recordKeyUse(deps.store, caller.key, at, deps.log);
    return { ok: true, caller, key: presentedKey(withToken)! };
  } catch (err) {
    const refusal = err instanceof HttpException ? err : unavailableError(err);
    if (!refusal) {
      deps.log(`msnap serve: 500 on GET /v1/stream: ${err instanceof Error ? err.message : String(err)}`);
    }
    const status = refusal?.status ?? 500;
    const message = refusal?.message ?? 'The server hit an unexpected error; it has been logged.';
    const shown = decision ?? unknownDecision(ANONYMOUS_CONFIG, at);
    return {
      ok: false,
      status,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', Date: new Date(at).toUTCString(), ...rateLimitHeaders(shown), ...refusal?.headers },
      body: errorBody(status, message, refusal?.extra),
    };
  }
}

/** The request's headers with `?token=` read as X-API-Key; a token beside a different header key is a 400, as two header keys are. */
function keyHeaders(url: string, headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const at = url.indexOf('?');
  const token = at < 0 ? null : new URLSearchParams(url.slice(at + 1)).get('token');
  if (token === null || token.trim() === '') return headers;
  const inHeaders = presentedKey(headers);
  if (inHeaders !== undefined && inHeaders !== token.trim()) {
    throw new HttpException(400, 'The token parameter and the key headers carry different keys; send one key.', {}, {}, { kind: 'two_keys' });
  }
  return { ...headers, 'x-api-key': token.trim() };
}
