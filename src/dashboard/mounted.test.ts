// The dashboard mounted in the real listener next to the API: every API answer is what the API
// alone gives (status, headers but Date, body), and forms are read with a size cap.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../accounts/create-key.js';
import { createApp } from '../server/app.js';
import { startServer, type RunningServer } from '../server/listen.js';
import { openSqliteStore } from '../store/sqlite/open.js';
import type { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { seedDatabase } from '../store/seed/seed.js';
import { serveDashboard } from './serve-dashboard.js';
import { MAX_FORM_BYTES } from '../server/form-body.js';

const NOW = Date.UTC(2026, 10, 23, 12);
let dir: string;
let stores: SqliteStore[];
let servers: RunningServer[];

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-mounted-'));
  stores = [];
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function serve(file: string, withDashboard: boolean): Promise<RunningServer> {
  const store = openSqliteStore(file);
  stores.push(store);
  const app = createApp({ store, now: () => NOW, version: '1.0.0' });
  const dashboard = withDashboard ? serveDashboard(store, app, { now: () => NOW, signupOpen: true, log: () => {} }) : undefined;
  const server = await startServer({ app, dashboard, host: '127.0.0.1', port: 0 });
  servers.push(server);
  return server;
}

describe('the dashboard beside the API', () => {
  it('changes no API answer: the same requests get the same status, headers and body with and without it', async () => {
    const file = path.join(dir, 'm.db');
    const setup = openSqliteStore(file);
    seedDatabase(setup.bulk, { now: NOW, days: 1, fullMarkets: { '5m': 1, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } });
    const key = (await createApiKey(setup, { account: 'b', plan: 'builder', now: NOW })).key;
    setup.close();
    const [plain, mounted] = [await serve(file, false), await serve(file, true)];
    const cases: [string, string, Record<string, string>][] = [
      ['GET', '/api/v1/markets?coin=btc&market_type=5m&limit=2', { 'x-api-key': key }],
      ['POST', '/api/v1/markets', { 'x-api-key': key }],
      ['DELETE', '/v1/limits', { 'x-api-key': key }],
      ['HEAD', '/api/health', { 'x-api-key': key }],
      ['GET', '/api/v1/markets', {}],
      ['POST', '/api/v1/markets', {}],
      ['GET', '/api/v1/nope', { 'x-api-key': key }],
      ['GET', '/v1/markets/', { 'x-api-key': key }],
      ['GET', '/api/v1/markets/btc-updown-5m-1/snapshots', { authorization: 'Bearer nope' }],
    ];
    for (const [method, url, headers] of cases) {
      const a = await request(plain.url + url, { method: method as 'GET', headers });
      const b = await request(mounted.url + url, { method: method as 'GET', headers });
      const strip = (h: Record<string, unknown>) => ({ ...h, date: undefined, 'keep-alive': undefined });
      expect({ status: b.statusCode, headers: strip(b.headers), body: await b.body.text() }, `${method} ${url}`).toEqual({
        status: a.statusCode,
        headers: strip(a.headers),
        body: await a.body.text(),
      });
    }
  });

  it('serves the page script and uPlot from the package, an HTML 404 outside the API (JSON on it), and refuses an oversized form with 413', async () => {
    const server = await serve(path.join(dir, 'e.db'), true);
    const uplot = await request(`${server.url}/assets/uPlot.iife.min.js`);
    expect(uplot.statusCode).toBe(200);
    expect(uplot.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(await uplot.body.text()).toContain('uPlot');
    const big = await request(`${server.url}/signin`, { method: 'POST', body: 'a='.padEnd(MAX_FORM_BYTES + 10, 'x'), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(big.statusCode).toBe(413);
    await big.body.text();
    const missing = await request(`${server.url}/favicon.ico`);
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(await missing.body.text()).toContain('<h1>Not found</h1>');
    const apiMissing = await request(`${server.url}/api/v1/nope`);
    expect(apiMissing.statusCode).toBe(401);
    expect(apiMissing.headers['content-type']).toMatch(/^application\/json/);
    await apiMissing.body.text();
    const page = await request(`${server.url}/signin`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(await page.body.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|\son[a-z]+=|style=/);
  });
});
