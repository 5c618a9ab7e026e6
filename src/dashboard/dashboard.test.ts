// The dashboard core without a socket, over a real SQLite file and a clock the tests move.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../accounts/create-key.js';
import { hashPassword } from '../accounts/password.js';
import { TRIAL_LENGTH_MS } from '../domain/plans.js';
import type { AccountAuthStore } from '../store/account-auth-store.js';
import type { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { openStoreWithSql } from '../store/sqlite/test-support/sql.js';
import type Database from 'better-sqlite3';
import { createDashboard, type Dashboard } from './dashboard.js';
import type { PageResponse } from './respond.js';
import { SESSION_LIFETIME_MS } from './session.js';
import { ACCOUNT_ATTEMPTS, ADDRESS_ATTEMPTS, DATA_PAGES } from './dashboard-limits.js';

const CHEAP = { N: 1 << 10, r: 8, p: 1 };
const START = Date.UTC(2026, 10, 23, 12);
const PASSWORD = 'a long enough password';
let dir: string;
let store: SqliteStore;
let auth: AccountAuthStore;
let sql: Database.Database;
let now: number;
let logged: string[];

function dashboard(signupOpen = true): Dashboard {
  return createDashboard({
    store,
    auth,
    now: () => now,
    signupOpen,
    keyUsage: () => Promise.resolve({ used: 0, limit: 250 }),
    assets: new Map([['dashboard.css', { type: 'text/css; charset=utf-8', body: 'body{}' }]]),
    log: (line) => logged.push(line),
    scryptCost: CHEAP,
  });
}

/** A browser in miniature: keeps cookies, finds the page's CSRF token, posts forms. */
class Browser {
  readonly cookies = new Map<string, string>();
  constructor(private readonly d: Dashboard, readonly address = '10.0.0.1') {}

  async request(method: string, url: string, body = '', headers: Record<string, string> = {}): Promise<PageResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await this.d.handle({ method, url, body, remoteAddress: this.address, headers: { host: 'h', ...(cookie ? { cookie } : {}), ...headers } });
    const set = res.headers['Set-Cookie'];
    for (const c of set === undefined ? [] : Array.isArray(set) ? set : [set]) {
      const [pair] = c.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (/Max-Age=0/.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  get(url: string) {
    return this.request('GET', url);
  }

  /** GETs `page`, then posts `fields` with that page's CSRF token to `action`. */
  async submit(page: string, action: string, fields: Record<string, string>): Promise<PageResponse> {
    const csrf = /name="csrf" value="([^"]+)"/.exec((await this.get(page)).body)?.[1];
    if (!csrf) throw new Error(`no CSRF token on ${page}`);
    return this.request('POST', action, new URLSearchParams({ csrf, ...fields }).toString());
  }
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-dash-'));
  ({ store, sql } = openStoreWithSql(path.join(dir, 'd.db')));
  auth = store.accountAuth;
  now = START;
  logged = [];
});
afterEach(async () => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('dashboard accounts', () => {
  it('sign-up makes a builder account on a 3-day trial and a session cookie that is HttpOnly, SameSite=Strict and expires', async () => {
    const b = new Browser(dashboard());
    const res = await b.submit('/signup', '/signup', { account: 'alice', password: PASSWORD });
    expect(res.status).toBe(303);
    expect(res.headers.Location).toBe('/');
    const set = (res.headers['Set-Cookie'] as string[]).find((c) => c.startsWith('msnap_session='))!;
    expect(set).toMatch(/^msnap_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect((await store.getAccount('alice'))).toMatchObject({ plan: 'builder', trialEndsAt: START + TRIAL_LENGTH_MS });
    // The database holds the token's hash only.
    const token = b.cookies.get('msnap_session')!;
    expect(JSON.stringify(sql.prepare('SELECT * FROM sessions').all())).not.toContain(token);

    const home = await b.get('/');
    expect(home.status).toBe(200);
    expect(home.body).toContain('trial, ends <span class="trial-end">2026-11-26 12:00:00 UTC</span> (3 d 0 h left)');

    now = START + SESSION_LIFETIME_MS - 1;
    expect((await b.get('/')).status).toBe(200);
    now = START + SESSION_LIFETIME_MS;
    expect((await b.get('/')).headers.Location).toBe('/signin');
  });

  it('refuses names taken or malformed and short passwords, creating nothing', async () => {
    const b = new Browser(dashboard());
    await b.submit('/signup', '/signup', { account: 'alice', password: PASSWORD });
    const other = new Browser(dashboard(), '10.0.0.2');
    expect((await other.submit('/signup', '/signup', { account: 'alice', password: PASSWORD })).status).toBe(409);
    expect((await other.submit('/signup', '/signup', { account: '<b>x', password: PASSWORD })).body).toContain('3 to 40 letters');
    expect((await other.submit('/signup', '/signup', { account: 'bobby', password: 'short' })).body).toContain('at least 10 characters');
    expect((await auth.listAccounts()).map((a) => a.name)).toEqual(['alice']);
  });

  it('signs in with the right password only, and sign-out ends the session on the server', async () => {
    const account = await store.createAccount({ name: 'carol', plan: 'pro', trialEndsAt: null, requestsPerMinute: null, burstPerSecond: null, createdAt: START });
    await auth.setPasswordHash(account.id, await hashPassword(PASSWORD, CHEAP), START);
    const b = new Browser(dashboard());
    const wrong = await b.submit('/signin', '/signin', { account: 'carol', password: 'not the password' });
    expect(wrong.status).toBe(401);
    const unknown = await b.submit('/signin', '/signin', { account: 'nobody', password: PASSWORD });
    expect(unknown.body).toContain('Wrong account name or password.');
    expect(wrong.body).toContain('Wrong account name or password.');
    expect((await b.submit('/signin', '/signin', { account: 'carol', password: PASSWORD })).headers.Location).toBe('/');
    const token = b.cookies.get('msnap_session')!;
    expect((await b.submit('/', '/signout', {})).headers.Location).toBe('/signin');
    // The old cookie, replayed, no longer signs anyone in.
    const replay = new Browser(dashboard());
    replay.cookies.set('msnap_session', token);
    expect((await replay.get('/')).headers.Location).toBe('/signin');
  });

  it(`limits sign-in attempts to ${ACCOUNT_ATTEMPTS.burst} per account and address and ${ADDRESS_ATTEMPTS.burst} per address in a burst; the owner elsewhere gets in`, async () => {
    const d = dashboard();
    const account = await store.createAccount({ name: 'dave', plan: 'pro', trialEndsAt: null, requestsPerMinute: null, burstPerSecond: null, createdAt: START });
    await auth.setPasswordHash(account.id, await hashPassword(PASSWORD, CHEAP), START);
    // One address guessing one account: held after the burst, even with the right password.
    const guesser = new Browser(d, '10.1.0.1');
    for (let i = 0; i < ACCOUNT_ATTEMPTS.burst; i++) {
      expect((await guesser.submit('/signin', '/signin', { account: 'dave', password: 'guess' + i })).status).toBe(401);
    }
    const held = await guesser.submit('/signin', '/signin', { account: 'DAVE', password: PASSWORD });
    expect(held.status).toBe(429);
    expect(Number(held.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    // The owner, from an address of their own, is not locked out by the guesser.
    expect((await new Browser(d, '10.1.1.1').submit('/signin', '/signin', { account: 'dave', password: PASSWORD })).status).toBe(303);
    now += 60_000;
    expect((await guesser.submit('/signin', '/signin', { account: 'dave', password: PASSWORD })).status).toBe(303);

    // From one address, many accounts: the address limit holds.
    const one = new Browser(d, '10.2.0.1');
    for (let i = 0; i < ADDRESS_ATTEMPTS.burst; i++) expect((await one.submit('/signin', '/signin', { account: `u${i}`, password: 'x' })).status).toBe(401);
    expect((await one.submit('/signin', '/signin', { account: 'fresh-name', password: 'x' })).status).toBe(429);
  });

  it('refuses a sign-in name longer than 64 characters with a clear error, without echoing it', async () => {
    const res = await new Browser(dashboard(), '10.3.0.1').submit('/signin', '/signin', { account: 'x'.repeat(8000), password: 'whatever' });
    expect(res.status).toBe(400);
    expect(res.body).toContain('at most 64 characters');
    expect(res.body).not.toContain('x'.repeat(65));
  });

  it('takes no sign-ups with --no-signup', async () => {
    const b = new Browser(dashboard(false));
    expect((await b.get('/signup')).status).toBe(403);
    expect((await b.get('/signin')).body).toContain('msnap serve accounts');
    const csrf = /name="csrf" value="([^"]+)"/.exec((await b.get('/signin')).body)![1]!;
    const res = await b.request('POST', '/signup', new URLSearchParams({ csrf, account: 'eve', password: PASSWORD }).toString());
    expect(res.status).toBe(403);
    expect((await store.getAccount('eve'))).toBeUndefined();
  });
});

describe('dashboard forms and keys', () => {
  async function signedIn(d: Dashboard, name: string, address = '10.0.0.1'): Promise<Browser> {
    const b = new Browser(d, address);
    await b.submit('/signup', '/signup', { account: name, password: PASSWORD });
    return b;
  }

  it('refuses a post without the CSRF token, with another session\'s token, or from another site', async () => {
    const d = dashboard();
    const a = await signedIn(d, 'alice');
    const b = await signedIn(d, 'bobby', '10.0.0.2');
    const tokenOfB = /name="csrf" value="([^"]+)"/.exec((await b.get('/')).body)![1]!;
    expect((await a.request('POST', '/keys', '')).status).toBe(403);
    expect((await a.request('POST', '/keys', `csrf=${tokenOfB}`)).status).toBe(403);
    const tokenOfA = /name="csrf" value="([^"]+)"/.exec((await a.get('/')).body)![1]!;
    expect((await a.request('POST', '/keys', `csrf=${tokenOfA}`, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await a.request('POST', '/keys', `csrf=${tokenOfA}`, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await auth.keysOf((await store.getAccount('alice'))!.id))).toEqual([]);
    expect((await a.request('POST', '/keys', `csrf=${tokenOfA}`, { origin: 'http://h' })).status).toBe(303);
    expect((await auth.keysOf((await store.getAccount('alice'))!.id))).toHaveLength(1);
  });

  it("refuses a key past the plan's active-key count with the plan's message; revoking one makes room", async () => {
    const b = await signedIn(dashboard(), 'alice');
    for (let i = 0; i < 3; i++) expect((await b.submit('/', '/keys', {})).status).toBe(303);
    const refused = await b.submit('/', '/keys', {});
    expect(refused.status).toBe(409);
    expect(refused.body).toContain('account &quot;alice&quot; already has 3 active keys, the most the builder plan allows (3); revoke one to create another.');
    expect(refused.body).not.toContain('new-key');
    const [first] = await auth.keysOf((await store.getAccount('alice'))!.id);
    expect((await b.submit('/', '/keys/revoke', { id: String(first!.id), confirm: 'yes' })).status).toBe(303);
    expect((await b.submit('/', '/keys', {})).status).toBe(303);
  });

  it('creates a key by post/redirect/get: the page after the redirect shows it once, a reload shows and creates nothing', async () => {
    const b = await signedIn(dashboard(), 'alice');
    const accountId = (await store.getAccount('alice'))!.id;
    const long = await b.submit('/', '/keys', { name: 'x'.repeat(61) });
    expect(long.status).toBe(400);
    expect(long.body).toContain('a key name has at most 60 characters.');
    const posted = await b.submit('/', '/keys', { name: ' laptop ' });
    expect(posted.status).toBe(303);
    expect(posted.headers.Location).toBe('/');
    expect(posted.body).not.toMatch(/msk_/);
    const shown = await b.get('/');
    const key = /<code id="new-key">(msk_[0-9A-Za-z]{40})<\/code>/.exec(shown.body)?.[1];
    expect(key).toBeDefined();
    expect((await store.findKeyByHash(sql.prepare('SELECT key_hash FROM api_keys WHERE account_id = ?').pluck().get(accountId) as string))!.prefix).toBe(key!.slice(0, 8));
    expect(shown.body).toContain('<td class="key-name">laptop</td>');
    expect(shown.body).toContain('<td class="last-used">never</td>');
    const reload = await b.get('/');
    expect(reload.body).not.toContain(key!);
    expect(reload.body).not.toContain('id="new-key"');
    expect(await auth.keysOf(accountId)).toHaveLength(1);
    // The cookie is shown only to the account whose key it is.
    const other = await signedIn(dashboard(), 'bobby', '10.0.0.2');
    other.cookies.set('msnap_new_key', key!);
    expect((await other.get('/')).body).not.toContain(key!);
  });

  it('revokes a key only from its confirmation page, which works without a script', async () => {
    const b = await signedIn(dashboard(), 'alice');
    await b.submit('/', '/keys', {});
    const home = (await b.get('/')).body;
    const [key] = await auth.keysOf((await store.getAccount('alice'))!.id);
    expect(home).toContain(`<form method="get" action="/keys/revoke" class="inline"><input type="hidden" name="id" value="${key!.id}">`);
    const confirm = await b.get(`/keys/revoke?id=${key!.id}`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain(`Key <code>${key!.prefix}…</code>`);
    expect(confirm.body).toContain('<input type="hidden" name="confirm" value="yes">');
    // A post without the confirmation is sent to the page that asks; nothing is revoked.
    const unconfirmed = await b.submit('/', '/keys/revoke', { id: String(key!.id) });
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.headers.Location).toBe(`/keys/revoke?id=${key!.id}`);
    expect((await auth.keysOf(key!.accountId))[0]!.revokedAt).toBeNull();
    expect((await b.submit(`/keys/revoke?id=${key!.id}`, '/keys/revoke', { id: String(key!.id), confirm: 'yes' })).status).toBe(303);
    expect((await auth.keysOf(key!.accountId))[0]!.revokedAt).toBe(now);
    expect((await b.get(`/keys/revoke?id=${key!.id}`)).status).toBe(409);
    expect((await b.get('/keys/revoke?id=999')).status).toBe(404);
    expect((await b.get('/keys/revoke?id=%3Cx')).status).toBe(404);
  });

  it("cannot revoke another account's key, and an ended trial creates no key", async () => {
    const d = dashboard();
    const a = await signedIn(d, 'alice');
    const other = await createApiKey(store, { account: 'ops', plan: 'pro', now });
    const res = await a.submit('/', '/keys/revoke', { id: String(other.record.id), confirm: 'yes' });
    expect(res.status).toBe(404);
    expect((await a.get(`/keys/revoke?id=${other.record.id}`)).status).toBe(404);
    expect((await store.findKeyByHash(sql.prepare('SELECT key_hash FROM api_keys WHERE id = ?').pluck().get(other.record.id) as string))!.revokedAt).toBeNull();
    now = START + TRIAL_LENGTH_MS;
    // Sessions last 12 hours: sign in again on the day the trial ends.
    expect((await a.submit('/signin', '/signin', { account: 'alice', password: PASSWORD })).status).toBe(303);
    const home = await a.get('/');
    expect(home.body).toContain('trial, <span class="bad">ended 2026-11-26 12:00:00 UTC</span>');
    const late = await a.submit('/', '/keys', {});
    expect(late.status).toBe(403);
    expect(late.body).toContain('trial of this account has ended');
    expect((await a.get('/markets')).status).toBe(403);
  });

  it(`limits market pages and chart data to a burst of ${DATA_PAGES.burst} per account, so the browser is no way around the API's limits`, async () => {
    const d = dashboard();
    const a = await signedIn(d, 'alice');
    for (let i = 0; i < DATA_PAGES.burst; i++) expect((await a.get(i % 2 ? '/markets' : '/markets/btc-updown-5m-1/series')).status).toBeLessThan(429);
    const held = await a.get('/markets');
    expect(held.status).toBe(429);
    expect(Number(held.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    // Another account has its own allowance.
    expect((await (await signedIn(d, 'bobby', '10.0.0.2')).get('/markets')).status).toBe(200);
    now += 1000;
    expect((await a.get('/markets')).status).toBe(200);
  });

  it('claims only its own paths: every API path stays the API\'s', async () => {
    const d = dashboard();
    for (const url of ['/', '/signin', '/signup?x=1', '/signout', '/keys', '/keys/revoke', '/markets', '/markets/btc-updown-5m-1', '/markets/x/series', '/assets/dashboard.css', '/assets/page/main.js']) {
      expect(d.claims(url), url).toBe(true);
    }
    for (const url of ['/api/v1/markets', '/v1/markets', '/api/health', '/health', '/v2/markets', '/v4/health', '/api/v1/limits', '/api', '/v9/x', '/api/nope']) {
      expect(d.claims(url), url).toBe(false);
    }
  });

  it('answers an unknown page outside the API with an HTML 404 page, whatever the method', async () => {
    const d = dashboard();
    const b = await signedIn(d, 'alice');
    for (const url of ['/favicon.ico', '//', '/markets/', '/keys/revoke/x', '/nope?x=1', '/apix', '/healthz']) {
      expect(d.claims(url), url).toBe(true);
      for (const method of ['GET', 'POST']) {
        const res = await b.request(method, url);
        expect(res.status, `${method} ${url}`).toBe(404);
        expect(res.headers['Content-Type'], url).toBe('text/html; charset=utf-8');
        expect(res.body).toContain('There is no such page on this dashboard.');
        // The signed-in frame: the navigation is there to find the way back.
        expect(res.body).toContain('href="/markets"');
      }
    }
  });

  it('answers hostile paths, queries and forms with a page, never a 500 or an unescaped value', async () => {
    const d = dashboard();
    const b = await signedIn(d, 'alice');
    const evil = '<script>alert(1)</script>';
    const e = encodeURIComponent(evil);
    const gets = [
      `/markets?coin=${e}`, `/markets?market_type=${e}`, `/markets?status=${e}&page=-1`, '/markets?page=99999999', '/markets?coin=BTC&coin=ETH',
      `/markets/${e}`, '/markets/btc-updown-5m-99999999999', '/markets/btc-updown-5m-1/series', `/markets/btc-updown-5m-1?at=${e}`,
      '/markets/%ff', '/assets/..%2f..%2fpackage.json', '/assets/page/..%2fassets.js',
    ];
    for (const url of gets) {
      const res = await b.get(url);
      expect(res.status, url).toBeLessThan(500);
      expect(res.body, url).not.toContain(evil);
    }
    const csrf = /name="csrf" value="([^"]+)"/.exec((await b.get('/')).body)![1]!;
    for (const body of [`csrf=${csrf}&id=${e}`, `csrf=${csrf}&id=1e400`, `csrf=${csrf}&id=&id=2`, `csrf=${csrf}&%ff=%zz`, `csrf=${csrf}&account=${e}`]) {
      const res = await b.request('POST', '/keys/revoke', body);
      expect(res.status, body).toBeLessThan(500);
      expect(res.body).not.toContain(evil);
    }
    const anon = new Browser(d, '10.9.9.9');
    const res = await anon.submit('/signin', '/signin', { account: evil, password: 'x' });
    expect(res.status).toBe(401);
    expect(res.body).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(logged).toEqual([]);
  });

  it('answers a store failure with a 500 page and logs method and path only', async () => {
    const b = await signedIn(dashboard(), 'alice');
    store.close();
    const res = await b.get('/markets?coin=BTC');
    expect(res.status).toBe(500);
    expect(res.body).toContain('unexpected error');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^msnap serve: dashboard 500 on GET \/markets: /);
    expect(logged[0]).not.toContain(b.cookies.get('msnap_session')!);
  });

  it('answers a wrong method with 405 and Allow, and never logs a form', async () => {
    const b = new Browser(dashboard());
    const res = await b.request('DELETE', '/signin');
    expect(res.status).toBe(405);
    expect(res.headers.Allow).toBe('GET, HEAD, POST');
    expect((await b.request('GET', '/keys')).headers.Allow).toBe('POST');
    await b.submit('/signup', '/signup', { account: 'alice', password: PASSWORD });
    expect(logged).toEqual([]);
  });
});
