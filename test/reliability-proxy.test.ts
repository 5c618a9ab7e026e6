// `msnap serve` behind a reverse proxy, as a built process: the proxy at 127.0.0.2 is trusted
// (--trust-proxy), a client at 127.0.0.1 is not; the public origin is https://data.example.com.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, runPool } from './support/dashboard-client.js';
import { buildIfStale, startServe, type Served } from './support/msnap-process.js';

const PUBLIC = 'https://data.example.com';
let dir: string;
let served: Served;
const clients: DashboardClient[] = [];

function client(address: string): DashboardClient {
  const c = new DashboardClient(served.url, address);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-proxy-'));
  served = await startServe(path.join(dir, 'proxy.db'), { args: ['--trust-proxy', '127.0.0.2', '--public-url', PUBLIC] });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  expect((await served?.stop())?.exitCode).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

const failedKey = (c: DashboardClient, forwardedFor?: string) =>
  c.get('/api/v1/markets', { 'x-api-key': 'wrong', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) });

describe('behind a proxy', () => {
  it('limits the address in X-Forwarded-For when the trusted proxy sends it, and ignores it from anyone else', async () => {
    const proxy = client('127.0.0.2');
    // Eight at once, so they land within the burst (five a second) however loaded the machine:
    // one after another they could be spread over more than a second, which refills it.
    const a = await runPool(8, 8, async () => (await failedKey(proxy, '203.0.113.7')).status);
    expect(a.filter((s) => s === 401).length).toBeGreaterThanOrEqual(5);
    expect(a).toContain(429);
    // Another client behind the same proxy has its own limit.
    expect((await failedKey(proxy, '6.6.6.6, 203.0.113.8')).status).toBe(401);
    // An untrusted peer cannot pick an address: its own is limited, whatever it claims.
    const direct = client('127.0.0.1');
    const d = await runPool(8, 8, async (i) => (await failedKey(direct, `198.51.100.${i}`)).status);
    expect(d).toContain(429);
  });

  it('marks cookies Secure and sends HSTS when the browser spoke https to the proxy, not otherwise', async () => {
    const proxy = client('127.0.0.2');
    const https = await proxy.get('/signin', { 'x-forwarded-for': '203.0.113.20', 'x-forwarded-proto': 'https' });
    expect(https.status).toBe(200);
    expect(String(https.headers['set-cookie'])).toMatch(/; Secure/);
    expect(https.headers['strict-transport-security']).toBe('max-age=31536000');
    const plain = await proxy.get('/signin', { 'x-forwarded-for': '203.0.113.21' });
    expect(String(plain.headers['set-cookie'])).not.toMatch(/Secure/);
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    // From an untrusted peer the header means nothing.
    const spoof = await client('127.0.0.1').get('/signin', { 'x-forwarded-proto': 'https' });
    expect(spoof.headers['strict-transport-security']).toBeUndefined();
  });

  it('accepts forms posted from the public origin while the proxy rewrites Host', async () => {
    const browser = await client('127.0.0.2').start();
    const r = await browser.pool.request({
      method: 'POST',
      path: '/signup',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC, cookie: browser.cookieHeader, 'x-forwarded-for': '203.0.113.30' },
      body: new URLSearchParams({ csrf: browser.csrfToken, account: 'behind-proxy', password: 'long enough password' }).toString(),
    });
    await r.body.dump();
    expect(r.statusCode).toBe(303);
  });

  it('refuses a Host it does not answer for (DNS rebinding), answers the public one', async () => {
    const c = client('127.0.0.1');
    const evil = await c.get('/signin', { host: 'rebind.attacker.example:8787' });
    expect(evil.status).toBe(421);
    expect(JSON.parse(evil.body).message).toMatch(/does not answer for/);
    expect((await c.get('/signin', { host: 'data.example.com' })).status).toBe(200);
    expect((await c.get('/health', { host: 'localhost' })).status).toBe(200);
  });
});
