// The dashboard's socket-less core, beside the API's: `claims` says whether a path is one of its
// pages (every path but the API's: `/api/…`, `/v<n>/…` and `/health` stay the API's, answered
// exactly as before, JSON included), `handle` answers one request. Order: route (an unknown page
// is an HTML 404) and method (405) -> visitor -> CSRF on every POST ->
// session where one is needed -> the handler; an HttpException from a shared check (bad query 400,
// data window 403, unknown market 404) becomes a page with that status.
import { HashSlots } from '../accounts/hash-slots.js';
import type { ScryptCost } from '../accounts/password.js';
import { unavailableError } from '../server/unavailable.js';
import { HttpException } from '../server/http-error.js';
import type { AccountAuthStore } from '../store/account-auth-store.js';
import type { Account, Store } from '../store/store.js';
import type { Asset } from './assets.js';
import type { PageCall, PageRoute } from './context.js';
import { accountRoutes } from './account-routes.js';
import { keyRoutes } from './key-routes.js';
import { marketRoutes } from './market-routes.js';
import { messagePage } from './pages/auth-pages.js';
import type { KeyUsage } from './pages/account-page.js';
import type { Site } from '../server/site.js';
import { formOf, pathOf, type DashboardRequest } from './request.js';
import { assetAnswer, htmlAnswer, redirect, type PageResponse } from './respond.js';
import { csrfOk, visitorOf, type Visitor } from './session.js';
import { DashboardLimits } from './dashboard-limits.js';
import type { SharedLimiter } from '../ratelimit/shared-limiter.js';

/** Options of createDashboard. */
export interface DashboardOptions {
  store: Store;
  auth: AccountAuthStore;
  /** Epoch ms; tests move it. */
  now: () => number;
  /** false = `serve --no-signup`: only the operator makes accounts. */
  signupOpen: boolean;
  /** Where the sign-in, sign-up and page throttles are charged: the API's limiter (Redis when shared); in this process when absent. */
  limiter?: SharedLimiter;
  /** Sign-ups one address may make per day (default DEFAULT_SIGNUPS_PER_DAY). */
  signupsPerDay?: number;
  keyUsage: (keyId: number, account: Account, now: number) => Promise<KeyUsage>;
  assets: ReadonlyMap<string, Asset>;
  /** Where unexpected errors are reported: method and path only, never a form, cookie or key. */
  log?: (line: string) => void;
  scryptCost?: ScryptCost;
  /** Password hashes run at once and waiting (default DEFAULT_HASH_SLOTS). */
  hashSlots?: { concurrent: number; queued: number };
}

/** The dashboard: which requests are its own, and how it answers them (the server's Site). */
export interface Dashboard extends Site {
  handle(req: DashboardRequest): Promise<PageResponse>;
}

/** The API's paths (every dialect's prefix and the bare health checks): their answers stay JSON. */
const API_PATH = /^\/(?:api|v\d+|health)(?:\/|$)/;

interface Compiled {
  route: PageRoute;
  /** The pattern as a regular expression, one capture per `:name` segment. */
  regex: RegExp;
  names: string[];
}

function compile(route: PageRoute): Compiled {
  const names: string[] = [];
  const source = route.pattern
    .split('/')
    .map((seg) => (seg.startsWith(':') ? (names.push(seg.slice(1)), '([^/]+)') : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return { route, regex: new RegExp(`^${source}$`), names };
}

/** Every route whose pattern fits `path`, with its decoded parameters (a segment that does not decode fits nothing). */
function matchRoutes(compiled: readonly Compiled[], path: string): { route: PageRoute; params: Record<string, string> }[] {
  const found: { route: PageRoute; params: Record<string, string> }[] = [];
  for (const { route, regex, names } of compiled) {
    const m = regex.exec(path);
    if (!m) continue;
    try {
      found.push({ route, params: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(m[i + 1]!)])) });
    } catch {
      // A malformed percent escape: not this page.
    }
  }
  return found;
}

/** Use once per server, next to createApp: the dashboard over the same store. */
export function createDashboard(options: DashboardOptions): Dashboard {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const services = {
    store: options.store,
    auth: options.auth,
    signupOpen: options.signupOpen,
    limits: new DashboardLimits(options.limiter, options.signupsPerDay),
    keyUsage: options.keyUsage,
    scryptCost: options.scryptCost,
    hashes: new HashSlots(options.hashSlots?.concurrent, options.hashSlots?.queued),
  };
  const assetRoute: PageRoute = {
    method: 'GET',
    pattern: '/assets/:name',
    signedIn: false,
    handle: ({ params, visitor }) => {
      const asset = options.assets.get(params.name!);
      return asset ? assetAnswer(asset.type, asset.body) : htmlAnswer(404, messagePage(visitor, 'Not found', 'No such file.'));
    },
  };
  const pageAssetRoute: PageRoute = { ...assetRoute, pattern: '/assets/page/:name', handle: (call) => assetRoute.handle({ ...call, params: { name: `page/${call.params.name}` } }) };
  const routes = [...accountRoutes, ...keyRoutes, ...marketRoutes, assetRoute, pageAssetRoute];
  const compiled = routes.map(compile);

  function claims(url: string): boolean {
    const path = pathOf(url);
    // Only origin-form paths are pages: `OPTIONS *` and the like stay with the API's JSON answers.
    return matchRoutes(compiled, path).length > 0 || (path.startsWith('/') && !API_PATH.test(path));
  }

  async function handle(req: DashboardRequest): Promise<PageResponse> {
    const now = options.now();
    const path = pathOf(req.url);
    const found = matchRoutes(compiled, path);
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const hit = found.find((f) => f.route.method === method);
    // Anonymous until the session is read: an error while reading it still gets a page.
    let visitor: Visitor = { csrf: '', cookies: [] };
    const withCookies = (r: PageResponse): PageResponse => {
      if (!visitor.cookies.length) return r;
      const set = r.headers['Set-Cookie'];
      return { ...r, headers: { ...r.headers, 'Set-Cookie': [...visitor.cookies, ...(set === undefined ? [] : Array.isArray(set) ? set : [set])] } };
    };
    try {
      visitor = await visitorOf(req, options.store, options.auth, now);
      if (!found.length) return withCookies(htmlAnswer(404, messagePage(visitor, 'Not found', 'There is no such page on this dashboard.')));
      if (!hit) {
        const allow = [...new Set(found.map((f) => f.route.method))].map((m) => (m === 'GET' ? 'GET, HEAD' : m)).join(', ');
        return htmlAnswer(405, messagePage(visitor, 'Method not allowed', `This page answers ${allow} only.`), { headers: { Allow: allow } });
      }
      const form = method === 'POST' ? formOf(req) : new Map<string, string>();
      if (method === 'POST' && !csrfOk(req, visitor, form.get('csrf'))) {
        return withCookies(
          htmlAnswer(403, messagePage(visitor, 'Form refused', 'The form was stale or came from another site (no valid CSRF token); reload the page and try again.')),
        );
      }
      if (hit.route.signedIn && !visitor.account) return withCookies(redirect('/signin'));
      const call: PageCall = { ...services, req, now, visitor, params: hit.params, form };
      return withCookies(await hit.route.handle(call));
    } catch (thrown) {
      // An unreachable database (a PostgreSQL restart) is a 503 page, as it is a 503 in the API.
      const err = unavailableError(thrown) ?? thrown;
      if (err instanceof HttpException) {
        return withCookies(htmlAnswer(err.status, messagePage(visitor, titleOf(err.status), err.message), { headers: err.headers }));
      }
      log(`msnap serve: dashboard 500 on ${req.method} ${path.slice(0, 200)}: ${err instanceof Error ? err.message : String(err)}`);
      return htmlAnswer(500, messagePage(visitor, 'Server error', 'The server hit an unexpected error; it has been logged.'));
    }
  }

  return { claims, handle };
}

function titleOf(status: number): string {
  if (status === 403) return 'Outside your plan';
  if (status === 404) return 'Not found';
  if (status === 400) return 'Bad request';
  if (status === 429) return 'Too many requests';
  if (status === 503) return 'Temporarily unavailable';
  return 'Refused';
}
