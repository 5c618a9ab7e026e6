// Reliability, secrets: a key exists in plain text only where its owner put it. Not in the
// database (hash only), not in the server's logs, not in any error or --verbose line (masked), the
// client's key file is 0600, and a 401 says nothing about how close a wrong key came.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, msnap, seed, startServe, type Served } from './support/msnap-process.js';

let dir: string;
let db: string;
let served: Served;
const keys: Record<'pro' | 'builder' | 'revoked', string> = { pro: '', builder: '', revoked: '' };
/** Everything the CLI printed across this file, checked at the end. */
const cliOutput: string[] = [];

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-rel-secrets-'));
  db = path.join(dir, 'secrets.db');
  await seed(db, ['--days', '16', '--full', '5m=1,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-minutes', '0']);
  keys.pro = await createKey(db, 'sec-pro', 'pro');
  keys.builder = await createKey(db, 'sec-builder', 'builder');
  keys.revoked = await createKey(db, 'sec-builder', 'builder');
  const revoke = await msnap(['serve', 'keys', 'revoke', '3', '--db', db], { cwd: dir });
  expect(revoke.exitCode, String(revoke.stderr)).toBe(0);
  served = await startServe(db);
}, 90_000);

afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const allKeys = () => Object.values(keys);

/** The bytes of the database and its WAL and shared-memory files (whatever exists now). */
function databaseBytes(): Buffer {
  return Buffer.concat([db, `${db}-wal`, `${db}-shm`].filter(existsSync).map((f) => readFileSync(f)));
}

/** One GET from a chosen loopback address (each address has its own anonymous limiter). */
function getFrom(localAddress: string, urlPath: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: served.port, path: urlPath, headers, localAddress, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function cli(args: string[], env: Record<string, string | undefined> = {}, input?: string) {
  // v1 pinned: these tests count v1 requests and pages; test/api-dialects-e2e.test.ts covers v4 and auto.
  const r = await msnap(args, { cwd: dir, env: { MSNAP_BASE_URL: served.url, MSNAP_CONFIG_DIR: path.join(dir, 'config'), MSNAP_API: 'v1', ...env }, ...(input !== undefined ? { input } : {}) });
  cliOutput.push(String(r.stdout), String(r.stderr));
  return r;
}

describe('keys at rest', () => {
  it('the database holds each key only as a sha256 hash, never the key or its secret part', async () => {
    // A request, so the server has touched the key rows while running (WAL in use).
    const res = await fetch(`${served.url}/api/v1/limits`, { headers: { 'X-API-Key': keys.pro } });
    expect(res.status).toBe(200);
    const bytes = databaseBytes();
    for (const key of allKeys()) {
      expect(bytes.includes(Buffer.from(key))).toBe(false);
      expect(bytes.includes(Buffer.from(key.slice(8)))).toBe(false); // the part a display prefix never shows
      // Positive control: the search does look at the stored rows, where the hash is.
      const hash = createHash('sha256').update(key).digest('hex');
      expect(bytes.includes(Buffer.from(hash))).toBe(true);
    }
    const conn = new Database(db, { readonly: true });
    const rows = conn.prepare('SELECT key_hash, prefix FROM api_keys').all() as { key_hash: string; prefix: string }[];
    conn.close();
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.prefix).toMatch(/^msk_[0-9A-Za-z]{4}$/);
    }
  });

  it('serve keys list (table and JSON) shows prefixes, never a key', async () => {
    for (const args of [['serve', 'keys', 'list', '--db', db], ['serve', 'keys', 'list', '--json', '--db', db]]) {
      const r = await cli(args);
      expect(r.exitCode).toBe(0);
      for (const key of allKeys()) expect(String(r.stdout) + String(r.stderr)).not.toContain(key.slice(8));
    }
  });
});

describe('keys in transit', () => {
  it('a 401 looks the same for a near miss as for a random key: no oracle for what part was right', async () => {
    const real = keys.pro;
    const flip = (c: string) => (c === 'a' ? 'b' : 'a');
    const variants = {
      'random key': `msk_${randomBytes(30).toString('base64url').slice(0, 40)}`,
      'last character changed': real.slice(0, -1) + flip(real.at(-1)!),
      'first character after the prefix changed': real.slice(0, 4) + flip(real[4]!) + real.slice(5),
      'right first half': real.slice(0, 24) + 'x'.repeat(real.length - 24),
      'one character short': real.slice(0, -1),
      'one character extra': `${real}a`,
      'no msk_ prefix': real.slice(4),
      'lower-cased': real.toLowerCase() === real ? `${real}Z` : real.toLowerCase(),
    };
    const answers: Record<string, { status: number; body: string; challenge: unknown }> = {};
    let n = 10;
    for (const [name, key] of Object.entries(variants)) {
      for (const [scheme, headers] of [['x-api-key', { 'X-API-Key': key }], ['bearer', { Authorization: `Bearer ${key}` }]] as const) {
        const r = await getFrom(`127.0.0.${n++}`, '/api/v1/markets?limit=1', headers);
        answers[`${name} (${scheme})`] = { status: r.status, body: r.body, challenge: r.headers['www-authenticate'] };
        expect(r.body).not.toContain(key);
      }
    }
    const reference = answers['random key (x-api-key)']!;
    expect(reference.status).toBe(401);
    for (const [name, answer] of Object.entries(answers)) expect(answer, name).toEqual(reference);
  });

  it('no error body echoes a key the request carried', async () => {
    const cases: [string, Record<string, string>][] = [
      ['/api/v1/markets?coin=nope', { 'X-API-Key': keys.pro }],
      ['/api/v1/nope', { 'X-API-Key': keys.pro }],
      ['/api/v1/markets/btc-updown-5m-1000000200', { 'X-API-Key': keys.pro }],
      ['/api/v1/limits', { 'X-API-Key': keys.pro, Authorization: `Bearer ${keys.builder}` }],
      ['/api/v1/limits', { Authorization: `Basic ${keys.pro}` }],
      ['/api/v1/limits', { Authorization: `Bearer ${keys.pro} ${keys.builder}` }],
      ['/api/v1/limits', { 'X-API-Key': keys.revoked }],
      ['/api/v1/limits', { 'X-API-Key': `${keys.pro}x` }],
    ];
    let n = 40;
    for (const [urlPath, headers] of cases) {
      const r = await getFrom(`127.0.0.${n++}`, urlPath, headers);
      expect(r.status, urlPath).toBeGreaterThanOrEqual(400);
      for (const key of allKeys()) expect(r.body, `${urlPath} ${r.body}`).not.toContain(key.slice(8));
      expect(JSON.stringify(r.headers)).not.toContain(keys.pro.slice(8));
    }
  });
});

describe('keys on the client', () => {
  it('keys add writes a 0600 config file; keys list and every command show the key masked', async () => {
    const add = await cli(['keys', 'add', 'main', '--base-url', served.url], {}, `${keys.builder}\n`);
    expect(add.exitCode, String(add.stderr)).toBe(0);
    const file = path.join(dir, 'config', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The key is in the file (that is its job) and nowhere the user did not ask for it.
    expect(readFileSync(file, 'utf8')).toContain(keys.builder);
    for (const args of [['keys', 'list'], ['keys', 'list', '--json']]) {
      const r = await cli(args);
      expect(r.exitCode).toBe(0);
      expect(String(r.stdout)).toContain(keys.builder.slice(0, 8));
    }
  });

  it('--verbose, warnings and error messages mask the key (success, 401, 403, 404, 400 and unreachable paths)', async () => {
    const runs: [string[], Record<string, string | undefined>][] = [
      [['limits', '--verbose'], { MSNAP_API_KEY: keys.pro }],
      [['markets', '--coin', 'btc', '--type', '5m', '--limit', '2000', '--verbose', '--json'], { MSNAP_API_KEY: keys.builder }],
      [['limits', '--verbose', '--api-key', keys.revoked], {}],
      [['limits', '--verbose', '--auth-scheme', 'bearer', '--api-key', `${keys.pro}x`], {}],
      [['snapshots', 'btc-updown-5m-1000000200', '--verbose'], { MSNAP_API_KEY: keys.pro }],
      [['markets', '--coin', 'btc', '--type', '24hr', '--offset', '14', '--verbose'], { MSNAP_API_KEY: keys.builder }],
      [['health', '--verbose', '--base-url', 'http://127.0.0.1:9'], { MSNAP_API_KEY: keys.pro }],
      [['health', '--verbose'], {}], // the stored key from `keys add`
    ];
    const results = await Promise.all(runs.map(([args, env]) => cli(args, env)));
    for (const [i, r] of results.entries()) expect(String(r.stderr), runs[i]![0].join(' ')).not.toMatch(/^\s+at /m);
    // Each kind of answer really happened (masked lines on success and on failure).
    expect(results.map((r) => r.exitCode)).toEqual([0, 0, 3, 3, 6, 4, 7, 0]);
    expect(String(results[0]!.stderr)).toMatch(/key msk_\w{4}…/);
  });
});

describe('logs', () => {
  it('neither the server nor the CLI ever printed a key (whole run)', async () => {
    await served.stop();
    const serverText = served.output();
    const cliText = cliOutput.join('\n');
    expect(cliText).toContain('…'); // masks were shown
    for (const key of allKeys()) {
      expect(serverText).not.toContain(key.slice(8));
      // `serve keys create` printed each key once on stdout by design; nothing else may.
      expect(cliText).not.toContain(key.slice(8));
    }
    // And the database after a clean close (WAL checkpointed into the main file): still only hashes.
    const bytes = databaseBytes();
    for (const key of allKeys()) expect(bytes.includes(Buffer.from(key.slice(8)))).toBe(false);
  });
});
