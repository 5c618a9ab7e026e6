// The account page and its two forms: create a key (shown once, in the answer to the post) and
// revoke one. The plan's rules are the CLI's: createApiKey refuses past the active-key count.
import { createApiKey, KeyLimitError } from '../accounts/create-key.js';
import { keyStatus } from '../accounts/key-status.js';
import { limitsFor } from '../server/rate-limit.js';
import type { PageRoute, SignedInCall } from './context.js';
import { accountPage, type KeyUsage } from './pages/account-page.js';
import { htmlAnswer, redirect, type PageResponse } from './respond.js';

async function page(call: SignedInCall, status: number, extra: { newKey?: string; error?: string } = {}): Promise<PageResponse> {
  const account = call.visitor.account;
  const keys = await call.auth.keysOf(account.id);
  const usage = new Map<number, KeyUsage>();
  for (const k of keys) if (keyStatus(k, account, call.now) === 'active') usage.set(k.id, await call.keyUsage(k.id, account, call.now));
  return htmlAnswer(status, accountPage({ visitor: call.visitor, now: call.now, limits: limitsFor(account), keys, usage, ...extra }));
}

async function createKey(call: SignedInCall): Promise<PageResponse> {
  const account = call.visitor.account;
  if (account.trialEndsAt !== null && account.trialEndsAt <= call.now) {
    return page(call, 403, { error: 'The trial of this account has ended: a new key would be refused. Ask the operator to set a plan.' });
  }
  try {
    const created = await createApiKey(call.store, { account: account.name, now: call.now });
    return page(call, 200, { newKey: created.key });
  } catch (err) {
    if (err instanceof KeyLimitError) return page(call, 409, { error: `${err.planMessage}; revoke one to create another.` });
    throw err;
  }
}

async function revokeKey(call: SignedInCall): Promise<PageResponse> {
  const id = Number(call.form.get('id'));
  const key = Number.isSafeInteger(id) ? (await call.auth.keysOf(call.visitor.account.id)).find((k) => k.id === id) : undefined;
  // Another account's key id reads the same as no key: ids say nothing about other accounts.
  if (!key) return page(call, 404, { error: 'No such key on this account.' });
  if (!(await call.store.revokeKey(key.id, call.now))) return page(call, 409, { error: `Key ${key.prefix}… is already revoked.` });
  return redirect('/');
}

/** The account page, and key create and revoke. */
export const keyRoutes: readonly PageRoute[] = [
  { method: 'GET', pattern: '/', signedIn: true, handle: (call) => page(call as SignedInCall, 200) },
  { method: 'POST', pattern: '/keys', signedIn: true, handle: (call) => createKey(call as SignedInCall) },
  { method: 'POST', pattern: '/keys/revoke', signedIn: true, handle: (call) => revokeKey(call as SignedInCall) },
];
