// Sign-in, sign-up and sign-out. Attempts are charged to the per-address and per-account
// limiters before any password work; a wrong name and a wrong password read the same.
import { burnPasswordCheck, hashPassword, passwordProblem, verifyPassword } from '../accounts/password.js';
import { accountNameProblem, MAX_ACCOUNT_NAME_LENGTH, signUp } from '../accounts/sign-up.js';
import { HashesBusyError } from '../accounts/hash-slots.js';
import { HttpException } from '../server/http-error.js';
import type { Decision } from '../ratelimit/key-limiter.js';
import type { PageCall, PageRoute } from './context.js';
import { signInPage, signUpPage } from './pages/auth-pages.js';
import { htmlAnswer, redirect, type PageResponse } from './respond.js';
import { endSession, startSession } from './session.js';

function tooMany(call: PageCall, d: Decision, name: string): PageResponse {
  const s = d.retryAfterSec;
  const error = `Too many attempts; try again in ${s} second${s === 1 ? '' : 's'}.`;
  return htmlAnswer(429, signInPage({ visitor: call.visitor, error, name, signupOpen: call.signupOpen }), { headers: { 'Retry-After': String(s) } });
}

/** Runs a password hash in one of the dashboard's few slots; a 503 page when all are taken. */
async function hashing<T>(call: PageCall, work: () => Promise<T>): Promise<T> {
  try {
    return await call.hashes.run(work);
  } catch (err) {
    if (!(err instanceof HashesBusyError)) throw err;
    throw new HttpException(503, err.message, {}, { 'Retry-After': String(err.retryAfterSec) });
  }
}

async function signIn(call: PageCall): Promise<PageResponse> {
  const name = (call.form.get('account') ?? '').trim();
  const password = call.form.get('password') ?? '';
  const page = (status: number, error: string, shownName: string) =>
    htmlAnswer(status, signInPage({ visitor: call.visitor, error, name: shownName, signupOpen: call.signupOpen }));
  // Too long to be anyone's name: refused before any limiter keeps it, or the page echoes it.
  if (name.length > MAX_ACCOUNT_NAME_LENGTH) {
    const refused = await call.limits.takeAddress(call.req.remoteAddress, call.now);
    if (refused) return tooMany(call, refused, '');
    return page(400, `An account name has at most ${MAX_ACCOUNT_NAME_LENGTH} characters.`, '');
  }
  const refused = await call.limits.takeSignIn(call.req.remoteAddress, name, call.now);
  if (refused) return tooMany(call, refused, name);
  const account = name === '' ? undefined : await call.store.getAccount(name);
  const stored = account && (await call.auth.passwordHash(account.id));
  const ok = await hashing(call, () => (stored ? verifyPassword(password, stored) : burnPasswordCheck(password, call.scryptCost)));
  if (!ok || !account) return page(401, 'Wrong account name or password.', name);
  return redirect('/', { cookies: await startSession(call.auth, account.id, call.now) });
}

async function signUpRoute(call: PageCall): Promise<PageResponse> {
  const name = (call.form.get('account') ?? '').trim();
  const password = call.form.get('password') ?? '';
  const shown = name.slice(0, MAX_ACCOUNT_NAME_LENGTH);
  const again = (status: number, error: string) => htmlAnswer(status, signUpPage({ visitor: call.visitor, error, name: shown, signupOpen: call.signupOpen }));
  if (!call.signupOpen) return again(403, 'Sign-up is closed on this server.');
  // Sign-ups share the address limiter and have a daily allowance: an address cannot mint
  // accounts (or scrypt work) without bound.
  const refused = await call.limits.takeSignUp(call.req.remoteAddress, call.now);
  if (refused) return again(429, `Too many attempts or sign-ups from this address; try again in ${refused.retryAfterSec} s.`);
  const problem = accountNameProblem(name) ?? passwordProblem(password);
  if (problem) return again(400, problem);
  const passwordHash = await hashing(call, () => hashPassword(password, call.scryptCost));
  const result = await signUp(call.store, { name, passwordHash, now: call.now });
  if ('problem' in result) return again(409, result.problem);
  await call.limits.chargeSignUp(call.req.remoteAddress, call.now);
  return redirect('/', { cookies: await startSession(call.auth, result.account.id, call.now) });
}

/** The routes of an anonymous visitor, and sign-out. */
export const accountRoutes: readonly PageRoute[] = [
  {
    method: 'GET',
    pattern: '/signin',
    signedIn: false,
    handle: (call) =>
      call.visitor.account ? redirect('/') : htmlAnswer(200, signInPage({ visitor: call.visitor, signupOpen: call.signupOpen })),
  },
  { method: 'POST', pattern: '/signin', signedIn: false, handle: signIn },
  {
    method: 'GET',
    pattern: '/signup',
    signedIn: false,
    handle: (call) =>
      call.visitor.account ? redirect('/') : htmlAnswer(call.signupOpen ? 200 : 403, signUpPage({ visitor: call.visitor, signupOpen: call.signupOpen })),
  },
  { method: 'POST', pattern: '/signup', signedIn: false, handle: signUpRoute },
  { method: 'POST', pattern: '/signout', signedIn: false, handle: async (call) => redirect('/signin', { cookies: await endSession(call.auth, call.visitor) }) },
];
