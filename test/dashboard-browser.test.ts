// The dashboard in a real headless browser (Debian's chromium through playwright-core) against a
// real `msnap serve` over a seeded SQLite file, with the built CLI using the keys it makes.
// MSNAP_UPDATE_SCREENSHOTS=1 also writes the README's docs/dashboard-*.png.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, msnap, ROOT, seed, startServe, type Served } from './support/msnap-process.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--headless'];
const PASSWORD = 'correct horse battery staple';
const TRIAL_MS = 3 * 24 * 60 * 60 * 1000;
const SCREENSHOTS = process.env.MSNAP_UPDATE_SCREENSHOTS === '1';

let dir: string;
let db: string;
let served: Served;
let browser: Browser;
let proKey: string;
/** Console errors and CSP reports from every page of every test: none may appear. */
const problems: string[] = [];

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-dashboard-'));
  db = path.join(dir, 'dash.db');
  await seed(db, ['--days', '15', '--full', '5m=2,15m=0,1hr=0,4hr=0,24hr=0']);
  proKey = await createKey(db, 'ops-pro', 'pro', ['--name', 'ops bot']);
  // One address signs up every test's account (the default allows 5 a day).
  served = await startServe(db, { args: ['--signups-per-day', '20'] });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function newPage(options: BrowserContextOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, ...options });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.url });
  const page = await context.newPage();
  page.on('console', (m) => {
    // The refused sign-in (401), the market outside the window (403) and the unknown page (404) are meant to fail.
    if (m.type() === 'error' && !/^Failed to load resource: .* status of 40[134] /.test(m.text())) problems.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${page.url()}: ${e.message}`));
  return { context, page };
}

async function signUp(page: Page, name: string): Promise<void> {
  await page.goto(`${served.url}/signup`);
  await page.fill('input[name=account]', name);
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(`${served.url}/`);
}

async function shot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: path.join(ROOT, 'docs', `dashboard-${name}.png`), fullPage: true });
}

// A real browser on a machine shared with other builds: give each flow more than the default 30 s.
describe('the dashboard in a browser', { timeout: 60_000 }, () => {
  it('sign up starts a 3-day trial; a key made in the page works in the CLI until it is revoked in the page', async () => {
    const { context, page } = await newPage();
    await page.goto(served.url);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await shot(page, 'signin');
    await page.click('a[href="/signup"]');
    await shot(page, 'signup');
    const before = Date.now();
    await signUp(page, 'alice');
    const plan = await page.textContent('.plan');
    expect(plan).toMatch(/builder trial, ends/);
    const ends = Date.parse((await page.textContent('.trial-end'))!.replace(' UTC', 'Z').replace(' ', 'T'));
    expect(ends).toBeGreaterThanOrEqual(Math.floor((before + TRIAL_MS) / 1000) * 1000);
    expect(ends).toBeLessThanOrEqual(Date.now() + TRIAL_MS);

    await page.fill('form.create-key input[name=name]', 'laptop');
    await page.click('text=Create a key');
    await page.waitForURL(`${served.url}/`);
    const key = (await page.textContent('#new-key'))!.trim();
    expect(key).toMatch(/^msk_[0-9A-Za-z]{40}$/);
    await page.click('button[data-copy="new-key"]');
    await expect.poll(() => page.textContent('.copied')).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await shot(page, 'new-key');

    const ok = await msnap(['limits', '--api-key', key, '--base-url', served.url, '--json']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ plan: 'builder', trial: { active: true }, api_keys: { active: 1, max: 3 } });

    // Shown once: a reload (of the page the post redirected to) shows no key and makes none;
    // a fresh load has the prefix only, and the usage of the CLI's request.
    await page.reload();
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('tr[data-key-id]').count()).toBe(1);
    await page.goto(served.url);
    expect(await page.content()).not.toContain(key);
    const row = page.locator('tr[data-key-id]');
    await expect.poll(() => row.locator('code').textContent()).toBe(`${key.slice(0, 8)}…`);
    expect(await row.locator('td').nth(6).textContent()).toMatch(/^[1-9]\d* \/ 250$/);
    // Its name, and the CLI's request as its last use (UTC, to the second).
    expect(await row.locator('.key-name').textContent()).toBe('laptop');
    const lastUsed = Date.parse((await row.locator('.last-used').textContent())!.replace(' UTC', 'Z').replace(' ', 'T'));
    expect(lastUsed).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(lastUsed).toBeLessThanOrEqual(Date.now());
    await shot(page, 'account');

    // Revoking asks first: Cancel keeps the key, the confirmation page's button revokes it.
    await row.locator('button', { hasText: 'Revoke' }).click();
    await page.waitForURL(/\/keys\/revoke\?id=\d+$/);
    expect(await page.textContent('.confirm-revoke')).toContain(`${key.slice(0, 8)}…`);
    await page.click('text=Cancel');
    await page.waitForURL(`${served.url}/`);
    expect(await page.locator('tr[data-key-id] .key-status').textContent()).toBe('active');
    await row.locator('button', { hasText: 'Revoke' }).click();
    await page.click('button:has-text("Revoke the key")');
    await page.waitForURL(`${served.url}/`);
    expect(await page.locator('tr[data-key-id] .key-status').textContent()).toMatch(/^revoked /);
    const refused = await msnap(['limits', '--api-key', key, '--base-url', served.url]);
    expect(refused.exitCode).toBe(3);
    expect(refused.stderr).toMatch(/revoked/);

    // Sign out ends the session; signing in again with the password brings the account back.
    await page.click('text=Sign out');
    await page.waitForURL(`${served.url}/signin`);
    await page.goto(served.url);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await page.fill('input[name=account]', 'alice');
    await page.fill('input[name=password]', 'wrong password!!');
    await page.click('button[type=submit]');
    expect(await page.textContent('.notice.error')).toMatch(/Wrong account name or password/);
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(`${served.url}/`);
    expect(await page.textContent('h1')).toBe('Account alice');
    // No password, key or session token reached the server's log.
    const session = (await context.cookies()).find((c) => c.name === 'msnap_session')!.value;
    expect(session).toMatch(/^[\w-]{43}$/);
    for (const secret of [PASSWORD, key, key.slice(4), session]) expect(served.output()).not.toContain(secret);
    await context.close();
  });

  it('lists markets with filters and charts a market with data (non-empty canvases) and its orderbook', async () => {
    const { context, page } = await newPage();
    await signUp(page, 'charter');
    await page.goto(`${served.url}/markets`);
    await page.selectOption('select[name=coin]', 'BTC');
    await page.selectOption('select[name=market_type]', '5m');
    await page.click('text=Filter');
    await page.waitForURL(/coin=BTC&market_type=5m/);
    const rows = page.locator('table.markets tbody tr');
    expect(await rows.count()).toBe(25);
    expect(await rows.locator('td:nth-child(2)').allTextContents()).toEqual(Array(25).fill('BTC'));
    await shot(page, 'markets');
    await page.click('a[rel=next]');
    await page.waitForURL(/page=2/);
    expect(await page.textContent('.count')).toMatch(/^26-50 of 4,100 markets$/);

    await page.goto(`${served.url}/markets?coin=BTC&market_type=5m`);
    // The second newest market: resolved, with every snapshot (the newest may have only just begun).
    await rows.nth(1).locator('a').click();
    await page.waitForSelector('#charts[data-state="ready"]', { timeout: 15_000 });
    const inked = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLCanvasElement>('#charts canvas')].map((c) => {
        const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
        return n;
      }),
    );
    expect(inked).toHaveLength(2);
    for (const n of inked) expect(n).toBeGreaterThan(500);
    expect(await page.textContent('.chart-status')).toMatch(/^[\d,]+ points$/);
    expect(await page.locator('table.book').count()).toBe(2);
    await shot(page, 'market');

    // The orderbook at a chosen time: the snapshot on the 125 ms grid nearest it.
    const start = Number(/-(\d+)$/.exec(new URL(page.url()).pathname)![1]) * 1000;
    await page.fill('input[name=at]', new Date(start + 60_030).toISOString());
    await page.click('text=Show');
    await page.waitForURL(/at=/);
    expect(await page.textContent('.at-snapshot')).toContain(`Snapshot at ${new Date(start + 60_000).toISOString()}: price `);
    await context.close();
  });

  it('refuses a form post without its CSRF token (or from another origin) and accepts it with one', async () => {
    const { context, page } = await newPage();
    await signUp(page, 'mallory-target');
    const keyRows = async () => (await context.request.get(`${served.url}/`).then((r) => r.text())).split('data-key-id=').length - 1;
    const token = await page.inputValue('form[action="/keys"] input[name=csrf]');
    const bare = await context.request.post(`${served.url}/keys`, { form: {} });
    expect(bare.status()).toBe(403);
    expect(await bare.text()).toMatch(/CSRF/);
    expect((await context.request.post(`${served.url}/keys`, { form: { csrf: 'x'.repeat(43) } })).status()).toBe(403);
    const foreign = await context.request.post(`${served.url}/keys`, { form: { csrf: token }, headers: { Origin: 'http://evil.example' } });
    expect(foreign.status()).toBe(403);
    expect(await keyRows()).toBe(0);
    expect((await context.request.post(`${served.url}/keys`, { form: { csrf: token } })).status()).toBe(200);
    expect(await keyRows()).toBe(1);
    await context.close();
  });

  it('keeps a builder account inside its data window, as the API does', async () => {
    const res = await fetch(`${served.url}/api/v1/markets?coin=BTC&market_type=24hr&limit=20`, { headers: { 'X-API-Key': proKey } });
    const ids = ((await res.json()) as { markets: { market_id: string }[] }).markets.map((m) => m.market_id);
    expect(ids.length).toBeGreaterThan(14);
    const { context, page } = await newPage();
    await signUp(page, 'bob-builder');
    const outside = await page.goto(`${served.url}/markets/${ids[14]}`);
    expect(outside!.status()).toBe(403);
    expect(await page.textContent('.notice.error')).toBe('Your builder plan only includes the most recent 14 24hr markets. Upgrade to Pro for full access.');
    expect((await context.request.get(`${served.url}/markets/${ids[14]}/series`)).status()).toBe(403);
    expect((await page.goto(`${served.url}/markets/${ids[13]}`))!.status()).toBe(200);
    await page.goto(`${served.url}/markets?coin=BTC&market_type=24hr`);
    expect(await page.textContent('.count')).toBe('1-14 of 14 markets');
    await context.close();
  });

  it('lists the name given by `serve keys create --name` and the last use of the key, in the CLI', async () => {
    const res = await fetch(`${served.url}/api/v1/limits`, { headers: { 'X-API-Key': proKey } });
    expect(res.status).toBe(200);
    const used = Date.now();
    const list = await msnap(['serve', 'keys', 'list', '--json', '--db', db]);
    expect(list.exitCode, list.stderr).toBe(0);
    const ops = (JSON.parse(list.stdout) as { account: string; name: string | null; last_used_at: number | null }[]).find((k) => k.account === 'ops-pro')!;
    expect(ops.name).toBe('ops bot');
    // Written at most once a minute: the first use of this run, at or before the request just made.
    expect(ops.last_used_at).not.toBeNull();
    expect(ops.last_used_at!).toBeLessThanOrEqual(used);
    expect(ops.last_used_at!).toBeGreaterThan(used - 5 * 60_000);
  });

  it('labels chart times in UTC in a browser whose zone is not UTC', async () => {
    const { context, page } = await newPage({ timezoneId: 'America/New_York' });
    expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe('America/New_York');
    await signUp(page, 'new-yorker');
    await page.goto(`${served.url}/markets?coin=BTC&market_type=5m`);
    await page.locator('table.markets tbody tr').nth(1).locator('a').click();
    await page.waitForSelector('#charts[data-state="ready"]', { timeout: 15_000 });
    const start = Number(/-(\d+)$/.exec(new URL(page.url()).pathname)![1]) * 1000;
    // The cursor over the middle of the price chart: the legend tells its time.
    const over = (await page.locator('#chart-price .u-over').boundingBox())!;
    await page.mouse.move(over.x + over.width / 2, over.y + over.height / 2);
    const legend = page.locator('#chart-price .u-legend .u-series').first();
    expect(await legend.locator('.u-label').textContent()).toBe('time (UTC)');
    await expect.poll(() => legend.locator('.u-value').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC$/);
    const shown = Date.parse((await legend.locator('.u-value').textContent())!.replace(' UTC', 'Z').replace(' ', 'T'));
    // Within the 5-minute market: a label in New York time would be 5 hours off.
    expect(shown).toBeGreaterThanOrEqual(start);
    expect(shown).toBeLessThanOrEqual(start + 5 * 60_000);
    await context.close();
  });

  it('fits a 390 px phone: no page scrolls sideways (wide tables scroll inside themselves)', async () => {
    const { context, page } = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const pageWidth = () => page.evaluate(() => document.scrollingElement!.scrollWidth);
    await page.goto(`${served.url}/signup`);
    expect(await pageWidth()).toBeLessThanOrEqual(390);
    await signUp(page, 'phone-user');
    await page.click('text=Create a key');
    await page.waitForSelector('#new-key');
    expect(await pageWidth(), 'account page with a new key').toBeLessThanOrEqual(390);
    const keys = page.locator('table.keys');
    // The key table is wider than the phone: it scrolls inside its own box.
    expect(await keys.evaluate((t) => t.scrollWidth > t.clientWidth && getComputedStyle(t).overflowX === 'auto')).toBe(true);
    await page.locator('tr[data-key-id] button', { hasText: 'Revoke' }).click();
    await page.waitForURL(/\/keys\/revoke/);
    expect(await pageWidth(), 'revoke confirmation').toBeLessThanOrEqual(390);
    await page.goto(`${served.url}/markets?coin=BTC&market_type=5m`);
    expect(await pageWidth(), 'markets').toBeLessThanOrEqual(390);
    await page.locator('table.markets tbody tr').nth(1).locator('a').click();
    await page.waitForSelector('#charts[data-state="ready"]', { timeout: 15_000 });
    expect(await pageWidth(), 'market').toBeLessThanOrEqual(390);
    await page.goto(`${served.url}/no/such/page`);
    expect(await pageWidth(), '404').toBeLessThanOrEqual(390);
    await context.close();
  });

  it('shows an HTML 404 page for an unknown dashboard path, and JSON on an API path', async () => {
    const { context, page } = await newPage();
    await signUp(page, 'lost-visitor');
    const res = await page.goto(`${served.url}/no/such/page`);
    expect(res!.status()).toBe(404);
    expect(res!.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.textContent('h1')).toBe('Not found');
    await page.click('text=Back to the dashboard');
    await page.waitForURL(`${served.url}/`);
    const api = await context.request.get(`${served.url}/api/v1/no-such-endpoint`, { headers: { 'X-API-Key': proKey } });
    expect(api.status()).toBe(404);
    expect(api.headers()['content-type']).toMatch(/^application\/json/);
    await context.close();
  });

  it('logged no console error and no Content-Security-Policy violation on any page', async () => {
    expect(problems).toEqual([]);
  });
});
