// A new user's first hour, end to end with the built CLI against a real `msnap serve`: tables that
// fit the terminal (a real pty via `script`), no stray output before the first page succeeds, and
// messages that point at what the user actually got wrong.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, buildIfStale, createKey, msnap, seed, startServe, type Served } from './support/msnap-process.js';

let dir: string;
let served: Served;
let builder: string;
let pro: string;
let oldest5m: string;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-first-hour-'));
  const db = path.join(dir, 'data.db');
  // 15 days: more 5m markets than builder's window of 4,100, so the oldest are outside it.
  await seed(db, ['--days', '15', '--full', '5m=2,15m=0,1hr=0,4hr=0,24hr=0']);
  builder = await createKey(db, 'b', 'builder');
  pro = await createKey(db, 'p', 'pro');
  served = await startServe(db);
  const total = JSON.parse(
    String((await msnap(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '1', '--json'], { env: env(pro) })).stdout),
  ) as Array<{ market_id: string }>;
  expect(total).toHaveLength(1);
  const last = await msnap(['markets', '--coin', 'BTC', '--type', '5m', '--all', '--ndjson'], { env: env(pro) });
  const ids = String(last.stdout).trim().split('\n');
  expect(ids.length).toBeGreaterThan(4100);
  oldest5m = (JSON.parse(ids.at(-1)!) as { market_id: string }).market_id;
}, 180_000);

afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function env(key: string, extra: Record<string, string> = {}): Record<string, string> {
  // v1 pinned: these tests count v1 requests and pages; test/api-dialects-e2e.test.ts covers v4 and auto.
  return { MSNAP_BASE_URL: served.url, MSNAP_API_KEY: key, MSNAP_API: 'v1', MSNAP_CONFIG_DIR: path.join(dir, 'cfg-default'), ...extra };
}

/** Runs the built CLI on a real pseudo-terminal `cols` wide; returns what the terminal showed. */
function onTerminal(cols: number, args: string[], key: string): string {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return execFileSync('script', ['-qec', `stty cols ${cols} rows 50; ${quoted}`, '/dev/null'], {
    env: { ...process.env, ...env(key), NO_COLOR: '1' },
    encoding: 'utf8',
  }).replace(/\r/g, '');
}

describe('tables that fit (item 7)', () => {
  it('a markets table fits 80 columns, says what it hid, and --wide shows everything', () => {
    const narrow = onTerminal(80, ['markets', '--coin', 'BTC', '--type', '5m', '--limit', '3'], pro);
    const tableLines = narrow.split('\n').filter((l) => /^[┌│├└]/.test(l));
    expect(tableLines.length).toBeGreaterThan(4);
    expect(Math.max(...tableLines.map((l) => [...l].length))).toBeLessThanOrEqual(80);
    expect(narrow).toMatch(/market_id/);
    // The note names the columns as the header does (type, not market_type) and fits the terminal too.
    const fromNote = narrow.slice(narrow.indexOf('msnap: table fitted')).split('\n');
    const note = fromNote.slice(0, fromNote.findIndex((l) => /^[┌│├└]/.test(l) || l === ''));
    expect(Math.max(...note.map((l) => [...l].length))).toBeLessThanOrEqual(80);
    expect(note.map((l) => l.trim()).join(' ')).toMatch(/^msnap: table fitted to 80 columns \(hidden: end_time, coin, type, .*\); --wide shows everything, --csv\/--json every field$/);
    expect(note.join(' ')).not.toMatch(/market_type/);

    const wide = onTerminal(80, ['markets', '--coin', 'BTC', '--type', '5m', '--limit', '3', '--wide'], pro);
    const wideLines = wide.split('\n').filter((l) => /^[┌│├└]/.test(l));
    expect(Math.max(...wideLines.map((l) => [...l].length))).toBeGreaterThan(80);
    expect(wide).toMatch(/end_time/);
    expect(wide).not.toMatch(/table fitted/);
  });

  it('an orderbook table shows the top of each book, within the width', () => {
    const out = onTerminal(100, ['snapshots', 'BTC', '5m', '--orderbook'], pro);
    const lines = out.split('\n').filter((l) => /^[┌│├└]/.test(l));
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(100);
    expect(out).toMatch(/up bid \| ask/);
    expect(out).toMatch(/\d×\d+(\.\d+)? \| \d/);
  });

  it('machine formats are untouched by the terminal width', async () => {
    const piped = await msnap(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '3', '--csv'], { env: env(pro) });
    expect(String(piped.stdout).split('\n')[0]).toBe(
      'market_id,slug,coin,market_type,status,start_time,end_time,price_start,price_end,winner,snapshot_count',
    );
  });
});

describe('no surprising output (item 8)', () => {
  it('an error at the first page leaves stdout empty: no header-only CSV, no lone [', async () => {
    for (const fmt of ['--csv', '--json', '--ndjson']) {
      const outside = await msnap(['snapshots', oldest5m, fmt], { env: env(builder) });
      expect(outside.exitCode, fmt).toBe(4);
      expect(outside.stdout, fmt).toBe('');
      const unknown = await msnap(['snapshots', 'btc-updown-5m-1000000200', fmt], { env: env(pro) });
      expect(unknown.exitCode, fmt).toBe(6);
      expect(unknown.stdout, fmt).toBe('');
    }
  });
});

describe('the data window, said right (item 5)', () => {
  const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';

  it('markets --all without a type says what the window held back', async () => {
    const r = await msnap(['markets', '--all', '--coin', 'BTC', '--csv'], { env: env(builder) });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(
      'msnap: note: builder plan: only the most recent 4,100 5m, 1,400 15m, 350 1hr, 85 4hr and 14 24hr markets are listed (upgrade to Pro for the full history)',
    );
    const pro_ = await msnap(['markets', '--all', '--coin', 'BTC', '--csv'], { env: env(pro) });
    expect(pro_.stderr).toBe('');
    expect(String(pro_.stdout).trim().split('\n').length).toBeGreaterThan(String(r.stdout).trim().split('\n').length);
  });

  it('--limit 5000 is answered in the user\'s terms, not the last page\'s clamp', async () => {
    const r = await msnap(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '5000', '--csv'], { env: env(builder) });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('msnap: warning: limit 5,000 clamped to 4,100: your builder plan only includes the most recent 4,100 5m markets');
  });

  it('snapshots over a range wholly before the window: outside the plan (exit 4), not "not found"', async () => {
    const oldest = JSON.parse(String((await msnap(['markets', '--coin', 'BTC', '--type', '5m', '--offset', '4099', '--limit', '1', '--json'], { env: env(builder) })).stdout)) as Array<{ start_time: number }>;
    const windowStart = oldest[0]!.start_time;
    const to = new Date(windowStart - 3_600_000).toISOString();
    const from = new Date(windowStart - 7_200_000).toISOString();
    const r = await msnap(['snapshots', 'BTC', '5m', '--from', from, '--to', to, '--csv'], { env: env(builder) });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    expect(String(r.stderr).split('\n')).toEqual([
      `msnap: the BTC 5m markets before ${to} are outside your builder plan's data window (the most recent 4,100 5m markets, from ${new Date(windowStart).toISOString()})`,
      'hint: upgrade to Pro for the full history',
    ]);
  });

  it('a range reaching past the window and --last beyond what exists each get one accurate note', async () => {
    const r = await msnap(['snapshots', 'BTC', '5m', '--from', '30d', '--csv', '--quiet'], { env: env(builder) });
    expect(r.exitCode).toBe(0);
    const [left, window, ...rest] = String(r.stderr).split('\n');
    // The seeded history holds snapshots in only a few markets: the range says how many it left out.
    expect(left).toMatch(new RegExp(`^msnap: note: [\\d,]+ BTC 5m markets between ${ISO} and now have no snapshots and are left out$`));
    expect(window).toMatch(new RegExp(`^msnap: note: snapshots before ${ISO} are outside your builder plan's data window \\(the most recent 4,100 5m markets\\); the export starts there$`));
    expect(rest).toEqual([]);
    const last = await msnap(['snapshots', 'BTC', '5m', '--last', '100', '--csv', '--quiet'], { env: env(builder) });
    expect(last.exitCode).toBe(0);
    expect(last.stderr).toMatch(/^msnap: note: only 2 BTC 5m markets have snapshots within your builder plan's data window \(the most recent 4,100 5m markets, from .*\); --last 100 asked for more$/);
    const lastPro = await msnap(['snapshots', 'BTC', '5m', '--last', '100', '--csv', '--quiet'], { env: env(pro) });
    expect(lastPro.stderr).toBe('msnap: note: only 2 BTC 5m markets have snapshots; --last 100 asked for more');
  });
});

describe('feedback on long work (item 6)', () => {
  it('an export ends with one summary line (rows, markets, file, time); --quiet silences it', async () => {
    const target = path.join(dir, 'two.csv');
    const r = await msnap(['snapshots', 'BTC', '5m', '--last', '2', '-o', target], { env: env(pro) });
    expect(r.exitCode).toBe(0);
    const rows = readFileSync(target, 'utf8').trim().split('\n').length - 1;
    expect(String(r.stderr)).toMatch(
      new RegExp(`^msnap: ${rows.toLocaleString('en-US')} snapshots of 2 markets written to ${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} in \\d+\\.\\d s$`),
    );
    const quiet = await msnap(['snapshots', 'BTC', '5m', '--last', '2', '-o', target, '--quiet'], { env: env(pro) });
    expect(quiet.exitCode).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('no summary after a table on the terminal (the table is the result)', () => {
    // Two markets: one is complete (2,400 rows), so the 500-row cap always applies.
    const out = onTerminal(120, ['snapshots', 'BTC', '5m', '--last', '2'], pro);
    expect(out).toMatch(/showing the first 500 rows/);
    expect(out).not.toMatch(/written to/);
  });
});

describe('messages that point the right way (item 9)', () => {
  it('at BTC 5m without a TIME says the TIME is missing', async () => {
    const r = await msnap(['at', 'BTC', '5m'], { env: env(pro) });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr).split('\n')[0]).toBe('msnap: missing TIME: msnap at BTC 5m TIME');
  });

  it('snapshots <market-id> TYPE says a market id takes no type', async () => {
    const r = await msnap(['snapshots', 'btc-updown-5m-1763769600', '5m'], { env: env(pro) });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr).split('\n')[0]).toBe(
      "msnap: a market id takes no market type ('5m'): msnap snapshots <market-id> | <coin> <type>",
    );
    const coinOnly = await msnap(['snapshots', 'eth'], { env: env(pro) });
    expect(coinOnly.exitCode).toBe(2);
    expect(String(coinOnly.stderr)).toMatch(/^msnap: 'eth' needs a market type after it/);
  });

  it('a corrupt config file is named in one usage line', async () => {
    const cfg = mkdtempSync(path.join(dir, 'cfg-'));
    writeFileSync(path.join(cfg, 'config.json'), '{ not json');
    const r = await msnap(['limits'], { env: { MSNAP_BASE_URL: served.url, MSNAP_CONFIG_DIR: cfg } });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr).split('\n')[0]).toBe(`msnap: cannot use the config file ${path.join(cfg, 'config.json')}: it is not valid JSON`);
    expect(String(r.stderr)).not.toMatch(/\n\s+at /);
  });

  it('serve --db with a new path says it made an empty database; serve keys list/revoke never create one', async () => {
    const typo = path.join(dir, 'typo.db');
    const s = await startServe(typo);
    try {
      expect(s.output()).toContain(
        `msnap serve: ${typo} did not exist: created an empty database (no markets, no keys); fill it with msnap serve seed --db ${typo} or msnap serve import, or use --demo`,
      );
    } finally {
      await s.stop();
    }
    const missing = path.join(dir, 'missing.db');
    for (const args of [['serve', 'keys', 'list', '--db', missing], ['serve', 'keys', 'revoke', '1', '--db', missing]]) {
      const r = await msnap(args, { cwd: dir });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(String(r.stderr).split('\n')[0]).toBe(`msnap: no database at ${missing}`);
      expect(existsSync(missing)).toBe(false);
    }
  });

  it('serve --help quotes the URL in its curl example (the & would background the command)', async () => {
    const r = await msnap(['serve', '--help']);
    expect(String(r.stdout)).toContain('curl -H "X-API-Key: $KEY" "http://127.0.0.1:8787/api/v1/markets?coin=btc&limit=5"');
  });

  it('keys add NAME again keeps the base URL the key had', async () => {
    const cfg = mkdtempSync(path.join(dir, 'cfg-'));
    const e = { MSNAP_CONFIG_DIR: cfg };
    expect((await msnap(['keys', 'add', 'local', '--base-url', served.url], { env: e, input: `${pro}\n` })).exitCode).toBe(0);
    const again = await msnap(['keys', 'add', 'local'], { env: e, input: `${builder}\n` });
    expect(again.exitCode).toBe(0);
    expect(String(again.stderr)).toContain(`for ${served.url} (kept)`);
    const limits = await msnap(['limits', '--json'], { env: e });
    expect(limits.exitCode).toBe(0);
    expect((JSON.parse(String(limits.stdout)) as { plan: string }).plan).toBe('builder');
  });
});

describe('timeouts (item 3)', () => {
  it('a server that accepts and never answers: a retry message, then "timed out" (not "no service"), within --timeout', async () => {
    const sockets: import('node:net').Socket[] = [];
    const silent = createServer((s) => {
      // The CLI gives up and resets the connection: expected, not an error of the test.
      s.on('error', () => undefined);
      sockets.push(s);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const started = Date.now();
      const r = await msnap(['health', '--timeout', '1'], { env: { MSNAP_BASE_URL: `http://127.0.0.1:${port}`, MSNAP_API_KEY: pro } });
      const took = Date.now() - started;
      expect(r.exitCode).toBe(7);
      const lines = String(r.stderr).split('\n');
      expect(lines[0]).toMatch(new RegExp(`^msnap: http://127\\.0\\.0\\.1:${port}: no answer within 1 s; retrying in \\d+\\.\\d s \\(1 of 1\\)$`));
      expect(lines[1]).toBe(`msnap: timed out: http://127.0.0.1:${port} accepted the connection, but no answer within 1 s`);
      expect(String(r.stderr)).not.toMatch(/no msnap service/);
      // Two attempts of 1 s plus a backoff of at most 0.25 s, plus process start.
      expect(took).toBeLessThan(8000);

      const viaEnv = await msnap(['health'], { env: { MSNAP_BASE_URL: `http://127.0.0.1:${port}`, MSNAP_API_KEY: pro, MSNAP_TIMEOUT: '0.5' } });
      expect(viaEnv.exitCode).toBe(7);
      expect(String(viaEnv.stderr)).toMatch(/no answer within 0\.5 s/);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('a bad --timeout or MSNAP_TIMEOUT is a usage error', async () => {
    const r = await msnap(['health', '--timeout', 'soon'], { env: env(pro) });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toMatch(/^msnap: --timeout must be a number of seconds/);
    const e = await msnap(['health'], { env: env(pro, { MSNAP_TIMEOUT: '-3' }) });
    expect(e.exitCode).toBe(2);
    expect(String(e.stderr)).toMatch(/^msnap: MSNAP_TIMEOUT must be a number of seconds/);
  });

  it('an https:// URL to a plain-http msnap serve says so, without OpenSSL text', async () => {
    const r = await msnap(['health'], { env: env(pro, { MSNAP_BASE_URL: served.url.replace('http:', 'https:') }) });
    expect(r.exitCode).toBe(7);
    const lines = String(r.stderr).trim().split('\n');
    expect(lines[0]).toMatch(/^msnap: TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed: the server does not speak https there$/);
    expect(lines[1]).toBe(`hint: a local msnap serve speaks plain http: try ${served.url}`);
    expect(String(r.stderr)).not.toMatch(/ssl|SSL|unexpected error/);
  });
});
