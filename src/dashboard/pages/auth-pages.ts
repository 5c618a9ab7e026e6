// Sign-in, sign-up and message pages: the forms of an anonymous visitor.
import { PASSWORD_LENGTH } from '../../accounts/password.js';
import { PLANS, TRIAL_LENGTH_MS } from '../../domain/plans.js';
import { html } from '../html.js';
import type { Visitor } from '../session.js';
import { csrfField, layout, notice } from './layout.js';

const TRIAL_DAYS = TRIAL_LENGTH_MS / (24 * 60 * 60 * 1000);

/** What the sign-in and sign-up forms show again after a refusal. */
export interface AuthForm {
  visitor: Visitor;
  error?: string;
  name?: string;
  signupOpen: boolean;
}

/** The sign-in page. */
export function signInPage(f: AuthForm) {
  return layout({
    title: 'Sign in',
    visitor: f.visitor,
    main: html`${notice('error', f.error)}
<form method="post" action="/signin" class="card">
  ${csrfField(f.visitor)}
  <label>Account <input name="account" autocomplete="username" required value="${f.name ?? ''}"></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form>
${f.signupOpen ? html`<p>No account yet? <a href="/signup">Sign up</a> for a free ${TRIAL_DAYS}-day builder trial.</p>` : html`<p>Accounts are made by the operator of this server (<code>msnap serve accounts</code>).</p>`}`,
  });
}

/** The sign-up page (starts a 3-day builder trial). */
export function signUpPage(f: AuthForm) {
  if (!f.signupOpen) return messagePage(f.visitor, 'Sign-up is closed', 'This server does not take sign-ups; ask its operator for an account.');
  return layout({
    title: 'Sign up',
    visitor: f.visitor,
    main: html`${notice('error', f.error)}
<p>A new account gets a free ${TRIAL_DAYS}-day trial with builder rights: ${PLANS.builder.requestsPerMinute} requests a minute, ${PLANS.builder.maxActiveKeys} API keys, and the most recent markets of each type.</p>
<form method="post" action="/signup" class="card">
  ${csrfField(f.visitor)}
  <label>Account name <input name="account" autocomplete="username" required minlength="3" maxlength="40" pattern="[A-Za-z0-9][A-Za-z0-9._\\-]{2,39}" value="${f.name ?? ''}"></label>
  <label>Password <input name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_LENGTH.min}" maxlength="${PASSWORD_LENGTH.max}"></label>
  <button type="submit">Sign up and start the trial</button>
</form>
<p>Have an account? <a href="/signin">Sign in</a>.</p>`,
  });
}

/** A page that only says one thing (refused form, unknown page, a market outside the plan). */
export function messagePage(visitor: Visitor, title: string, text: string) {
  return layout({ title, visitor, main: html`${notice('error', text)}<p><a href="/">Back to the dashboard</a></p>` });
}
