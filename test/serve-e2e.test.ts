// End to end: the built `msnap serve` over a real seeded SQLite file on a real port, spoken to over HTTP.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale } from './support/msnap-process.js';
import { createApiKey } from '../src/accounts/create-key.js';
import { TRIAL_LENGTH_MS } from '../src/domain/plans.js';
import { seedDatabase } from '../src/store/seed/seed.js';
import { openSqliteStore } from '../src/store/sqlite/open.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DAY = 86_400_000;

interface Served {
  proc: ResultPromise<{ cwd: string; reject: false; all: false }>;
  url: string;
  lines: string[];
}



/** Start `node bin/msnap.js serve ...` and wait for its first `wantLines` stdout lines. */
async function serve(args: string[], wantLines = 1): Promise<Served> {
  const proc = execa('node', ['bin/msnap.js', 'serve', ...args], { cwd: ROOT, reject: false, all: false });
  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${lines.join('\n')}`)), 20_000);
    proc.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop()!;
      lines.push(...parts);
      if (lines.length >= wantLines) {
        clearTimeout(timer);
        resolve();
      }
    });
    void proc.then((r) => reject(new Error(`serve exited early (${r.exitCode}): ${r.stderr}`)));
  });
  const m = /^msnap serve listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines[0] ?? '');
  if (!m) throw new Error(`unexpected first line: ${lines[0]}`);
  return { proc, url: m[1]!, lines };
}

/** Send raw bytes and collect the whole answer (the server closes these connections). */
function raw(url: string, bytes: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let out = '';
    socket.on('data', (d) => (out += d.toString('utf8')));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

let dir: string;
let db: string;
const keys: Record<string, string> = {};
let oldest24hr: string;
let newest24hr: string;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-serve-e2e-'));
  db = path.join(dir, 'data.db');
  const now = Date.now();
  const store = openSqliteStore(db);
  seedDatabase(store.bulk, { now, days: 15, seed: 7, fullMarkets: { '5m': 1, '15m': 1, '1hr': 1, '4hr': 0, '24hr': 0 } });
  keys.builder = (await createApiKey(store, { account: 'b', plan: 'builder', now })).key;
  keys.pro = (await createApiKey(store, { account: 'p', plan: 'pro', now })).key;
  keys.ended = (await createApiKey(store, { account: 't', trial: true, now: now - TRIAL_LENGTH_MS - DAY })).key;
  const revoked = await createApiKey(store, { account: 'b', now });
  keys.revoked = revoked.key;
  await store.revokeKey(revoked.record.id, now);
  const list = await store.listMarkets({ coin: 'BTC', marketType: '24hr', limit: 100, offset: 0, window: null, now });
  newest24hr = list.markets[0]!.market_id;
  oldest24hr = list.markets.at(-1)!.market_id;
  expect(list.total).toBeGreaterThan(14);
  store.close();
}, 60_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

describe('msnap serve over a real SQLite file', () => {
  let served: Served;
  const agent = new Agent({ connections: 4 });
  const get = (p: string, headers: Record<string, string> = {}) => request(`${served.url}${p}`, { headers, dispatcher: agent });

  beforeAll(async () => {
    served = await serve(['--db', db, '--port', '0']);
  });

  afterAll(async () => {
    await agent.close();
    served.proc.kill('SIGTERM');
    await served.proc;
  });

  it('answers the contract with rate-limit headers on success and errors', async () => {
    const ok = await get('/api/health', { 'X-API-Key': keys.builder! });
    expect(ok.statusCode).toBe(200);
    expect(((await ok.body.json()) as { status: string }).status).toBe('ok');
    expect(ok.headers['x-ratelimit-limit']).toBe('250');
    expect(ok.headers.date).toMatch(/GMT$/);

    const missing = await get('/api/v1/markets');
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    expect(missing.headers['x-ratelimit-limit']).toBe('30');
    expect(((await missing.body.json()) as { error: string }).error).toBe('Unauthorized');

    for (const [key, word] of [
      [keys.revoked!, 'revoked'],
      [keys.ended!, 'trial'],
      ['msk_nope', 'Invalid'],
    ] as const) {
      const r = await get('/v1/limits', { Authorization: `Bearer ${key}` });
      expect(r.statusCode).toBe(401);
      expect(((await r.body.json()) as { message: string }).message).toContain(word);
    }
  });

  it('serves lists, snapshots and at-timestamp; 403 outside the builder window', async () => {
    const list = await get('/v1/markets?coin=btc&market_type=24hr&limit=100', { 'X-API-Key': keys.builder! });
    const body = (await list.body.json()) as { markets: { market_id: string }[]; total: number };
    expect(body.total).toBe(14);
    expect(body.markets[0]!.market_id).toBe(newest24hr);

    const forbidden = await get(`/api/v1/markets/${oldest24hr}/snapshots`, { 'X-API-Key': keys.builder! });
    expect(forbidden.statusCode).toBe(403);
    expect(await forbidden.body.json()).toEqual({
      error: 'Forbidden',
      message: 'Your builder plan only includes the most recent 14 24hr markets. Upgrade to Pro for full access.',
      tier: 'builder',
    });

    const fiveMin = (await (await get('/api/v1/markets?coin=eth&market_type=5m&limit=1', { 'X-API-Key': keys.pro! })).body.json()) as {
      markets: { market_id: string; start_time: number; snapshot_count: number }[];
    };
    const market = fiveMin.markets[0]!;
    const page = await get(`/api/v1/markets/${market.market_id}/snapshots?limit=20000`, { 'X-API-Key': keys.pro! });
    const snaps = (await page.body.json()) as { snapshots: { time: number }[]; total: number; limit: number; warning: string };
    expect(snaps.limit).toBe(10_000);
    expect(snaps.warning).toMatch(/clamped/);
    expect(snaps.snapshots.length).toBe(Math.min(snaps.total, 10_000));
    expect(snaps.total).toBe(market.snapshot_count);

    const at = await get(`/v1/snapshots/at-timestamp?market=${market.market_id}&ts=${market.start_time + 130}`, { 'X-API-Key': keys.pro! });
    const near = (await at.body.json()) as { delta_ms: number; snapshot: { time: number } };
    expect(at.statusCode).toBe(200);
    expect(near.snapshot.time).toBe(market.start_time + 125);
    expect(near.delta_ms).toBe(-5);
  });

  it('refuses oversized and malformed requests with JSON, never 5xx, and keeps serving', async () => {
    const longUrl = await get(`/api/v1/markets?x=${'a'.repeat(9000)}`, { 'X-API-Key': keys.pro! });
    expect(longUrl.statusCode).toBe(414);
    expect(((await longUrl.body.json()) as { error: string }).error).toBe('URI Too Long');

    const bigHeader = await raw(served.url, `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Junk: ${'j'.repeat(20_000)}\r\n\r\n`);
    expect(bigHeader).toMatch(/^HTTP\/1\.1 431 /);
    expect(bigHeader).toMatch(/x-ratelimit-limit: 30/i);
    expect(JSON.parse(bigHeader.slice(bigHeader.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: 'Request Header Fields Too Large' });

    const garbage = await raw(served.url, 'HELLO THERE\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(garbage).toContain('"error":"Bad Request"');

    // A client that leaves in the middle of a large response.
    const list = (await (await get('/api/v1/markets?coin=btc&market_type=1hr&limit=1', { 'X-API-Key': keys.pro! })).body.json()) as {
      markets: { market_id: string }[];
    };
    await new Promise<void>((resolve) => {
      const { port } = new URL(served.url);
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`GET /api/v1/markets/${list.markets[0]!.market_id}/snapshots?limit=10000 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${keys.pro}\r\n\r\n`);
      });
      socket.once('data', () => {
        socket.destroy();
        resolve();
      });
    });
    const after = await get('/api/health', { 'X-API-Key': keys.pro! });
    expect(after.statusCode).toBe(200);
    await after.body.dump();
  });
});

describe('msnap serve lifecycle', () => {
  it('--demo on a seeded DB prints a builder and a pro key that work', async () => {
    const served = await serve(['--db', db, '--port', '0', '--demo'], 4);
    try {
      // The second line gives the dashboard's address, the demo keys follow.
      expect(served.lines[1]).toBe(`dashboard (sign up, keys, markets): ${served.url}/ in a browser`);
      const builder = /^demo builder key \(demo-builder\): (msk_\w+)$/.exec(served.lines[2]!)![1]!;
      const pro = /^demo pro key \(demo-pro\): (msk_\w+)$/.exec(served.lines[3]!)![1]!;
      for (const [key, plan] of [
        [builder, 'builder'],
        [pro, 'pro'],
      ]) {
        const r = await request(`${served.url}/api/v1/limits`, { headers: { 'X-API-Key': key! } });
        expect(((await r.body.json()) as { plan: string }).plan).toBe(plan);
      }
    } finally {
      served.proc.kill('SIGTERM');
    }
    expect((await served.proc).exitCode).toBe(0);
  });

  it('SIGTERM finishes the in-flight response, closes the DB and exits 0 despite idle keep-alive sockets', async () => {
    const served = await serve(['--db', db, '--port', '0']);
    const agent = new Agent({ connections: 2, keepAliveTimeout: 60_000 });
    const headers = { 'X-API-Key': keys.pro! };
    const idle = await request(`${served.url}/api/health`, { headers, dispatcher: agent });
    await idle.body.dump();
    const list = (await (await request(`${served.url}/api/v1/markets?coin=sol&market_type=1hr&limit=1`, { headers, dispatcher: agent })).body.json()) as {
      markets: { market_id: string; snapshot_count: number }[];
    };
    const big = await request(`${served.url}/api/v1/markets/${list.markets[0]!.market_id}/snapshots?limit=10000`, { headers, dispatcher: agent });
    served.proc.kill('SIGTERM');
    const body = (await big.body.json()) as { snapshots: unknown[] };
    expect(body.snapshots.length).toBe(Math.min(10_000, list.markets[0]!.snapshot_count));
    const result = await served.proc;
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('SIGTERM');
    // A clean close checkpoints and removes the WAL.
    expect(existsSync(`${db}-wal`)).toBe(false);
    await agent.close();
  });

  it('subcommands get their own --db (serve keys create/list --db FILE)', async () => {
    const created = await execa('node', [path.join(ROOT, 'bin/msnap.js'), 'serve', 'keys', 'create', '--db', db, '--account', 'cli-made', '--plan', 'pro'], {
      cwd: dir,
      reject: false,
    });
    expect(created.exitCode).toBe(0);
    expect(created.stdout.trim()).toMatch(/^msk_\w+$/);
    const listed = await execa('node', [path.join(ROOT, 'bin/msnap.js'), 'serve', 'keys', 'list', '--json', '--db', db], { cwd: dir, reject: false });
    expect(listed.stdout).toContain('cli-made');
    expect(existsSync(path.join(dir, 'msnap.db'))).toBe(false);
  });

  it('rejects a bad --port with exit code 2 and one line', async () => {
    const r = await execa('node', ['bin/msnap.js', 'serve', '--db', db, '--port', 'abc'], { cwd: ROOT, reject: false });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--port');
  });
});
