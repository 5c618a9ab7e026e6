// End to end: the built `msnap` CLI (execa) against the built `msnap serve` on port 0 over a
// real seeded SQLite file: exports, pipes, -o files, stored keys and every error path.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, msnap as runMsnap, ROOT, startServe, type Served } from './support/msnap-process.js';
import { createApiKey } from '../src/accounts/create-key.js';
import type { Market } from '../src/domain/market.js';
import { seedDatabase } from '../src/store/seed/seed.js';
import { openSqliteStore } from '../src/store/sqlite/open.js';

let dir: string;
let url: string;
let server: Served;
const keys: Record<'builder' | 'pro', string> = { builder: '', pro: '' };
let outsideWindow5m: string;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-cli-e2e-'));
  const db = path.join(dir, 'data.db');
  const now = Date.now();
  const store = openSqliteStore(db);
  // 15 days: more than builder's 4,100 5m markets, so the oldest ones are outside its window.
  seedDatabase(store.bulk, { now, days: 15, seed: 3, fullMarkets: { '5m': 20, '15m': 1, '1hr': 0, '4hr': 0, '24hr': 0 } });
  keys.builder = (await createApiKey(store, { account: 'b', plan: 'builder', now })).key;
  keys.pro = (await createApiKey(store, { account: 'p', plan: 'pro', now })).key;
  const all = await store.listMarkets({ coin: 'BTC', marketType: '5m', limit: 1, offset: 0, window: null, now });
  expect(all.total).toBeGreaterThan(4100);
  outsideWindow5m = (await store.listMarkets({ coin: 'BTC', marketType: '5m', limit: 1, offset: all.total - 1, window: null, now }))
    .markets[0]!.market_id;
  store.close();

  server = await startServe(db);
  url = server.url;
}, 90_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Run the built CLI with a private config dir; MSNAP_* from the outer environment never leak in. */
function msnap(args: string[], opts: { env?: Record<string, string | undefined>; input?: string; configDir?: string } = {}) {
  const configDir = opts.configDir ?? mkdtempSync(path.join(dir, 'config-'));
  return runMsnap(args, {
    keepFinalNewline: true,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    env: {
      MSNAP_CONFIG_DIR: configDir,
      MSNAP_BASE_URL: url,
      MSNAP_API_KEY: keys.pro,
      // v1 pinned: these tests count v1 requests and pages; test/api-dialects-e2e.test.ts covers v4 and auto.
      MSNAP_API: 'v1',
      NO_COLOR: undefined,
      ...opts.env,
    },
  });
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

/** The newest BTC 5m market that has snapshots, as the CLI itself lists it. */
async function newestFull5m(): Promise<Market> {
  const r = await msnap(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '5', '--json']);
  expect(r.exitCode).toBe(0);
  const markets = JSON.parse(r.stdout) as Market[];
  expect(markets).toHaveLength(5);
  const full = markets.find((m) => m.snapshot_count > 0);
  expect(full).toMatchObject({ coin: 'BTC', market_type: '5m' });
  return full!;
}

describe('exports', () => {
  it('snapshots BTC 5m --csv returns exactly the market\'s snapshot_count rows plus the header', async () => {
    const market = await newestFull5m();
    const r = await msnap(['snapshots', 'BTC', '5m', '--csv']);
    expect(r.exitCode).toBe(0);
    // The export ends with its one summary line, and nothing else on stderr.
    expect(r.stderr).toMatch(new RegExp(`^msnap: ${market.snapshot_count.toLocaleString('en-US')} snapshots of 1 market written to stdout in \\d+\\.\\d s\n$`));
    const out = lines(r.stdout);
    expect(out[0]).toBe('id,market_id,time,price,price_up,price_down');
    expect(out).toHaveLength(market.snapshot_count + 1);
    expect(out.slice(1).every((l) => l.split(',')[1] === market.market_id)).toBe(true);
    const times = out.slice(1).map((l) => Number(l.split(',')[2]));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('--ndjson | head -1 prints one record, exits 0 without an error, and stops the download', async () => {
    const r = await execa('bash', ['-c', 'set -o pipefail; node bin/msnap.js snapshots BTC 5m --last 20 --ndjson --verbose | head -1'], {
      cwd: ROOT,
      reject: false,
      env: { MSNAP_CONFIG_DIR: mkdtempSync(path.join(dir, 'config-')), MSNAP_BASE_URL: url, MSNAP_API_KEY: keys.pro, MSNAP_API: 'v1' },
    });
    expect(r.exitCode).toBe(0);
    expect(lines(r.stdout)).toHaveLength(1);
    expect(JSON.parse(r.stdout)).toHaveProperty('price_up');
    // Only the --verbose request log: no error, and far fewer snapshot pages than the 20 markets.
    const log = lines(r.stderr);
    expect(log.every((l) => l.startsWith('msnap: GET '))).toBe(true);
    expect(log.filter((l) => l.includes('/snapshots')).length).toBeLessThan(5);
  });

  it('SIGTERM during an -o export leaves no file behind', async () => {
    const target = path.join(dir, 'interrupted.csv');
    const proc = msnap(['snapshots', 'BTC', '5m', '--last', '20', '-o', target], { env: { MSNAP_API_KEY: keys.builder } });
    const started = Date.now();
    while (!readdirSync(dir).some((f) => f.startsWith('interrupted.csv.tmp-')) && Date.now() - started < 10_000) {
      await new Promise((r) => setTimeout(r, 20));
    }
    proc.kill('SIGTERM');
    const r = await proc;
    // Killed mid-export (143) or, on a very fast machine, finished first (0, with a complete file).
    if (r.exitCode === 0) expect(lines(readFileSync(target, 'utf8')).length).toBeGreaterThan(20 * 2000);
    else {
      expect(r.exitCode).toBe(143);
      expect(readdirSync(dir).filter((f) => f.startsWith('interrupted.csv'))).toEqual([]);
    }
  });

  it('piped output defaults to NDJSON; markets are newest first', async () => {
    const r = await msnap(['markets', '--coin', 'eth', '--type', '15m', '--limit', '3']);
    expect(r.exitCode).toBe(0);
    const rows = lines(r.stdout).map((l) => JSON.parse(l) as Market);
    expect(rows).toHaveLength(3);
    expect(rows[0]!.start_time).toBeGreaterThan(rows[1]!.start_time);
    expect(rows.every((m) => m.coin === 'ETH' && m.market_type === '15m')).toBe(true);
  });

  it('-o writes the file atomically: complete on success, nothing on failure', async () => {
    const target = path.join(dir, 'btc.csv');
    const ok = await msnap(['snapshots', 'BTC', '5m', '--last', '2', '-o', target]);
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toBe('');
    const markets = (JSON.parse((await msnap(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '3', '--json'])).stdout) as Market[])
      .filter((m) => m.snapshot_count > 0)
      .slice(0, 2);
    const text = readFileSync(target, 'utf8');
    expect(lines(text)).toHaveLength(1 + markets.reduce((s, m) => s + m.snapshot_count, 0));
    expect(readdirSync(dir).filter((f) => f.startsWith('btc.csv.tmp-'))).toEqual([]);

    const failed = path.join(dir, 'missing.csv');
    const bad = await msnap(['snapshots', 'btc-updown-5m-1000000200', '-o', failed]);
    expect(bad.exitCode).toBe(6);
    expect(readdirSync(dir).filter((f) => f.startsWith('missing.csv'))).toEqual([]);
  });

  it('at COIN TYPE TIME finds the nearest snapshot in the covering market', async () => {
    const market = await newestFull5m();
    const ts = market.start_time + 10_060;
    const r = await msnap(['at', 'BTC', '5m', String(ts), '--json']);
    expect(r.exitCode).toBe(0);
    const at = JSON.parse(r.stdout) as { market_id: string; delta_ms: number; snapshot: { time: number } };
    expect(at.market_id).toBe(market.market_id);
    expect(Math.abs(at.delta_ms)).toBeLessThanOrEqual(125);
    expect(at.snapshot.time - ts).toBe(at.delta_ms);
  });

  it('limits and health describe the key and the service', async () => {
    const limits = await msnap(['limits', '--json'], { env: { MSNAP_API_KEY: keys.builder } });
    expect(limits.exitCode).toBe(0);
    expect(JSON.parse(limits.stdout)).toMatchObject({ plan: 'builder', rate_limit: { requests_per_minute: 250 } });
    const health = await msnap(['health', '--csv']);
    expect(health.exitCode).toBe(0);
    expect(lines(health.stdout)[0]).toBe('status,version,time,rtt_ms');
    expect(lines(health.stdout)[1]).toMatch(/^ok,\d+\.\d+\.\d+,\d{13},[\d.]+$/);
  });

  it('--verbose logs each request with the key masked', async () => {
    const r = await msnap(['health', '--verbose']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^msnap: GET http:\/\/127\.0\.0\.1:\d+\/api\/health -> 200 in \d+ ms \(attempt 1, key .+…\)$/m);
    expect(r.stderr).not.toContain(keys.pro);
  });
});

describe('builder data window', () => {
  it('markets --all ends at the window with one note, not a clamping warning', async () => {
    const r = await msnap(['markets', '--all', '--coin', 'BTC', '--type', '5m', '--csv'], { env: { MSNAP_API_KEY: keys.builder } });
    expect(r.exitCode).toBe(0);
    expect(lines(r.stdout)).toHaveLength(1 + 4100);
    expect(r.stderr).toBe(
      'msnap: note: builder plan: only the most recent 4,100 5m markets are listed (upgrade to Pro for the full history)\n',
    );
  });

  it('an explicit --limit past the window keeps the service warning; one inside it stays quiet', async () => {
    const past = await msnap(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '5000', '--csv'], { env: { MSNAP_API_KEY: keys.builder } });
    expect(past.exitCode).toBe(0);
    expect(lines(past.stdout)).toHaveLength(1 + 4100);
    expect(lines(past.stderr)).toHaveLength(1);
    // In the user's terms (their limit, what they got), not the last page's own clamp.
    expect(past.stderr).toBe('msnap: warning: limit 5,000 clamped to 4,100: your builder plan only includes the most recent 4,100 5m markets\n');
    const inside = await msnap(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '4100', '--csv'], { env: { MSNAP_API_KEY: keys.builder } });
    expect(inside.exitCode).toBe(0);
    expect(lines(inside.stdout)).toHaveLength(1 + 4100);
    expect(inside.stderr).toBe('');
  });
});

describe('stored keys', () => {
  it('add from stdin, list masked, then commands use the active key and its base URL', async () => {
    const configDir = mkdtempSync(path.join(dir, 'config-'));
    const env = { MSNAP_API_KEY: undefined, MSNAP_BASE_URL: undefined };
    const add = await msnap(['keys', 'add', 'local', '--base-url', url], { configDir, env, input: `${keys.builder}\n` });
    expect(add.exitCode).toBe(0);
    expect(add.stderr).toContain("Saved key 'local'");
    expect(add.stderr).not.toContain(keys.builder);
    expect(statSync(path.join(configDir, 'config.json')).mode & 0o777).toBe(0o600);

    const list = await msnap(['keys', 'list', '--json'], { configDir, env });
    expect(list.stdout).not.toContain(keys.builder);
    expect(JSON.parse(list.stdout)).toMatchObject([{ name: 'local', active: true, base_url: url, rotate: false }]);

    const limits = await msnap(['limits', '--json'], { configDir, env });
    expect(limits.exitCode).toBe(0);
    expect(JSON.parse(limits.stdout)).toMatchObject({ plan: 'builder' });
  });
});

describe('bad input: one line on stderr (plus an optional hint), the documented exit code, no stack', () => {
  async function closedPort(): Promise<number> {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const { port } = s.address() as { port: number };
    await new Promise<void>((r) => s.close(() => r()));
    return port;
  }

  it.each([
    ['unknown coin', ['markets', '--coin', 'XRP'], {}, 2, /^msnap: XRP is coming soon; available: BTC, ETH, SOL$/],
    ['unknown coin', ['snapshots', 'FOO', '5m'], {}, 2, /^msnap: unknown coin 'FOO'/],
    ['bad type', ['at', 'BTC', '7m', 'now'], {}, 2, /^msnap: unknown market type '7m'/],
    ['bad time', ['snapshots', 'BTC', '5m', '--from', 'yesterday'], {}, 2, /^msnap: --from: 'yesterday' is not a time/],
    ['bad limit', ['markets', '--limit', '-5'], {}, 2, /^msnap: --limit must be a whole number/],
    ['unknown option', ['markets', '--colour'], {}, 2, /^error: unknown option '--colour'/],
    ['missing key', ['limits'], { MSNAP_API_KEY: undefined }, 3, /^msnap: no API key configured$/],
    ['wrong key', ['limits'], { MSNAP_API_KEY: 'msk_wrong_key_0000000000' }, 3, /^msnap: .*(invalid|unknown|not valid)/i],
    ['unknown market', ['snapshots', 'btc-updown-5m-1000000200'], {}, 6, /^msnap: no market with id "btc-updown-5m-1000000200"/i],
  ] as const)('%s: %j (env %j) exits %i', async (_name, args, env, code, pattern) => {
    const r = await msnap([...args], { env });
    expect(r.exitCode).toBe(code);
    const err = lines(r.stderr);
    expect(err.length).toBeGreaterThanOrEqual(1);
    expect(err.length).toBeLessThanOrEqual(2);
    expect(err[0]).toMatch(pattern);
    if (err[1]) expect(err[1]).toMatch(/^(hint: |\(run with --help)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('a market outside the builder window exits 4 with the plan and an upgrade hint', async () => {
    const r = await msnap(['snapshots', outsideWindow5m], { env: { MSNAP_API_KEY: keys.builder } });
    expect(r.exitCode).toBe(4);
    const err = lines(r.stderr);
    expect(err[0]).toMatch(/^msnap: .*builder.*4,100 5m markets/i);
    expect(err.join('\n')).toMatch(/upgrade/i);
    expect(err.length).toBeLessThanOrEqual(2);
  });

  it('no server at the URL exits 7 and says how to start one', async () => {
    const r = await msnap(['health'], { env: { MSNAP_BASE_URL: `http://127.0.0.1:${await closedPort()}` } });
    expect(r.exitCode).toBe(7);
    const err = lines(r.stderr);
    expect(err[0]).toMatch(/^msnap: no msnap service at http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stderr).toMatch(/msnap serve/);
    expect(err.length).toBeLessThanOrEqual(2);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
