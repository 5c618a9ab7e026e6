// Reliability, bad input: thousands of generated hostile requests (seeded, so a failure replays)
// against the real `msnap serve` over real sockets, plus raw bytes no HTTP client would send.
// Every answer must be < 500 and every error must be the contract's JSON with the rate-limit headers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32, type Random } from '../src/random/prng.js';
import { buildIfStale, createKey, parseRawResponses, rawExchange, seed, startServe, type Served } from './support/msnap-process.js';

const REQUESTS = 5200;
const FUZZ_SEED = 20251122;

let dir: string;
let served: Served;
let enterprise: string;
let builder: string;
let marketIds: string[];
/** ETH 24hr markets past builder's window of 14: the builder key's requests for these get 403. */
let outsideWindow: string[];

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-rel-input-'));
  const db = path.join(dir, 'fuzz.db');
  // 16 days: more 24hr markets than builder's 14, so builder requests can meet the window (403).
  await seed(db, ['--days', '16', '--full', '5m=1,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-minutes', '1']);
  enterprise = await createKey(db, 'fuzz-ent', 'enterprise', ['--rpm', '100000000', '--burst', '1000000']);
  builder = await createKey(db, 'fuzz-builder', 'builder');
  served = await startServe(db);
  const res = await fetch(`${served.url}/api/v1/markets?coin=btc&limit=40`, { headers: { 'X-API-Key': enterprise } });
  const oldest = await fetch(`${served.url}/api/v1/markets?coin=eth&market_type=24hr&limit=3&offset=13`, { headers: { 'X-API-Key': enterprise } });
  outsideWindow = ((await oldest.json()) as { markets: { market_id: string }[] }).markets.map((m) => m.market_id).slice(1);
  marketIds = [...((await res.json()) as { markets: { market_id: string }[] }).markets.map((m) => m.market_id), ...outsideWindow];
  expect(marketIds.length).toBeGreaterThan(40);
}, 120_000);

afterAll(async () => {
  const t = performance.now();
  const stopped = await served?.stop();
  console.log(`[reliability] stop took ${(performance.now() - t).toFixed(0)} ms`);
  expect(stopped?.exitCode).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

// ---- the generator -------------------------------------------------------------------------

const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;

const HOSTILE_VALUES = [
  '-1', '-0', '0', '1', '100', '1000', '10000', '10001', '-999999', '1.5', '0.0', '1e3', '1e309', 'NaN', 'Infinity', '-Infinity',
  '0x10', '99999999999999999999999999', '9007199254740993', ' 5', '5 ', '+5', '', ' ', 'true', 'false', 'null', 'undefined',
  'btc', 'BTC', 'eth', 'sol', 'xrp', 'DOGE', 'bnb', 'ltc', '5m', '15m', '1hr', '4hr', '24hr', '7m', '1h', 'active', 'resolved',
  'pending', 'yes', '1', '0', '2', '₿', '比特币', '🚀🚀', 'e\u0301', '\u202Ebtc', '\uFEFFbtc', "' OR 1=1--", '"; DROP TABLE markets; --',
  "1; DELETE FROM api_keys", "btc' UNION SELECT key_hash FROM api_keys--", '../../etc/passwd', '..%2F..%2Fetc%2Fpasswd',
  '%00', '\u0000', '%', '%%', '%zz', '%C0%AF', '<script>alert(1)</script>', '${jndi:ldap://x}', '{{7*7}}', '[]', '{}',
  '2025-11-22T00:00:00Z', '2025-13-45T99:99:99Z', '2025-11-22', '1763769600000', '-1763769600000', '17637696000001234567',
];
const PARAMS = ['coin', 'market_type', 'status', 'limit', 'offset', 'include_orderbook', 'market', 'ts', 'timestamp', 'start_time', 'end_time', 'junk', '', '__proto__', 'constructor', 'limit[]', 'coin%00'];
const BASES = ['/api/health', '/api/v1/markets', '/v1/markets', '/api/v1/limits', '/v1/limits', '/v1/snapshots/at-timestamp', '/api/v1/snapshots/at-timestamp'];
const HOSTILE_PATHS = [
  '/', '//', '/api', '/api/', '/api/v1', '/api/v1/', '/api/v2/markets', '/API/V1/MARKETS', '/api/v1//markets', '/api/v1/markets/',
  '/api/v1/markets//snapshots', '/../../etc/passwd', '/api/v1/../../etc/passwd', '/api/v1/markets/..%2F..%2Fetc%2Fpasswd',
  '/api/v1/markets/%2e%2e/%2e%2e/etc/passwd', '/%00', '/api/v1/markets/%00', '/api/v1/markets/%FF%FE', '/api/v1/markets/%',
  '/api/v1/markets/%E2%82%BF', '/api/v1/markets/btc-updown-5m-0', '/api/v1/markets/btc-updown-5m-99999999999999999999',
  "/api/v1/markets/btc'%20OR%201=1--", '/api/v1/markets/x/snapshots/extra', '/api/v1/markets/x/y/z', '/v1/markets;jsessionid=1',
  '/api/health/', '/api/health.json', '/favicon.ico', '/.env', '/.git/config', '/api/v1/limits?', '/api/v1/markets?&&&', '/api/v1/markets?=',
  '/api/v1/markets?coin', '/api/v1/markets#frag', '/wp-admin/', '/api/v1/markets/' + 'A'.repeat(2000),
];
const METHODS = ['GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE'];

// Code points, not UTF-16 units: a lone surrogate cannot be percent-encoded by any client.
const ALPHABET = Array.from('abcXYZ019-_.~!$&\'()*+,;=:@/?%#[] "<>\\^`{|}é₿🚀\u0000\u001f\u007f');

function randomString(r: Random, length: number): string {
  const alphabet = ALPHABET;
  let s = '';
  for (let i = 0; i < length; i++) s += alphabet[Math.floor(r() * alphabet.length)];
  return s;
}

function encodeValue(r: Random, value: string): string {
  // Mostly encoded as a browser would, sometimes sent raw (what encodeURI lets through).
  return r() < 0.8 ? encodeURIComponent(value) : encodeURI(value).replace(/[#&]/g, (c) => encodeURIComponent(c));
}

function randomValue(r: Random): string {
  const roll = r();
  if (roll < 0.7) return pick(r, HOSTILE_VALUES);
  if (roll < 0.85) return randomString(r, 1 + Math.floor(r() * 40));
  if (roll < 0.93) return pick(r, marketIds);
  if (roll < 0.97) return String(Math.floor((r() - 0.3) * 2 ** (1 + Math.floor(r() * 60))));
  return 'x'.repeat(10 * 1024); // a 10 KB value: the URL passes 8 KiB, so 414
}

function randomPath(r: Random): string {
  const roll = r();
  if (roll < 0.25) return pick(r, HOSTILE_PATHS);
  const id = r() < 0.8 ? pick(r, marketIds) : randomString(r, 1 + Math.floor(r() * 30));
  const encodedId = encodeURIComponent(id);
  if (roll < 0.5) return pick(r, ['/api/v1/markets/', '/v1/markets/'])! + encodedId + pick(r, ['/snapshots', '/snapshots', '']);
  return pick(r, BASES);
}

function randomQuery(r: Random): string {
  const n = Math.floor(r() * 5);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const name = pick(r, PARAMS);
    const value = randomValue(r);
    parts.push(`${encodeURIComponent(name)}=${encodeValue(r, value)}`);
    if (r() < 0.1) parts.push(`${encodeURIComponent(name)}=${encodeValue(r, randomValue(r))}`); // repeated
  }
  if (r() < 0.05) parts.push(''); // a stray '&'
  return parts.length ? `?${parts.join('&')}` : '';
}

type Headers = Record<string, string | string[]>;

function randomAuth(r: Random): { headers: Headers; plan: 'enterprise' | 'builder' | 'none' } {
  const roll = r();
  if (roll < 0.55) return { headers: { 'x-api-key': enterprise }, plan: 'enterprise' };
  if (roll < 0.65) return { headers: { authorization: `Bearer ${enterprise}` }, plan: 'enterprise' };
  if (roll < 0.7) return { headers: { 'x-api-key': builder }, plan: 'builder' };
  if (roll < 0.72) return { headers: { 'x-api-key': enterprise, authorization: `Bearer ${enterprise}` }, plan: 'enterprise' };
  const hostile: Headers[] = [
    {},
    { 'x-api-key': enterprise, authorization: `Bearer ${builder}` }, // both, disagreeing: 400
    { authorization: `Basic ${Buffer.from(`u:${enterprise}`).toString('base64')}` },
    { authorization: 'Bearer' },
    { authorization: 'Bearer ' },
    { authorization: `Bearer ${enterprise} extra` },
    { authorization: `Token ${enterprise}` },
    { authorization: `bearer ${enterprise.slice(0, -1)}x` },
    { authorization: 'Digest username="a", realm="b"' },
    { 'x-api-key': '' },
    { 'x-api-key': ' ' },
    { 'x-api-key': [enterprise, enterprise] },
    { 'x-api-key': [enterprise, builder] },
    { 'x-api-key': `${enterprise.slice(0, 12)}${'0'.repeat(32)}` },
    { 'x-api-key': "' OR 1=1--" },
    { 'x-api-key': 'k'.repeat(10 * 1024) },
    { 'x-api-key': Buffer.from('clé-ключ', 'utf8').toString('latin1') },
    { authorization: `Bearer ${'z'.repeat(12 * 1024)}` },
    { 'x-junk': 'j'.repeat(20 * 1024), 'x-api-key': enterprise }, // past the 16 KiB header limit: 431
    Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`x-h${i}`, 'v'.repeat(64)])),
    { 'content-type': 'application/json', 'x-api-key': enterprise, 'x-forwarded-for': '10.0.0.1' },
    { 'x-api-key': enterprise, 'accept-encoding': 'gzip, br', 'range': 'bytes=0-10', 'if-none-match': '*' },
  ];
  const headers = pick(r, hostile);
  const plan = headers['x-api-key'] === enterprise && !headers.authorization ? 'enterprise' : 'none';
  return { headers, plan };
}

interface Generated {
  method: string;
  path: string;
  headers: Headers;
  body?: string;
}

function generate(r: Random): Generated {
  const method = pick(r, METHODS);
  const { headers, plan } = randomAuth(r);
  const path = plan === 'builder' && r() < 0.5 ? `/api/v1/markets/${pick(r, outsideWindow)}${pick(r, ['', '/snapshots'])}` : randomPath(r);
  const target = path + randomQuery(r);
  return {
    method,
    path: target.length > 20_000 ? target.slice(0, 20_000) : target,
    headers,
    ...(method !== 'GET' && method !== 'HEAD' && method !== 'TRACE' && r() < 0.5 ? { body: randomString(r, 200) } : {}),
  };
}

// ---- the checks ----------------------------------------------------------------------------

type Flat = Record<string, string | string[] | undefined>;

/** Every contract rule an error answer must meet; returns what is wrong (empty when fine). */
function errorProblems(status: number, headers: Flat, body: string, method: string): string[] {
  const problems: string[] = [];
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    if (!/^\d+$/.test(String(headers[h] ?? ''))) problems.push(`${h}=${String(headers[h])}`);
  }
  if (!headers.date || Number.isNaN(Date.parse(String(headers.date)))) problems.push('no Date');
  if (!String(headers['content-type'] ?? '').startsWith('application/json')) problems.push(`content-type ${String(headers['content-type'])}`);
  if (method === 'HEAD') return problems; // no body on HEAD, by HTTP
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return [...problems, `body not JSON: ${body.slice(0, 80)}`];
  }
  if (typeof json.error !== 'string' || json.error === '') problems.push('no error');
  if (typeof json.message !== 'string' || json.message === '') problems.push('no message');
  if (status === 429) {
    const retry = Number(headers['retry-after']);
    if (!(Number.isInteger(retry) && retry >= 1) || json.retry_after !== retry) problems.push(`429 retry ${String(headers['retry-after'])}/${String(json.retry_after)}`);
  }
  if (status === 403 && json.tier !== 'builder') problems.push('403 without tier');
  if (status === 405 && headers.allow !== 'GET') problems.push('405 without Allow: GET');
  if (status === 401 && !String(headers['www-authenticate'] ?? '').startsWith('Bearer')) problems.push('401 without WWW-Authenticate');
  return problems;
}

/** The API's paths (every dialect's prefix and the bare health checks, as the dashboard tells them
 * apart): their errors are the contract's JSON. Every other path is the dashboard's (a page, a
 * redirect or its HTML 404; test/dashboard-browser.test.ts). Oversized requests are refused
 * (414/431 JSON) before either sees them. */
function isDashboardPage(target: string): boolean {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  return path.startsWith('/') && !/^\/(?:api|v\d+|health)(?:\/|$)/.test(path);
}

/** What a dashboard answer to hostile input must be: a page or redirect under the strict CSP, never 5xx. */
function dashboardProblems(status: number, headers: Flat): string[] {
  const problems: string[] = [];
  if (![200, 303, 404, 405].includes(status)) problems.push(`dashboard status ${status}`);
  if (!String(headers['content-security-policy'] ?? '').startsWith("default-src 'none'; script-src 'self'")) problems.push('no CSP');
  if (headers['x-content-type-options'] !== 'nosniff') problems.push('no nosniff');
  if (status === 405 && headers.allow !== 'GET, HEAD') problems.push(`405 with Allow ${String(headers.allow)}`);
  return problems;
}

describe('hostile HTTP requests against a running msnap serve', () => {
  it(`answers ${REQUESTS} generated malformed requests without a 5xx, each error the contract's JSON`, async () => {
    const r = mulberry32(FUZZ_SEED);
    const pool = new Pool(served.url, { connections: 8, pipelining: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
    const histogram: Record<string, number> = {};
    const bad: string[] = [];
    let tried = 0;
    let refusedByClient = 0;
    const requests = Array.from({ length: REQUESTS }, () => generate(r));
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const req = requests[next++]!;
        let res;
        try {
          res = await pool.request({ method: req.method as 'GET', path: req.path, headers: req.headers, body: req.body });
        } catch (err) {
          // undici refuses some inputs before sending (e.g. invalid header bytes); they never reach the server.
          if ((err as { code?: string }).code === 'UND_ERR_INVALID_ARG') {
            refusedByClient++;
            continue;
          }
          bad.push(`${req.method} ${req.path.slice(0, 120)}: client error ${(err as Error).message}`);
          continue;
        }
        tried++;
        const body = await res.body.text();

        histogram[res.statusCode] = (histogram[res.statusCode] ?? 0) + 1;
        const where = `${req.method} ${req.path.slice(0, 120)} -> ${res.statusCode}`;
        if (res.statusCode >= 500) bad.push(`${where}: 5xx ${body.slice(0, 200)}`);
        else if (isDashboardPage(req.path) && res.statusCode !== 414 && res.statusCode !== 431) {
          const problems = dashboardProblems(res.statusCode, res.headers);
          if (problems.length) bad.push(`${where}: ${problems.join('; ')}`);
        } else if (res.statusCode >= 400) {
          const problems = errorProblems(res.statusCode, res.headers, body, req.method);
          if (problems.length) bad.push(`${where}: ${problems.join('; ')}`);
        } else if (req.method !== 'HEAD') {
          try {
            JSON.parse(body);
          } catch {
            bad.push(`${where}: 2xx body not JSON`);
          }
        }
        if (req.path.length > 8192 && res.statusCode !== 414 && res.statusCode !== 431) {
          bad.push(`${where}: a ${req.path.length}-character URL was not refused with 414/431`);
        }
        const headerBytes = Object.entries(req.headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);
        if (headerBytes > 17 * 1024 && res.statusCode !== 431) bad.push(`${where}: ${headerBytes} bytes of headers not refused with 431`);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const ms = performance.now() - started;
    await pool.close();

    const health = await fetch(`${served.url}/api/health`, { headers: { 'X-API-Key': enterprise } });
    expect(health.status).toBe(200);
    const fivexx = Object.entries(histogram).filter(([s]) => Number(s) >= 500).reduce((n, [, c]) => n + c, 0);
    console.log(
      `[reliability] hostile HTTP: ${tried} requests answered (${refusedByClient} refused by undici before sending) in ${(ms / 1000).toFixed(1)} s; ` +
        `5xx: ${fivexx}; statuses ${JSON.stringify(histogram)}`,
    );
    expect(bad.slice(0, 20)).toEqual([]);
    expect(fivexx).toBe(0);
    expect(tried).toBeGreaterThanOrEqual(5000);
    // The generator must really reach every kind of answer, or it tests less than it claims.
    for (const status of ['200', '400', '401', '403', '404', '405', '414', '429', '431']) expect(histogram[status] ?? 0, status).toBeGreaterThan(0);
    expect(served.proc.exitCode).toBeNull();
    expect(served.output()).not.toMatch(/\b500\b|Error:|\n\s+at /);
  }, 90_000);

  const RAW_CASES: [string, string | string[]][] = [
    ['not HTTP at all', 'HELLO THERE\r\n\r\n'],
    ['binary junk', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37 + 11) % 256)).toString('latin1')],
    ['a TLS ClientHello on the plain port', '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003' + 'R'.repeat(64)],
    ['unknown HTTP version', 'GET /api/health HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['HTTP/0.9 request line', 'GET /api/health\r\n\r\n'],
    ['lower-case method', 'get /api/health HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['unknown method', 'BREW /api/health HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['header line without a colon', 'GET /api/health HTTP/1.1\r\nHost: x\r\nthis line has no colon\r\n\r\n'],
    ['header name with a space', 'GET /api/health HTTP/1.1\r\nHost: x\r\nX Api Key: k\r\n\r\n'],
    ['NUL in the target', 'GET /api/\u0000health HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['space in the target', 'GET /api/v1/markets?coin=b tc HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['control byte in a header value', 'GET /api/health HTTP/1.1\r\nHost: x\r\nX-API-Key: a\u0001b\r\n\r\n'],
    ['bare LF line ends', 'GET /api/health HTTP/1.1\nHost: x\n\n'],
    ['obsolete header folding', 'GET /api/health HTTP/1.1\r\nHost: x\r\nX-API-Key: a\r\n b\r\n\r\n'],
    ['bad chunk size', 'POST /api/v1/markets HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n'],
    ['chunk longer than declared', 'POST /api/v1/markets HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n'],
    ['chunked and Content-Length (smuggling)', 'POST /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api/health HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['two different Content-Lengths', 'POST /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 30\r\n\r\nabc'],
    ['negative Content-Length', 'POST /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n'],
    ['unknown transfer coding', 'POST /api/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, zork\r\n\r\n'],
    ['absolute-form target to another host', 'GET http://evil.example/api/health HTTP/1.1\r\nHost: evil.example\r\n\r\n'],
    ['asterisk target', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['CONNECT', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n'],
    ['request line past the header limit', `GET /api/v1/markets?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    // Node counts header names and values (not ': ' or CRLF) against its 16 KiB limit: 200 x 105 bytes.
    ['many headers past the header limit', `GET /api/health HTTP/1.1\r\nHost: x\r\n${`X-Pad: ${'p'.repeat(100)}\r\n`.repeat(200)}\r\n`],
    ['a good request then garbage, pipelined', 'GET /api/health HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n'],
    ['request line in tiny pieces', ['GE', 'T /api/he', 'alth HTTP/1.1\r\nHo', 'st: x\r\n\r\n']],
  ];

  it.concurrent.each(RAW_CASES)('raw socket: %s gets a JSON 4xx or a closed socket, never a 5xx', async (name, bytes) => {
    const answer = await rawExchange(served.port, bytes, { waitMs: 2000, gapMs: 20, settleMs: 300 });
    const responses = parseRawResponses(answer.text);
    if (answer.text !== '') expect(responses.length, answer.text.slice(0, 200)).toBeGreaterThan(0);
    for (const res of responses) {
      expect(res.status, answer.text.slice(0, 200)).toBeLessThan(500);
      if (res.status >= 400) expect(errorProblems(res.status, res.headers, res.body, 'GET')).toEqual([]);
    }
    // A socket the server keeps open (keep-alive) must at least have had a complete answer: no hang.
    if (!answer.closedByServer) expect(responses.length, answer.text.slice(0, 200)).toBeGreaterThan(0);
    if (/past the header limit/.test(name)) expect(responses.map((res) => res.status)).toEqual([431]);
  });

  it('stays up and answers /api/health after all of it', async () => {
    const res = await fetch(`${served.url}/api/health`, { headers: { 'X-API-Key': enterprise } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('ok');
    expect(served.proc.exitCode).toBeNull();
  });
});
