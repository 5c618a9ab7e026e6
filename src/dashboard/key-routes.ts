// The account page and its forms: create a key (post/redirect/get: the key rides a short-lived
// cookie to the page, which shows it once and drops the cookie, so a reload creates nothing and
// shows nothing) and revoke one (after a confirmation page). The plan's rules are the CLI's:
// createApiKey refuses past the active-key count.
import { hashApiKey } from '../accounts/api-key.js';
import { parseKeyName } from '../accounts/key-name.js';
import { createApiKey, KeyLimitError } from '../accounts/create-key.js';
import { keyStatus } from '../accounts/key-status.js';
import { limitsFor } from '../server/rate-limit.js';
import type { PageRoute, SignedInCall } from './context.js';
import { accountPage, type KeyUsage } from './pages/account-page.js';
import { revokePage } from './pages/revoke-page.js';
import { cookiesOf, queryOf } from './request.js';
import { cookie, htmlAnswer, redirect, type PageResponse } from './respond.js';

/** The cookie that carries a just-created key from the post to the page that shows it once. */
const NEW_KEY_COOKIE = 'msnap_new_key';
/** Long enough for the redirect, short enough that an unopened key does not linger. */
const NEW_KEY_COOKIE_SEC = 120;

async function page(call: SignedInCall, status: number, extra: { newKey?: string; error?: string } = {}): Promise<PageResponse> {
  const account = call.visitor.account;
  const keys = await call.auth.keysOf(account.id);
  const usage = new Map<number, KeyUsage>();
  for (const k of keys) if (keyStatus(k, account, call.now) === 'active') usage.set(k.id, await call.keyUsage(k.id, account, call.now));
  return htmlAnswer(status, accountPage({ visitor: call.visitor, now: call.now, limits: limitsFor(account), keys, usage, ...extra }));
}

/** The account page, with the key of the cookie when it is an active key of this very account (then the cookie is dropped). */
async function home(call: SignedInCall): Promise<PageResponse> {
  const carried = cookiesOf(call.req).get(NEW_KEY_COOKIE);
  if (!carried) return page(call, 200);
  const record = await call.store.findKeyByHash(hashApiKey(carried));
  const mine = record && record.accountId === call.visitor.account.id && keyStatus(record, call.visitor.account, call.now) === 'active';
  const answer = await page(call, 200, mine ? { newKey: carried } : {});
  return { ...answer, headers: { ...answer.headers, 'Set-Cookie': cookie(NEW_KEY_COOKIE, '', 0) } };
}

async function createKey(call: SignedInCall): Promise<PageResponse> {
  const account = call.visitor.account;
  if (account.trialEndsAt !== null && account.trialEndsAt <= call.now) {
    return page(call, 403, { error: 'The trial of this account has ended: a new key would be refused. Ask the operator to set a plan.' });
  }
  let name: string | null;
  try {
    name = parseKeyName(call.form.get('name'));
  } catch (err) {
    return page(call, 400, { error: `${(err as Error).message}.` });
  }
  try {
    const created = await createApiKey(call.store, { account: account.name, name, now: call.now });
    return redirect('/', { cookies: [cookie(NEW_KEY_COOKIE, created.key, NEW_KEY_COOKIE_SEC)] });
  } catch (err) {
    if (err instanceof KeyLimitError) return page(call, 409, { error: `${err.planMessage}; revoke one to create another.` });
    throw err;
  }
}

/** The key of this account an `id` field names; another account's id reads the same as none. */
async function ownKey(call: SignedInCall, field: string | null | undefined) {
  const id = Number(field ?? undefined);
  return Number.isSafeInteger(id) ? (await call.auth.keysOf(call.visitor.account.id)).find((k) => k.id === id) : undefined;
}

async function confirmRevoke(call: SignedInCall): Promise<PageResponse> {
  const key = await ownKey(call, queryOf(call.req.url).get('id'));
  if (!key) return page(call, 404, { error: 'No such key on this account.' });
  if (key.revokedAt !== null) return page(call, 409, { error: `Key ${key.prefix}… is already revoked.` });
  return htmlAnswer(200, revokePage(call.visitor, key));
}

async function revokeKey(call: SignedInCall): Promise<PageResponse> {
  const key = await ownKey(call, call.form.get('id'));
  if (!key) return page(call, 404, { error: 'No such key on this account.' });
  // Only the confirmation page's form revokes; any other post is sent there first.
  if (call.form.get('confirm') !== 'yes') return redirect(`/keys/revoke?id=${key.id}`);
  if (!(await call.store.revokeKey(key.id, call.now))) return page(call, 409, { error: `Key ${key.prefix}… is already revoked.` });
  return redirect('/');
}

/** The account page, key create, and key revoke with its confirmation page. */
export const keyRoutes: readonly PageRoute[] = [
  { method: 'GET', pattern: '/', signedIn: true, handle: (call) => home(call as SignedInCall) },
  { method: 'POST', pattern: '/keys', signedIn: true, handle: (call) => createKey(call as SignedInCall) },
  { method: 'GET', pattern: '/keys/revoke', signedIn: true, handle: (call) => confirmRevoke(call as SignedInCall) },
  { method: 'POST', pattern: '/keys/revoke', signedIn: true, handle: (call) => revokeKey(call as SignedInCall) },
];
