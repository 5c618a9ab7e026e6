// The signed-in home page: plan, trial, limits, data window, this minute's usage, and the
// account's keys with create (the key shown once) and revoke (confirmed on a page of its own).
import { MAX_KEY_NAME_LENGTH } from '../../accounts/key-name.js';
import { keyStatus, needsRotation } from '../../accounts/key-status.js';
import { MARKET_TYPES } from '../../domain/market.js';
import { KEY_ROTATION_MS, PLANS } from '../../domain/plans.js';
import type { LimitConfig } from '../../ratelimit/key-limiter.js';
import type { Account, ApiKeyRecord } from '../../store/store.js';
import { html, type SafeHtml } from '../html.js';
import type { Visitor } from '../session.js';
import { csrfField, layout, notice, utc } from './layout.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** One key's requests in the current sliding minute. */
export interface KeyUsage {
  used: number;
  limit: number;
}

/** Everything the account page shows. */
export interface AccountModel {
  visitor: Visitor & { account: Account };
  now: number;
  limits: LimitConfig;
  keys: readonly ApiKeyRecord[];
  usage: ReadonlyMap<number, KeyUsage>;
  /** A key just created: shown this once, never again. */
  newKey?: string;
  error?: string;
}

function planSummary(account: Account, now: number): SafeHtml {
  if (account.trialEndsAt === null) return html`<strong>${account.plan}</strong>`;
  if (account.trialEndsAt <= now) {
    return html`<strong>${account.plan}</strong> trial, <span class="bad">ended ${utc(account.trialEndsAt)}</span>: its keys are refused (401) until the operator sets a plan`;
  }
  const left = account.trialEndsAt - now;
  const days = Math.floor(left / DAY_MS);
  const hours = Math.floor((left % DAY_MS) / 3_600_000);
  return html`<strong>${account.plan}</strong> trial, ends <span class="trial-end">${utc(account.trialEndsAt)}</span> (${days} d ${hours} h left)`;
}

function windowTable(account: Account): SafeHtml {
  const window = PLANS[account.plan].dataWindow;
  if (!window) return html`<p>All markets and snapshots.</p>`;
  return html`<table class="compact"><tr>${MARKET_TYPES.map((t) => html`<th>${t}</th>`)}</tr>
  <tr>${MARKET_TYPES.map((t) => html`<td>${window[t].toLocaleString('en-US')}</td>`)}</tr></table>
  <p class="hint">The most recent markets of each type, per coin.</p>`;
}

/** A rotation date: the day is enough (keys are due after 90 days), and the table stays narrow. */
function utcDay(ms: number): string {
  return utc(ms).slice(0, 10);
}

function keyRow(key: ApiKeyRecord, m: AccountModel): SafeHtml {
  const status = keyStatus(key, m.visitor.account, m.now);
  const ageDays = Math.floor((m.now - key.createdAt) / DAY_MS);
  const due = key.createdAt + KEY_ROTATION_MS;
  const use = m.usage.get(key.id);
  const statusText =
    status === 'revoked' ? `revoked ${utc(key.revokedAt!)}` : status === 'expired' ? `expired ${utc(key.expiresAt!)}` : status;
  return html`<tr data-key-id="${key.id}" class="status-${status.replace(' ', '-')}">
    <td><code>${key.prefix}…</code></td>
    <td class="key-name">${key.name ?? ''}</td>
    <td>${utc(key.createdAt)}</td>
    <td>${ageDays} d</td>
    <td>${needsRotation(key, m.now) ? html`<span class="bad">due since ${utcDay(due)}</span>` : utcDay(due)}</td>
    <td class="key-status">${statusText}</td>
    <td>${status === 'active' && use ? `${use.used} / ${use.limit}` : ''}</td>
    <td class="last-used">${key.lastUsedAt === null ? 'never' : utc(key.lastUsedAt)}</td>
    <td>${
      status === 'active'
        ? html`<form method="get" action="/keys/revoke" class="inline"><input type="hidden" name="id" value="${key.id}"><button type="submit" class="danger">Revoke…</button></form>`
        : ''
    }</td>
  </tr>`;
}

function newKeyBox(key: string | undefined): SafeHtml {
  if (!key) return html``;
  return html`<div class="new-key" role="status">
  <p>Your new API key. Copy it now: it is not shown again (only its hash is stored).</p>
  <p><code id="new-key">${key}</code> <button type="button" data-copy="new-key">Copy</button> <span class="copied" hidden>Copied</span></p>
  <p class="hint">Use it: <code>msnap keys add local</code> (paste when asked) or <code>X-API-Key: …</code></p>
</div>`;
}

/** The account page. */
export function accountPage(m: AccountModel) {
  const a = m.visitor.account;
  const plan = PLANS[a.plan];
  const active = m.keys.filter((k) => keyStatus(k, a, m.now) === 'active').length;
  const usedNow = [...m.usage.values()].reduce((n, u) => n + u.used, 0);
  return layout({
    title: `Account ${a.name}`,
    visitor: m.visitor,
    main: html`${notice('error', m.error)}${newKeyBox(m.newKey)}
<section class="card">
  <h2>Plan</h2>
  <dl>
    <dt>Plan</dt><dd class="plan">${planSummary(a, m.now)}</dd>
    <dt>Rate limits (per key)</dt><dd>${m.limits.perMinute.toLocaleString('en-US')} requests a minute, burst ${m.limits.burst} a second</dd>
    <dt>Active keys</dt><dd>${active} of ${plan.maxActiveKeys ?? 'unlimited'}</dd>
    <dt>This minute</dt><dd class="usage">${usedNow} request${usedNow === 1 ? '' : 's'} over the last 60 s</dd>
  </dl>
  <h3>Data window</h3>
  ${windowTable(a)}
</section>
<section class="card">
  <h2>API keys</h2>
  <div class="scroll-x"><table class="keys">
    <thead><tr><th>Key</th><th>Name</th><th>Created</th><th>Age</th><th>Rotate by (${KEY_ROTATION_MS / DAY_MS} d)</th><th>Status</th><th>This minute</th><th>Last used</th><th></th></tr></thead>
    <tbody>${m.keys.length ? m.keys.map((k) => keyRow(k, m)) : html`<tr><td colspan="9">No keys yet.</td></tr>`}</tbody>
  </table></div>
  <p class="hint">Last used: recorded at most once a minute per key.</p>
  <form method="post" action="/keys" class="create-key">${csrfField(m.visitor)}<label>Name (optional) <input name="name" maxlength="${MAX_KEY_NAME_LENGTH}" placeholder="laptop, bot, ci"></label> <button type="submit">Create a key</button></form>
</section>`,
  });
}
