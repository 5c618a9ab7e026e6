// End to end: the built CLI against a real `msnap serve` speaking v1 and v4 gives the same bytes
// for every command; `--api auto` takes serve's largest pages (v1), v4 from a hosted-like service
// and v1 from one without /v4, and a retired v1 (410) hands the run to v4 (serve behind tiny
// proxies that play those services); `keys add --api` and MSNAP_API decide; health needs no key.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/accounts/create-key.js';
import type { Market } from '../src/domain/market.js';
import { seedDatabase } from '../src/store/seed/seed.js';
import { openSqliteStore } from '../src/store/sqlite/open.js';
import { buildIfStale, msnap as runMsnap, startServe, type Served } from './support/msnap-process.js';

let dir: string;
let server: Served;
let proxies: Server[] = [];
let proxyUrl: string;
let hostedUrl: string;
let retiredV1Url: string;
const keys = { pro: '', builder: '', limitsV1: '', limitsV4: '' };

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-dialects-e2e-'));
  const db = path.join(dir, 'data.db');
  // Data that ended an hour ago: no 5m market is active, so status cannot flip between runs.
  const now = Date.now() - 3_600_000;
  const store = openSqliteStore(db);
  seedDatabase(store.bulk, { now, days: 16, seed: 5, fullMarkets: { '5m': 3, '15m': 1, '1hr': 0, '4hr': 0, '24hr': 0 } });
  keys.pro = (await createApiKey(store, { account: 'p', plan: 'pro', now })).key;
  keys.limitsV1 = (await createApiKey(store, { account: 'p', plan: 'pro', now })).key;
  keys.limitsV4 = (await createApiKey(store, { account: 'p', plan: 'pro', now })).key;
  keys.builder = (await createApiKey(store, { account: 'b', plan: 'builder', now })).key;
  store.close();
  server = await startServe(db);

  // A service without /v4, as an older one: 404 there.
  proxyUrl = await proxy((url) => (url.startsWith('/v4/') ? [404, '{"error":"Not Found","message":"No such path."}'] : undefined));
  // The hosted service: its /v4/health declares no page sizes (msnap serve's extension).
  hostedUrl = await proxy((url) => (url === '/v4/health' ? [200, '{"status":"ok","service":"msnap"}'] : undefined));
  // A service that retired v1: 410 Gone on every v1 path.
  retiredV1Url = await proxy((url) =>
    url.startsWith('/api/') || url.startsWith('/v1/') ? [410, '{"error":"Gone","message":"API v1 is retired; use /v4."}'] : undefined,
  );
}, 120_000);

/** Serve behind a proxy that answers `[status, body]` itself where `own` says so; returns its URL. */
async function proxy(own: (url: string) => [number, string] | undefined): Promise<string> {
  const target = new URL(server.url);
  const p = createServer((req, res) => {
    const answer = own(req.url ?? '');
    if (answer) {
      res.writeHead(answer[0], { 'content-type': 'application/json' }).end(answer[1]);
      return;
    }
    const up = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  proxies.push(p);
  await new Promise<void>((resolve) => p.listen(0, '127.0.0.1', resolve));
  const addr = p.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
}

afterAll(async () => {
  for (const p of proxies) await new Promise((resolve) => p.close(resolve));
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function msnap(args: string[], env: Record<string, string | undefined> = {}) {
  return runMsnap(args, {
    keepFinalNewline: true,
    cwd: dir,
    env: { MSNAP_CONFIG_DIR: mkdtempSync(path.join(dir, 'cfg-')), MSNAP_BASE_URL: server.url, MSNAP_API_KEY: keys.pro, ...env },
  });
}

/** Runs `args` with --api v1 and --api v4; both must succeed with identical stdout, which is returned. */
async function sameBytes(args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
  const [a, b] = await Promise.all([msnap([...args, '--api', 'v1'], env), msnap([...args, '--api', 'v4'], env)]);
  expect([a.exitCode, b.exitCode]).toEqual([0, 0]);
  // stderr holds at most an export's summary line, whose duration differs between runs.
  const said = (t: unknown) => String(t).replace(/ in [\d.]+ m?s$/gm, ' in T');
  expect(said(b.stderr)).toBe(said(a.stderr));
  expect(String(a.stderr)).toMatch(/^(msnap: [^\n]*\n)?$/);
  expect(b.stdout).toBe(a.stdout);
  return String(a.stdout);
}

/** The newest BTC 5m market with all its 2,400 snapshots (the very newest may stop where the data does). */
async function newestFull5m(): Promise<Market> {
  const markets = JSON.parse(await sameBytes(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '5', '--json'])) as Market[];
  const full = markets.find((m) => m.snapshot_count === 2400);
  expect(full).toMatchObject({ coin: 'BTC', market_type: '5m', status: 'resolved' });
  return full!;
}

describe('--api v1 and --api v4 give the same bytes', () => {
  it('snapshots BTC 5m as CSV, NDJSON and JSON with orderbooks', async () => {
    const newest = (JSON.parse(await sameBytes(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '5', '--json'])) as Market[])
      .find((m) => m.snapshot_count > 0)!;
    const csv = await sameBytes(['snapshots', 'BTC', '5m', '--csv']);
    expect(csv.split('\n').filter((l) => l !== '')).toHaveLength(newest.snapshot_count + 1);
    expect(csv.startsWith('id,market_id,time,price,price_up,price_down\n')).toBe(true);
    await sameBytes(['snapshots', 'BTC', '5m', '--ndjson']);
    const json = JSON.parse(await sameBytes(['snapshots', 'BTC', '5m', '--json', '--orderbook'])) as { orderbook_up?: { bids: unknown[] } }[];
    expect(json.some((s) => (s.orderbook_up?.bids.length ?? 0) > 0)).toBe(true);
  }, 120_000);

  it('snapshots of the latest markets, of a time range, and of ETH by id', async () => {
    const market = await newestFull5m();
    await sameBytes(['snapshots', 'BTC', '5m', '--last', '2', '--csv']);
    const from = new Date(market.start_time + 60_000).toISOString();
    const to = new Date(market.start_time + 90_000).toISOString();
    const ranged = await sameBytes(['snapshots', 'ETH', '5m', '--from', from, '--to', to, '--csv']);
    // 30 s at 8 a second, end excluded: the inclusive v4 end_time is asked one ms earlier.
    expect(ranged.split('\n').filter((l) => l !== '')).toHaveLength(241);
    await sameBytes(['snapshots', market.market_id.replace('btc', 'sol'), '--ndjson']);
  }, 120_000);

  it('markets of every coin (merged from one v4 list per coin), by coin and type, by status', async () => {
    const all = await sameBytes(['markets', '--limit', '40', '--offset', '3', '--csv']);
    const coins = new Set(all.split('\n').slice(1, -1).map((l) => l.split(',')[2]));
    expect([...coins].sort()).toEqual(['BTC', 'ETH', 'SOL']);
    await sameBytes(['markets', '--coin', 'SOL', '--type', '15m', '--limit', '5', '--json']);
    await sameBytes(['markets', '--coin', 'ETH', '--type', '1hr', '--status', 'resolved', '--limit', '3', '--ndjson']);
  }, 120_000);

  it('at, by coin and type and by market id', async () => {
    const market = await newestFull5m();
    const at = await sameBytes(['at', 'BTC', '5m', String(market.start_time + 100_010), '--json']);
    expect(JSON.parse(at)).toMatchObject({ market_id: market.market_id, delta_ms: -10 });
    await sameBytes(['at', market.market_id, String(market.start_time + 5_000), '--csv']);
  }, 120_000);

  it('limits (fresh keys of one account; the window reset second aside)', async () => {
    const [a, b] = await Promise.all([
      msnap(['limits', '--json', '--api', 'v1'], { MSNAP_API_KEY: keys.limitsV1 }),
      msnap(['limits', '--json', '--api', 'v4'], { MSNAP_API_KEY: keys.limitsV4 }),
    ]);
    expect([a.exitCode, b.exitCode]).toEqual([0, 0]);
    const la = JSON.parse(String(a.stdout)) as { usage: { reset: number } };
    const lb = JSON.parse(String(b.stdout)) as { usage: { reset: number } };
    expect(Math.abs(la.usage.reset - lb.usage.reset)).toBeLessThanOrEqual(2);
    lb.usage.reset = la.usage.reset;
    expect(lb).toEqual(la);
    expect(la).toMatchObject({ plan: 'pro', api_keys: { active: 3 }, usage: { remaining: 749 } });
  }, 120_000);

  it('errors end alike: outside the builder window (v4 402) exit 4, unknown market exit 6, bad key exit 3', async () => {
    for (const [args, env, code] of [
      [['markets', '--coin', 'BTC', '--type', '24hr', '--offset', '14'], { MSNAP_API_KEY: keys.builder }, 4],
      [['snapshots', 'btc-updown-5m-1600000200'], {}, 6],
      [['markets'], { MSNAP_API_KEY: 'msk_wrong' }, 3],
    ] as const) {
      const [a, b] = await Promise.all([msnap([...args, '--api', 'v1'], env), msnap([...args, '--api', 'v4'], env)]);
      expect([a.exitCode, b.exitCode]).toEqual([code, code]);
      expect(b.stderr).toBe(a.stderr);
      expect(String(a.stderr)).toMatch(/^msnap: /);
    }
  }, 120_000);
});

describe('choosing the dialect', () => {
  /** The request paths of a --verbose run, in order. */
  function paths(stderr: unknown): string[] {
    return [...String(stderr).matchAll(/GET (\S+) -> /g)].map((m) => new URL(m[1]!).pathname);
  }

  const isV1 = (p: string) => p.startsWith('/api/v1/') || p.startsWith('/v1/');

  it('auto asks /v4/health once: v1 (largest pages) with msnap serve, v4 with the hosted service, v1 without /v4; same bytes', async () => {
    const v1 = await msnap(['snapshots', 'BTC', '5m', '--csv', '--api', 'v1']);
    const [served, hosted, old] = await Promise.all([
      msnap(['snapshots', 'BTC', '5m', '--csv', '--verbose']),
      msnap(['snapshots', 'BTC', '5m', '--csv', '--verbose'], { MSNAP_BASE_URL: hostedUrl }),
      msnap(['snapshots', 'BTC', '5m', '--csv', '--verbose'], { MSNAP_BASE_URL: proxyUrl }),
    ]);
    expect([served.exitCode, hosted.exitCode, old.exitCode]).toEqual([0, 0, 0]);
    for (const r of [served, hosted, old]) expect(r.stdout).toBe(v1.stdout);
    const s = paths(served.stderr);
    expect(s[0]).toBe('/v4/health');
    expect(s.slice(1).length).toBeGreaterThan(0);
    expect(s.slice(1).every(isV1)).toBe(true);
    const h = paths(hosted.stderr);
    expect(h[0]).toBe('/v4/health');
    expect(h.slice(1).every((p) => p.startsWith('/v4/') && p !== '/v4/health')).toBe(true);
    const o = paths(old.stderr);
    expect(o.slice(0, 2)).toEqual(['/v4/health', '/v4/billing/plan-limits']);
    expect(String(old.stderr)).toContain('/v4/billing/plan-limits?coin=btc -> 404');
    expect(o.slice(2).length).toBeGreaterThan(0);
    expect(o.slice(2).every(isV1)).toBe(true);
  }, 120_000);

  it('auto plans as few requests as --api v1 against serve (--dry-run), ten times fewer than v4', async () => {
    const run = (api: string[]) => msnap(['snapshots', 'BTC', '5m', '--last', '3', '--dry-run', ...api]);
    const [auto, v1, v4] = await Promise.all([run([]), run(['--api', 'v1']), run(['--api', 'v4'])]);
    const total = (r: { stderr: unknown }) => Number(/ in (\d+) snapshot requests of up to ([\d,]+) rows/.exec(String(r.stderr))?.[1]);
    expect(String(auto.stderr)).toContain('snapshot requests of up to 10,000 rows');
    expect(total(auto)).toBe(total(v1));
    expect(total(v4)).toBeGreaterThanOrEqual(total(v1) * 2);
  }, 120_000);

  it('a v1 answering 410 Gone hands the run to v4 with one note; same bytes', async () => {
    const v1 = await msnap(['snapshots', 'BTC', '5m', '--csv', '--api', 'v1']);
    const retired = await msnap(['snapshots', 'BTC', '5m', '--csv', '--api', 'v1', '--verbose'], { MSNAP_BASE_URL: retiredV1Url });
    expect(retired.exitCode).toBe(0);
    expect(retired.stdout).toBe(v1.stdout);
    const notes = String(retired.stderr).split('\n').filter((l) => l.startsWith('msnap: note:'));
    expect(notes).toEqual([
      `msnap: note: ${retiredV1Url}/api/v1/limits answered 410 Gone: the service has retired API v1, so this run speaks v4 (--api v4 skips the v1 attempt)`,
    ]);
    const p = paths(retired.stderr);
    expect(p.filter(isV1)).toEqual(['/api/v1/limits']);
    expect(p.slice(1).every((x) => x.startsWith('/v4/'))).toBe(true);
    const market = await msnap(['markets', '--coin', 'ETH', '--limit', '2', '--csv', '--api', 'v1'], { MSNAP_BASE_URL: retiredV1Url });
    expect(market.exitCode).toBe(0);
    expect(String(market.stderr)).toMatch(/^msnap: note: .*\/api\/v1\/markets answered 410 Gone.*\n$/);
  }, 120_000);

  it('health answers without a key, with the server\'s version, in every dialect', async () => {
    const { VERSION } = await import('../src/version.js');
    for (const api of ['v1', 'v4', 'auto']) {
      const r = await msnap(['health', '--json', '--api', api], { MSNAP_API_KEY: undefined });
      expect(r.exitCode, api).toBe(0);
      expect(JSON.parse(String(r.stdout)), api).toMatchObject({ status: 'ok', version: VERSION });
      expect(Math.abs((JSON.parse(String(r.stdout)) as { time: number }).time - Date.now())).toBeLessThan(60_000);
    }
    const keyed = await msnap(['health', '--json', '--api', 'v1', '--verbose']);
    expect(JSON.parse(String(keyed.stdout))).toMatchObject({ version: VERSION });
    expect(paths(keyed.stderr)).toEqual(['/api/health']);
    const auto = await msnap(['health', '--json', '--verbose'], { MSNAP_API_KEY: undefined });
    expect(paths(auto.stderr)).toEqual(['/v4/health']);
    const hosted = await msnap(['health', '--json'], { MSNAP_BASE_URL: hostedUrl, MSNAP_API_KEY: undefined });
    expect(JSON.parse(String(hosted.stdout))).toMatchObject({ status: 'ok', version: 'unknown' });
  }, 120_000);

  it('keys add --api stores the version; MSNAP_API and --api override it; a bad value is a usage error', async () => {
    const cfg = mkdtempSync(path.join(dir, 'cfg-'));
    const base = { MSNAP_CONFIG_DIR: cfg, MSNAP_BASE_URL: undefined, MSNAP_API_KEY: undefined };
    const add = await msnap(['keys', 'add', 'local', keys.pro, '--base-url', server.url, '--api', 'v4'], base);
    expect(add.exitCode).toBe(0);
    expect(String(add.stderr)).toContain('API v4');
    const stored = await msnap(['markets', '--coin', 'BTC', '--limit', '1', '--verbose'], base);
    expect(paths(stored.stderr)[0]).toBe('/v4/markets');
    const env = await msnap(['markets', '--coin', 'BTC', '--limit', '1', '--verbose'], { ...base, MSNAP_API: 'v1' });
    expect(paths(env.stderr)).toEqual(['/api/v1/markets']);
    expect(env.stdout).toBe(stored.stdout);
    const bad = await msnap(['markets', '--api', 'v5'], base);
    expect(bad.exitCode).toBe(2);
    const badEnv = await msnap(['markets'], { ...base, MSNAP_API: 'v9' });
    expect(badEnv.exitCode).toBe(2);
    expect(badEnv.stderr).toBe("msnap: MSNAP_API: 'v9' is not an API version; use one of v1, v4, auto\n");
  }, 120_000);
});
