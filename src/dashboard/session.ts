// Who is looking at a page: the signed-in account behind the session cookie, or an anonymous
// visitor; and the CSRF token every form of that page must send back. A session's token lives
// only in an HttpOnly, SameSite=Strict cookie that expires; the database holds its sha256.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccountAuthStore, SessionRecord } from '../store/account-auth-store.js';
import type { Account, Store } from '../store/store.js';
import { cookiesOf, type DashboardRequest } from './request.js';
import { cookie } from './respond.js';

/** The session cookie's name. */
const SESSION_COOKIE = 'msnap_session';
/** The cookie that carries an anonymous visitor's CSRF token (double submit, for sign-in and sign-up). */
const CSRF_COOKIE = 'msnap_csrf';
/** A session ends this long after sign-in, whatever happens in between. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
const ANONYMOUS_CSRF_LIFETIME_SEC = 2 * 60 * 60;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The person behind a request: an account when signed in, and the CSRF token of their forms. */
export interface Visitor {
  account?: Account;
  session?: SessionRecord;
  csrf: string;
  /** Cookies to set with the answer (a new anonymous CSRF token). */
  cookies: string[];
}

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Use first on every dashboard request: who it is and which CSRF token their forms carry. */
export async function visitorOf(req: DashboardRequest, store: Store, auth: AccountAuthStore, now: number): Promise<Visitor> {
  const cookies = cookiesOf(req);
  const token = cookies.get(SESSION_COOKIE);
  if (token !== undefined && TOKEN.test(token)) {
    const session = await auth.findSession(tokenHash(token), now);
    const account = session && (await store.getAccountById(session.accountId));
    if (session && account) return { account, session, csrf: session.csrf, cookies: [] };
  }
  const anonymous = cookies.get(CSRF_COOKIE);
  if (anonymous !== undefined && TOKEN.test(anonymous)) return { csrf: anonymous, cookies: [] };
  const fresh = newToken();
  return { csrf: fresh, cookies: [cookie(CSRF_COOKIE, fresh, ANONYMOUS_CSRF_LIFETIME_SEC)] };
}

/**
 * Use before any form changes something: the form's `csrf` field must equal the visitor's token
 * (compared in constant time), and a browser that says the post comes from another site is refused.
 */
export function csrfOk(req: DashboardRequest, visitor: Visitor, sent: string | undefined): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null' && hostOf(origin) !== req.headers.host) return false;
  // A token minted for this very request was never in any form: the browser sent no CSRF cookie.
  if (sent === undefined || visitor.cookies.length > 0) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(visitor.csrf);
  return a.length === b.length && timingSafeEqual(a, b);
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/** Use after a successful sign-in or sign-up: a new session (a fresh token, never one the visitor had). */
export async function startSession(auth: AccountAuthStore, accountId: number, now: number): Promise<string[]> {
  const token = newToken();
  await auth.createSession({ tokenHash: tokenHash(token), accountId, csrf: newToken(), createdAt: now, expiresAt: now + SESSION_LIFETIME_MS });
  return [cookie(SESSION_COOKIE, token, SESSION_LIFETIME_MS / 1000), cookie(CSRF_COOKIE, '', 0)];
}

/** Use for sign-out: the session is deleted and the browser told to drop its cookie. */
export async function endSession(auth: AccountAuthStore, visitor: Visitor): Promise<string[]> {
  if (visitor.session) await auth.deleteSession(visitor.session.tokenHash);
  return [cookie(SESSION_COOKIE, '', 0)];
}
