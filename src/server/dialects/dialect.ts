// What a dialect is: a path table, parameter spelling rules, and the shape of its error bodies.
// Everything else (accounts, limiter, check order, data) is the core's, the same for all.
import type { DialectName } from '../../domain/dialect-records.js';
import type { HttpException } from '../http-error.js';
import type { ParamRules } from '../query.js';
import type { Route } from '../route.js';
import type { Matcher } from '../routes.js';

/** An error as a dialect answers it. */
export interface ErrorAnswer {
  status: number;
  body: string;
}

/** Per-request state of a dialect (v4's request id goes into headers and error bodies alike). */
export interface RequestScope {
  /** Headers every response of this request carries. */
  headers: Record<string, string>;
  error(err: HttpException): ErrorAnswer;
}

/** One API version of the hosted service, over the shared core. */
export interface Dialect {
  name: DialectName;
  rules: ParamRules;
  match: Matcher;
  /** Routes that take no key, by whole path (`/health`); checked before credentials. */
  publicRoutes: Readonly<Record<string, Route>>;
  /** The sentence of a 404 for a path no route matches. */
  noRouteMessage: string;
  /** Call once per request, before anything can fail. */
  start(): RequestScope;
}
