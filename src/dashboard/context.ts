// What every dashboard handler receives: the stores, the clock of this request, the visitor,
// the path's parameters and the form (POST). Nothing global.
import type { HashSlots } from '../accounts/hash-slots.js';
import type { ScryptCost } from '../accounts/password.js';
import type { AccountAuthStore } from '../store/account-auth-store.js';
import type { Account, Store } from '../store/store.js';
import type { KeyUsage } from './pages/account-page.js';
import type { DashboardRequest } from './request.js';
import type { PageResponse } from './respond.js';
import type { Visitor } from './session.js';
import type { DashboardLimits } from './dashboard-limits.js';

/** The dashboard's long-lived parts, built once by createDashboard. */
export interface DashboardServices {
  store: Store;
  auth: AccountAuthStore;
  signupOpen: boolean;
  limits: DashboardLimits;
  /** A key's requests in the current minute, from the API's own limiter. */
  keyUsage: (keyId: number, account: Account, now: number) => Promise<KeyUsage>;
  scryptCost?: ScryptCost;
  /** The few slots every password hash or check runs in. */
  hashes: HashSlots;
}

/** One request as a handler sees it. */
export interface PageCall extends DashboardServices {
  req: DashboardRequest;
  now: number;
  visitor: Visitor;
  params: Record<string, string>;
  /** The url-encoded form of a POST (CSRF already checked); empty for GET. */
  form: Map<string, string>;
}

/** A visitor known to be signed in (routes marked `signedIn` only get these). */
export type SignedInCall = PageCall & { visitor: Visitor & { account: Account } };

/** One dashboard route: method, path pattern (`:name` segments), whether it needs a session. */
export interface PageRoute {
  method: 'GET' | 'POST';
  pattern: string;
  signedIn: boolean;
  handle(call: PageCall): PageResponse | Promise<PageResponse>;
}
