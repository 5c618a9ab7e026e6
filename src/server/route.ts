// The shape of one route: a path pattern, a query parser (400s) and a handler (404/403/200).
// Parsing happens before the handler runs, so every 400 precedes every 404 for a market and 403.
import type { Decision } from '../ratelimit/key-limiter.js';
import type { Store } from '../store/store.js';
import type { Caller } from './auth.js';
import type { QueryReader } from './query.js';

/** What a handler may use; nothing global. */
export interface RouteContext {
  store: Store;
  now: number;
  version: string;
  caller: Caller;
  /** The path's `:name` segments, percent-decoded. */
  params: Record<string, string>;
  /** This request's rate-limit decision (the limits endpoint reports it). */
  decision: Decision;
}

/** A route after type erasure: `prepare` validates the query and returns the handler to run. */
export interface Route {
  /** Path after the version prefix, e.g. `markets/:id/snapshots`. */
  pattern: string;
  prepare(query: QueryReader): (ctx: RouteContext) => string;
}

/** Use to declare a route with a typed query: `handle` gets what `query` returned and returns the JSON body. */
export function defineRoute<Q>(spec: {
  pattern: string;
  query: (q: QueryReader) => Q;
  handle: (ctx: RouteContext, query: Q) => string;
}): Route {
  return {
    pattern: spec.pattern,
    prepare(reader) {
      const query = spec.query(reader);
      return (ctx) => spec.handle(ctx, query);
    },
  };
}

/** Use for routes that take no query parameters (any given are ignored). */
export const noQuery = (): undefined => undefined;
