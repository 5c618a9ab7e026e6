// The server's pure core: a request description in, a response description out, no socket.
// Checks run in the contract's order, in every dialect: credentials (400/401) -> rate limit (429)
// -> route and method (404/405) -> parameters (400) -> market and data window (404/403) -> 200.
// The path picks the dialect, which only shapes paths, parameters and bodies; one limiter charges
// each request once, whatever its dialect.
import type { IncomingHttpHeaders } from 'node:http';
import type { Decision } from '../ratelimit/key-limiter.js';
import type { Account, Store } from '../store/store.js';
import { hashApiKey } from '../accounts/api-key.js';
import { wallClock, type ServerClock } from '../replay/server-clock.js';
import { recordKeyUse } from './key-use.js';
import { authenticate, type Caller, type KeyHasher } from './auth.js';
import { selectDialect } from './dialects/select.js';
import { errorBody, HttpException } from './http-error.js';
import { QueryReader } from './query.js';
import { ANONYMOUS_CONFIG, limitsFor, rateLimitHeaders, RateLimits, tooManyRequests } from './rate-limit.js';
import { backendsDown, OutageLog, unavailableError, unknownDecision } from './unavailable.js';
import type { SharedLimiter } from '../ratelimit/shared-limiter.js';
import { allowedMethods, type RouteMatch } from './routes.js';
import type { RequestBody } from './route.js';
import { DEFAULT_PAPER, type PaperSettings } from '../paper/paper-settings.js';

/** What the core needs to know about a request. */
export interface AppRequest {
  method: string;
  /** Path and query as sent (`/api/v1/markets?coin=btc`). */
  url: string;
  headers: IncomingHttpHeaders;
  /** Client address: the key of the anonymous limiter. */
  remoteAddress: string;
  /** An API POST's body (the listener reads it with a cap; the dashboard's forms have their own). */
  payload?: RequestBody;
}

/** What the core answers; the listener writes it as is. */
export interface AppResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Options of `createApp`; only `store` is required. */
export interface AppOptions {
  store: Store;
  /** Where requests are charged: in-process by default, or shared by every instance (Redis). */
  limiter?: SharedLimiter;
  /** Epoch ms; tests move it by hand. */
  now?: () => number;
  /** The data clock /v1/clock reports (`serve --replay` also bounds the store by it); default: the wall clock, static. */
  clock?: ServerClock;
  version: string;
  /** Longer request targets get 414 (Node itself answers 431 past its header limit). */
  maxUrlLength?: number;
  hashKey?: KeyHasher;
  /** Where unexpected errors are reported (never into a response). */
  log?: (line: string) => void;
  /** Paper trading's starting cash and fee rate (default 1000, 0.07). */
  paper?: PaperSettings;
}

/** The app: `handle` answers one request; `reject` answers a request the listener refused early. */
export interface App {
  handle(req: AppRequest): Promise<AppResponse>;
  reject(status: number, message: string, remoteAddress: string): Promise<AppResponse>;
  /** The 503 for a request the server cannot answer now (slow readers hold its byte budget); charges nothing. */
  busy(remoteAddress: string): Promise<AppResponse>;
  /** A key's requests in the current minute, as the limiter counts them (charges nothing). */
  keyUsage(keyId: number, account: Account, now: number): Promise<{ used: number; limit: number }>;
}

/** Default limit on the request target. */
export const MAX_URL_LENGTH = 8192;

const JSON_TYPE = 'application/json; charset=utf-8';
/** Retry-After of the 503 while the byte budget for unread answers is spent. */
const BUSY_RETRY_SEC = 2;

/** Use once per server: builds the pure request handler over `store`. */
export function createApp(options: AppOptions): App {
  const { store, version } = options;
  const now = options.now ?? Date.now;
  const clock = options.clock ?? wallClock('static', now);
  const maxUrlLength = options.maxUrlLength ?? MAX_URL_LENGTH;
  const hashKey = options.hashKey ?? hashApiKey;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const paper = options.paper ?? DEFAULT_PAPER;
  const limits = new RateLimits(options.limiter);
  const outage = new OutageLog(log);

  function respond(status: number, body: string, decision: Decision, at: number, extra?: Record<string, string>): AppResponse {
    return {
      status,
      headers: {
        'Content-Type': JSON_TYPE,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        Date: new Date(at).toUTCString(),
        ...rateLimitHeaders(decision),
        ...extra,
      },
      body,
    };
  }

  async function handle(req: AppRequest): Promise<AppResponse> {
    const at = now();
    let decision: Decision | undefined;
    let caller: Caller | undefined;
    const queryAt = req.url.indexOf('?');
    const path = queryAt < 0 ? req.url : req.url.slice(0, queryAt);
    const dialect = selectDialect(path);
    const scope = dialect.start();
    try {
      if (req.url.length > maxUrlLength) {
        decision = await limits.takeAddress(req.remoteAddress, at);
        throw new HttpException(414, `The request URL is longer than ${maxUrlLength} characters.`);
      }

      const publicRoute = dialect.publicRoutes[path];
      let found: RouteMatch | undefined;
      let unavailable: string[] = [];
      if (publicRoute) {
        // No key is read or checked; the address pays, as for requests without a valid key. A
        // limiter that is down cannot charge it: health then answers anyway, saying so.
        unavailable = await backendsDown(store, limits);
        if (!unavailable.includes('limiter')) {
          decision = await limits.takeHealth(req.remoteAddress, at);
          if (!decision.admitted) throw tooManyRequests(decision, 'health checks from this address');
        }
        found = { route: publicRoute, params: {} };
      } else {
        try {
          caller = await authenticate(req.headers, store, at, hashKey);
        } catch (err) {
          if (!(err instanceof HttpException)) throw err;
          // Failed credentials are charged to the address, and a flood of them turns into 429s.
          decision = await limits.takeAddress(req.remoteAddress, at);
          if (!decision.admitted) throw tooManyRequests(decision, 'requests without a valid API key from this address');
          throw err;
        }
        decision = await limits.takeKey(caller.key.id, caller.account, at);
        if (!decision.admitted) throw tooManyRequests(decision, 'this API key');
        recordKeyUse(store, caller.key, at, log);
        found = dialect.match(path);
      }

      if (!found) throw new HttpException(404, dialect.noRouteMessage, {}, {}, { kind: 'no_route' });
      // HEAD only on the health routes, for load balancers (the listener sends no body); GET everywhere
      // but POST-only paths; POST where msnap adds one (paper trading).
      const allowed = publicRoute ? 'GET, HEAD' : allowedMethods(found.route);
      const post = req.method === 'POST' && !publicRoute ? found.route.post : undefined;
      if (!post && (req.method !== 'GET' || found.route.get === false) && !(publicRoute && req.method === 'HEAD')) {
        throw new HttpException(405, `Method ${req.method} is not allowed; use ${allowed.replace(', ', ' or ')}.`, {}, { Allow: allowed }, { kind: 'method' });
      }

      const reader = new QueryReader(new URLSearchParams(queryAt < 0 ? '' : req.url.slice(queryAt + 1)), dialect.rules);
      const run = post ? post.prepare(req.payload, req.headers, reader, found.params) : found.route.prepare(reader, found.params);
      const shown = decision ?? unknownDecision(ANONYMOUS_CONFIG, at);
      const out = await run({ store, now: at, clock, version, caller, decision: shown, unavailable, paper });
      const { status, body } = typeof out === 'string' ? { status: 200, body: out } : out;
      outage.recovered();
      return respond(unavailable.length ? 503 : status, body, shown, at, unavailable.length ? { ...scope.headers, 'Retry-After': '1' } : scope.headers);
    } catch (err) {
      const refusal = err instanceof HttpException ? err : unavailableError(err);
      if (refusal) {
        if (refusal.status === 503) outage.failed(err);
        decision ??= await peekHeaders(req.remoteAddress, at, caller);
        const answer = scope.error(refusal);
        return respond(answer.status, answer.body, decision, at, { ...scope.headers, ...refusal.headers });
      }
      decision ??= await peekHeaders(req.remoteAddress, at, caller);
      // Method and path only: the query and headers may carry a key.
      log(`msnap serve: 500 on ${req.method} ${path.slice(0, 200)}: ${err instanceof Error ? err.message : String(err)}`);
      const answer = scope.error(
        new HttpException(500, 'The server hit an unexpected error; it has been logged.', {}, {}, { kind: 'internal' }),
      );
      return respond(answer.status, answer.body, decision, at, scope.headers);
    }
  }

  /** The headers of an answer that charged nothing: the address's limiter, or a closed window when it is down. */
  async function peekHeaders(remoteAddress: string, at: number, caller: Caller | undefined): Promise<Decision> {
    try {
      return await limits.peekAddress(remoteAddress, at);
    } catch {
      return unknownDecision(caller ? limitsFor(caller.account) : ANONYMOUS_CONFIG, at);
    }
  }

  async function reject(status: number, message: string, remoteAddress: string): Promise<AppResponse> {
    const at = now();
    let decision: Decision;
    try {
      decision = await limits.takeAddress(remoteAddress, at);
    } catch {
      decision = unknownDecision(ANONYMOUS_CONFIG, at);
    }
    return respond(status, errorBody(status, message), decision, at);
  }

  async function busy(remoteAddress: string): Promise<AppResponse> {
    const at = now();
    const message = `The server holds too many answers its clients have not read yet; retry in ${BUSY_RETRY_SEC} seconds.`;
    const decision = await peekHeaders(remoteAddress, at, undefined);
    return respond(503, errorBody(503, message, { retry_after: BUSY_RETRY_SEC }), decision, at, { 'Retry-After': String(BUSY_RETRY_SEC) });
  }

  return { handle, reject, busy, keyUsage: (keyId, account, at) => limits.keyUsage(keyId, account, at) };
}
