// The shape of one endpoint: a dialect-free core (parameters -> result) and a dialect's renderer
// (result -> body). Parameters are read and checked before the handler runs, so every 400 precedes
// every 404 for a market and every data-window refusal, in every dialect.
import type { IncomingHttpHeaders } from 'node:http';
import type { PaperSettings } from '../paper/paper-settings.js';
import type { Decision } from '../ratelimit/key-limiter.js';
import type { ServerClock } from '../replay/server-clock.js';
import type { Store } from '../store/store.js';
import type { Caller } from './auth.js';
import type { QueryReader } from './query.js';

/** What a handler may use; nothing global. */
export interface RouteContext {
  store: Store;
  /** Wall-clock epoch ms (keys, trials); what the data shows follows the store, which a replay bounds. */
  now: number;
  /** The data clock (GET /v1/clock). */
  clock: ServerClock;
  version: string;
  /** Undefined on the public routes (`/health`), which take no key. */
  caller: Caller | undefined;
  /** This request's rate-limit decision (the limits endpoints report it). */
  decision: Decision;
  /** Public routes only: the backends that cannot be reached now (`store`, `limiter`); empty when all answer. */
  unavailable: readonly string[];
  /** serve --paper-cash and --paper-fee-rate. */
  paper: PaperSettings;
}

/** What a keyed handler may use: the caller is known. */
export type KeyedContext = RouteContext & { caller: Caller };

/** The dialect-free half of an endpoint: `query` reads parameters (path ones in `params`), `handle` computes. */
export interface CoreRoute<Q, R> {
  query(q: QueryReader, params: Readonly<Record<string, string>>): Q;
  handle(ctx: KeyedContext, query: Q): R | Promise<R>;
}

/** An endpoint of one dialect after type erasure: `prepare` checks parameters and returns the handler. */
export interface Route {
  /** Path after the dialect's prefix, e.g. `markets/:id/snapshots`. */
  pattern: string;
  /** The GET handler. */
  prepare(query: QueryReader, params: Readonly<Record<string, string>>): (ctx: RouteContext) => Promise<string>;
  /** False: the path takes no GET (POST only). */
  get?: false;
  /** msnap's JSON POST on the same path (paper trading). */
  post?: PostHandler;
}

/** The body of a POST as the listener read it: its text, or tooLarge past the cap (nothing kept). */
export interface RequestBody {
  text: string;
  tooLarge: boolean;
}

/** A POST endpoint: `prepare` checks the body and the query (400, 413, 415), then the handler answers with its own status. */
export interface PostHandler {
  prepare(
    body: RequestBody | undefined,
    headers: IncomingHttpHeaders,
    query: QueryReader,
    params: Readonly<Record<string, string>>,
  ): (ctx: RouteContext) => Promise<{ status: number; body: string }>;
}

/** Use in a dialect's route table: the path, the core endpoint, and how this dialect prints its result. */
export function defineRoute<Q, R>(pattern: string, core: CoreRoute<Q, R>, render: (result: R) => string): Route {
  return {
    pattern,
    prepare(reader, params) {
      const query = core.query(reader, params);
      reader.check();
      return async (ctx) => {
        if (!ctx.caller) throw new Error(`route ${pattern} needs a caller`);
        return render(await core.handle(ctx as KeyedContext, query));
      };
    },
  };
}

/**
 * Use for a route that takes no key and no parameters (health for load balancers); `unavailable`
 * names what is down, `version` is the server's.
 */
export function definePublicRoute(
  pattern: string,
  body: (now: number, unavailable: readonly string[], version: string) => string,
): Route {
  return { pattern, prepare: () => (ctx) => Promise.resolve(body(ctx.now, ctx.unavailable, ctx.version)) };
}

/** Use for routes that take no query parameters (any given are ignored). */
export const noQuery = (): undefined => undefined;
