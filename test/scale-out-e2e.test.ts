// Scale-out, end to end: three built `msnap serve` processes on one throwaway PostgreSQL and one
// throwaway Redis. The same bytes as a single SQLite serve of the same data; one key's burst and
// minute limits hold exactly across instances; a key revoked through one is refused by all; a
// PostgreSQL restart and a Redis restart mid-run give 503s (never a 500, never an extra admission)
// and service comes back without restarting msnap.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, msnap, seed, startServe, type Served } from './support/msnap-process.js';
import { skipWithoutPostgres, startThrowawayPostgres, type ThrowawayPostgres } from './support/throwaway-postgres.js';
import { announceRedisSkip, redisAvailable, ThrowawayRedis } from './support/throwaway-redis.js';

const SUITE = 'scale-out e2e (3 instances on PostgreSQL + Redis)';
const noPostgres = skipWithoutPostgres(SUITE);
const noRedis = !redisAvailable();
if (noRedis) announceRedisSkip(SUITE);
const missing = noPostgres || noRedis;

interface Answer {
  status: number;
  body: string;
  headers: Headers;
}

async function get(base: string, pathAndQuery: string, key?: string): Promise<Answer> {
  const res = await fetch(`${base}${pathAndQuery}`, { headers: key ? { 'X-API-Key': key } : {} });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

/** Polls until `ok` holds for an answer from every instance (a restarted backend takes a moment). */
async function eventually(instances: Served[], pathAndQuery: string, key: string | undefined, ok: (a: Answer) => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const answers = await Promise.all(instances.map((s) => get(s.url, pathAndQuery, key)));
    if (answers.every(ok)) return;
    if (Date.now() > until) throw new Error(`not reached in ${ms} ms: ${answers.map((a) => `${a.status} ${a.body.slice(0, 120)}`).join(' | ')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `serve keys create` against the PostgreSQL store (createKey runs in the store file's directory). */
async function pgKey(url: string, cwd: string, account: string, plan: string, extra: string[] = []): Promise<string> {
  const r = await msnap(['serve', 'keys', 'create', '--db', url, '--account', account, '--plan', plan, ...extra], { cwd });
  if (r.exitCode !== 0) throw new Error(`keys create failed (${r.exitCode}): ${r.stderr}`);
  return String(r.stdout).trim();
}

describe.skipIf(missing)('msnap serve scaled out: 3 instances, one PostgreSQL, one Redis', { timeout: 120_000 }, () => {
  let dir: string;
  let pg: ThrowawayPostgres;
  let redis: ThrowawayRedis;
  let sqliteFile: string;
  let single: Served;
  const instances: Served[] = [];
  const keys: Record<string, string> = {};
  let marketId: string;

  beforeAll(async () => {
    await buildIfStale();
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-scale-'));
    [pg, redis] = await Promise.all([startThrowawayPostgres(), ThrowawayRedis.start()]);
    // One seeded SQLite store, imported whole into PostgreSQL: the same data on both backends.
    sqliteFile = path.join(dir, 'seeded.db');
    await seed(sqliteFile, ['--days', '1', '--full', '5m=2,15m=1,1hr=1,4hr=0,24hr=0', '--orderbook-minutes', '20']);
    keys.pro = await createKey(sqliteFile, 'p', 'pro');
    const imported = await msnap(['serve', 'import', sqliteFile, '--db', pg.url], { cwd: dir, timeout: 120_000 });
    expect(imported.stderr).toBe('');
    expect(imported.exitCode).toBe(0);
    expect(imported.stdout).toMatch(/^imported store .* snapshots added/);
    keys.builder = await pgKey(pg.url, dir, 'b', 'builder');
    keys.steady = await pgKey(pg.url, dir, 'steady', 'enterprise', ['--rpm', '30', '--burst', '3']);
    keys.outage = await pgKey(pg.url, dir, 'outage', 'enterprise', ['--rpm', '20', '--burst', '20']);
    single = await startServe(sqliteFile, { args: ['--no-live'] });
    for (let i = 0; i < 3; i++) instances.push(await startServe(pg.url, { args: ['--limiter', redis.url] }));
    const list = JSON.parse((await get(single.url, '/api/v1/markets?coin=btc&market_type=5m&status=resolved&limit=1', keys.pro)).body) as {
      markets: { market_id: string }[];
    };
    marketId = list.markets[0]!.market_id;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([single, ...instances].filter(Boolean).map((s) => s.stop().catch(() => undefined)));
    await Promise.all([pg?.destroy(), redis?.destroy()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs no rate-limiter recovery at a normal start', () => {
    // Each instance connected to Redis once: nothing went away, so nothing came back.
    for (const s of instances) expect(s.output()).not.toMatch(/rate limiter reachable again/);
  });

  it('answers byte for byte what one SQLite serve of the same data answers, in every dialect', async () => {
    const urls = [
      '/api/v1/markets?limit=50',
      '/api/v1/markets?coin=eth&market_type=15m&limit=5&offset=1',
      '/api/v1/markets?status=active',
      `/api/v1/markets/${marketId}`,
      `/api/v1/markets/${marketId}/snapshots?limit=500&offset=100`,
      `/api/v1/markets/${marketId}/snapshots?limit=3&include_orderbook=true`,
      `/api/v1/snapshots/at-timestamp?market=${marketId}&ts=${Number(marketId.split('-').pop()) * 1000 + 1062}`,
      `/v1/markets/by-slug/${marketId}`,
      '/v2/markets?coin=sol&limit=3',
      `/v2/markets/${marketId}/snapshots?limit=20`,
      '/v4/markets?coin=btc&limit=4',
      `/v4/markets/${marketId}/snapshots?coin=btc&limit=7&offset=3`,
      `/v4/markets/${marketId}/snapshot-at/${Number(marketId.split('-').pop()) * 1000 + 5000}?coin=btc`,
      '/api/v1/markets/btc-updown-5m-1/snapshots',
      '/api/v1/markets?coin=doge',
    ];
    for (const url of urls) {
      const want = await get(single.url, url, keys.pro);
      for (const s of instances) {
        const got = await get(s.url, url, keys.pro);
        expect(`${got.status} ${url}`).toBe(`${want.status} ${url}`);
        // v4 stamps each answer with a fresh request id; everything else is the same bytes.
        expect(got.body.replace(/req_[0-9a-f]{12}/g, 'req_')).toBe(want.body.replace(/req_[0-9a-f]{12}/g, 'req_'));
      }
    }
  });

  it("admits one builder key's burst when 200 requests arrive at once across the instances, plus only what the bucket refilled", async () => {
    const sent = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => get(instances[i % 3]!.url, '/api/v1/markets?limit=1', keys.builder)),
    );
    const seconds = (Date.now() - sent) / 1000;
    const statuses = answers.map((a) => a.status);
    const admitted = statuses.filter((s) => s === 200).length;
    // Burst 12, refilled at 12 a second while the 200 are in flight (a few hundred ms here).
    expect(admitted).toBeGreaterThanOrEqual(12);
    expect(admitted).toBeLessThanOrEqual(12 + Math.ceil(12 * seconds));
    expect(statuses.filter((s) => s === 429)).toHaveLength(200 - admitted);
    for (const a of answers.filter((x) => x.status === 429)) expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('admits exactly the limit when 200 requests arrive at once and no refill can help (12 a minute)', async () => {
    const key = await pgKey(pg.url, dir, 'exact', 'enterprise', ['--rpm', '12', '--burst', '12']);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => get(instances[i % 3]!.url, '/api/v1/markets?limit=1', key)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(12);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(188);
  });

  it('never admits more than the minute limit in a sustained run spread over the instances', async () => {
    // 30 per minute with a burst of 3: at 10 requests a second for 14 s the bucket alone would
    // allow about 45, so the shared minute window is what stops the run at exactly 30.
    const admitted: number[] = [];
    let other = 0;
    const started = Date.now();
    let i = 0;
    while (Date.now() - started < 14_000) {
      const s = instances[i++ % 3]!;
      const a = await get(s.url, '/api/health', keys.steady);
      if (a.status === 200) admitted.push(Date.now());
      else if (a.status !== 429) other++;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(other).toBe(0);
    expect(admitted).toHaveLength(30);
    expect(admitted.at(-1)! - admitted[0]!).toBeLessThan(60_000);
  });

  it('refuses on every instance a key revoked while they run', async () => {
    const key = await pgKey(pg.url, dir, 'revoker', 'pro');
    for (const s of instances) expect((await get(s.url, '/api/v1/limits', key)).status).toBe(200);
    const list = await msnap(['serve', 'keys', 'list', '--db', pg.url, '--json'], { cwd: dir });
    const id = (JSON.parse(String(list.stdout)) as { id: number; account: string }[]).find((k) => k.account === 'revoker')!.id;
    const revoked = await msnap(['serve', 'keys', 'revoke', String(id), '--db', pg.url], { cwd: dir });
    expect(revoked.exitCode).toBe(0);
    for (const s of instances) {
      const a = await get(s.url, '/api/v1/limits', key);
      expect(a.status).toBe(401);
      expect(a.body).toMatch(/revoked/);
    }
  });

  it('pulls into a PostgreSQL store (resumable: a re-run fetches nothing) that serves the source\'s bytes', async () => {
    const admin = postgres(pg.url, { max: 1, onnotice: () => undefined });
    await admin`CREATE DATABASE pulled`;
    await admin.end();
    const target = new URL(pg.url);
    target.pathname = '/pulled';
    const env = { MSNAP_BASE_URL: single.url, MSNAP_API_KEY: keys.pro, MSNAP_API: 'v1', MSNAP_CONFIG_DIR: dir, MSNAP_STATE_DIR: dir };
    const pull = ['pull', 'ETH', '5m', '--last', '2', '--orderbook', '--db', target.toString()];
    const first = await msnap(pull, { env, cwd: dir, timeout: 60_000 });
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toMatch(/pulled 2 markets into postgres:\/\/.*2 new, 0 updated, 0 already complete/);
    const again = await msnap(pull, { env, cwd: dir, timeout: 60_000 });
    expect(again.stderr).toMatch(/0 new, 0 updated, 2 already complete; 0 snapshots added in 0 snapshot requests/);
    // The pulled store holds data, not the source's accounts: it gets a key of its own.
    const pulledKey = await pgKey(target.toString(), dir, 'reader', 'pro');
    const served = await startServe(target.toString());
    try {
      const args = ['snapshots', 'ETH', '5m', '--last', '2', '--orderbook', '--ndjson'];
      const fromSource = await msnap(args, { env, cwd: dir });
      const fromPulled = await msnap(args, { env: { ...env, MSNAP_BASE_URL: served.url, MSNAP_API_KEY: pulledKey }, cwd: dir });
      expect(fromSource.exitCode).toBe(0);
      expect(String(fromPulled.stdout).length).toBeGreaterThan(1000);
      expect(fromPulled.stdout).toBe(fromSource.stdout);
    } finally {
      await served.stop();
    }
  });

  it('answers 503 while PostgreSQL restarts, then serves again without restarting msnap', async () => {
    await pg.stop();
    const during = await Promise.all(instances.map((s) => get(s.url, '/api/v1/markets?limit=2', keys.pro)));
    for (const a of during) {
      expect(a.status).toBe(503);
      expect(a.headers.get('retry-after')).toBe('1');
      expect(JSON.parse(a.body)).toMatchObject({ error: 'Service Unavailable', retry_after: 1 });
    }
    const v4 = await get(instances[0]!.url, '/v4/markets?coin=btc', keys.pro);
    expect(v4.status).toBe(503);
    expect(JSON.parse(v4.body)).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    const health = await get(instances[1]!.url, '/health');
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'degraded', unavailable: ['store'] });
    await pg.restart();
    await eventually(instances, '/api/v1/markets?limit=2', keys.pro, (a) => a.status === 200);
    // The public health route pays from the address's own small limit: asked once, not polled.
    const back = await get(instances[1]!.url, '/health');
    expect(back.status).toBe(200);
    expect(JSON.parse(back.body)).toMatchObject({ status: 'ok' });
    for (const s of instances) expect(s.output()).not.toMatch(/\b500\b|unexpected error/);
  });

  it('answers 503 while Redis restarts and admits nothing beyond the limit afterwards', async () => {
    const take = async (n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await get(instances[i % 3]!.url, '/api/health', keys.outage)).status);
      return out;
    };
    // 15 of the key's 20 per minute, then Redis goes away (keeping its data, as a persisted Redis does).
    expect((await take(15)).filter((s) => s === 200)).toHaveLength(15);
    await redis.stop({ keepData: true });
    const during = await take(6);
    expect(during).toEqual([503, 503, 503, 503, 503, 503]);
    const health = await get(instances[2]!.url, '/v4/health');
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'degraded', unavailable: ['limiter'] });
    await redis.restart();
    await eventually(instances, '/api/health', keys.pro, (a) => a.status === 200);
    expect((await get(instances[0]!.url, '/v4/health')).status).toBe(200);
    const after = await take(12);
    expect(after.filter((s) => s === 200)).toHaveLength(5);
    expect(after.filter((s) => s !== 200 && s !== 429)).toEqual([]);
  });
});
