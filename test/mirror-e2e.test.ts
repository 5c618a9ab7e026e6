// The offline mirror end to end, with the built CLI against a real `msnap serve`: pull, a pull
// SIGKILLed mid-way and resumed, a re-run that makes no snapshot request (counted by a recording
// proxy), --db reads byte-identical to the same data through serve, and the export -> serve
// import -> export round trip byte for byte in every format.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRequestLogProxy } from '../bench/request-log-proxy.js';
import { buildIfStale, createKey, msnap, seed, spawnMsnap, startServe, type Served } from './support/msnap-process.js';

interface Proxy {
  url: string;
  log: { path: string; status: number; endMs: number }[];
  close(): Promise<void>;
}

let dir: string;
let sourceDb: string;
let source: Served;
let proxy: Proxy;
let env: Record<string, string>;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-mirror-'));
  const db = (sourceDb = path.join(dir, 'source.db'));
  // Three full 1hr markets per coin: 28,800 snapshots each, three pages of up to 10,000.
  await seed(db, ['--days', '1', '--full', '5m=2,15m=0,1hr=3,4hr=0,24hr=0']);
  const key = await createKey(db, 'mirror', 'pro');
  source = await startServe(db);
  // Each answer held 150 ms, so a pull lasts long enough to be killed between pages.
  proxy = (await startRequestLogProxy(source.url, { delayMs: 150 })) as Proxy;
  // v1: the request counts below are v1's (v4 adds a count request per market and pages of 1,000).
  env = { MSNAP_API_KEY: key, MSNAP_BASE_URL: proxy.url, MSNAP_API: 'v1' };
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await source?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const snapshotRequests = (from: number) => proxy.log.slice(from).filter((e) => /\/snapshots(\?|$)/.test(e.path)).length;

/** Everything a pull stores but when it pulled: markets, snapshots, ids, orderbooks. */
function digest(file: string): { markets: number; snapshots: number; sha: string } {
  const db = new Database(file, { readonly: true });
  try {
    const h = createHash('sha256');
    const markets = db.prepare('SELECT market_id, coin, market_type, start_time, end_time, price_start, price_end, winner, snapshot_count, dense, id_base, id_step, id_exceptions FROM markets ORDER BY market_id').raw().all();
    h.update(JSON.stringify(markets));
    let snapshots = 0;
    for (const row of db.prepare('SELECT m.market_id, s.t, s.price, s.price_up, s.price_down FROM snapshots s JOIN markets m ON m.id = s.market ORDER BY m.market_id, s.t').raw().iterate()) {
      h.update(JSON.stringify(row));
      snapshots++;
    }
    h.update(JSON.stringify(db.prepare('SELECT m.market_id, i.t, i.id FROM snapshot_ids i JOIN markets m ON m.id = i.market ORDER BY 1, 2').raw().all()));
    h.update(JSON.stringify(db.prepare('SELECT m.market_id, o.t, o.up, o.down FROM orderbooks o JOIN markets m ON m.id = o.market ORDER BY 1, 2').raw().all()));
    return { markets: markets.length, snapshots, sha: h.digest('hex') };
  } finally {
    db.close();
  }
}

const PULL = ['pull', 'BTC', '1hr', '--last', '3'];

/** The pulled markets' ids as the source lists them, newest first. */
async function sourceIdsNewestFirst(): Promise<string[]> {
  const r = await msnap(['markets', '--coin', 'BTC', '--type', '1hr', '--limit', '3', '--json', '--db', sourceDb], { cwd: dir });
  return (JSON.parse(r.stdout) as { market_id: string }[]).map((m) => m.market_id);
}

function orderbookRows(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM orderbooks').pluck().get() as number;
  } finally {
    db.close();
  }
}

/** What the source lists for the pulled markets: their snapshots and the pages of 10,000 they take. */
async function sourceCounts(): Promise<{ rows: number; pages: number }> {
  const r = await msnap(['markets', '--coin', 'BTC', '--type', '1hr', '--limit', '3', '--json'], { env: { ...env, MSNAP_BASE_URL: source.url } });
  const counts = (JSON.parse(r.stdout) as { snapshot_count: number }[]).map((m) => m.snapshot_count);
  return { rows: counts.reduce((a, b) => a + b, 0), pages: counts.reduce((a, b) => a + Math.ceil(b / 10_000), 0) };
}
const n = (v: number) => v.toLocaleString('en-US');

describe('msnap pull', () => {
  it('pulls 3 markets; SIGKILLed mid-way and re-run it equals a clean pull; a third run makes no snapshot request', async () => {
    const { rows, pages } = await sourceCounts();
    expect(pages).toBeGreaterThanOrEqual(7);
    const clean = path.join(dir, 'clean.db');
    const first = await msnap([...PULL, '--db', clean], { env, cwd: dir, timeout: 120_000 });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toMatch(new RegExp(`pulled 3 markets into .*clean\\.db: 3 new, 0 updated, 0 already complete; ${n(rows)} snapshots added in ${pages} snapshot requests`));
    const want = digest(clean);
    expect(want).toMatchObject({ markets: 3, snapshots: rows });

    const resumed = path.join(dir, 'resumed.db');
    const at = proxy.log.length;
    const proc = spawnMsnap([...PULL, '--db', resumed], { env, cwd: dir });
    // Kill once four pages have been answered: the second market is then cut off mid-way.
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        const answered = proxy.log.slice(at).filter((e) => /\/snapshots/.test(e.path) && Number.isFinite(e.endMs)).length;
        if (answered >= 4) {
          clearInterval(timer);
          proc.kill('SIGKILL');
          resolve();
        }
        if (proc.exitCode !== null) {
          clearInterval(timer);
          reject(new Error('the pull finished before it could be killed'));
        }
      }, 5);
    });
    const killed = await proc;
    expect(killed.signal).toBe('SIGKILL');
    const part = digest(resumed);
    expect(part.snapshots).toBeGreaterThan(0);
    expect(part.snapshots).toBeLessThan(rows);

    const beforeRerun = proxy.log.length;
    const rerun = await msnap([...PULL, '--db', resumed], { env, cwd: dir, timeout: 120_000 });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(digest(resumed)).toEqual(want);
    // Only what was missing was fetched: fewer pages than a clean pull.
    expect(snapshotRequests(beforeRerun)).toBeLessThan(pages);

    const beforeThird = proxy.log.length;
    const third = await msnap([...PULL, '--db', resumed], { env, cwd: dir, timeout: 60_000 });
    expect(third.exitCode, third.stderr).toBe(0);
    expect(third.stderr).toMatch(/0 new, 0 updated, 3 already complete; 0 snapshots added in 0 snapshot requests/);
    expect(proxy.log.length).toBeGreaterThan(beforeThird);
    expect(snapshotRequests(beforeThird)).toBe(0);
    expect(digest(resumed)).toEqual(want);
  }, 240_000);

  it('--orderbook over markets already complete fetches their depth, only where it is missing; a third run makes no snapshot request', async () => {
    const file = path.join(dir, 'depth.db');
    const ids = (await sourceIdsNewestFirst()).slice(0, 3);
    // The newest market with depth, then all three without: the older two lack it.
    expect((await msnap([...PULL.slice(0, 3), '--last', '1', '--orderbook', '--db', file], { env, cwd: dir, timeout: 60_000 })).exitCode).toBe(0);
    expect((await msnap([...PULL, '--db', file], { env, cwd: dir, timeout: 60_000 })).exitCode).toBe(0);
    const dry = await msnap([...PULL, '--orderbook', '--db', file, '--dry-run'], { env, cwd: dir });
    expect(dry.stderr).toContain('dry run: 2 markets to fetch; 1 already complete in');
    const at = proxy.log.length;
    const second = await msnap([...PULL, '--orderbook', '--db', file], { env, cwd: dir, timeout: 120_000 });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/0 new, 2 updated, 1 already complete; 0 snapshots added in \d+ snapshot requests/);
    const asked = proxy.log.slice(at).filter((e) => /\/snapshots(\?|$)/.test(e.path)).map((e) => e.path);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.filter((p) => p.includes(ids[0]!))).toEqual([]);
    expect(new Set(asked.map((p) => /markets\/([^/]+)\/snapshots/.exec(p)![1]))).toEqual(new Set([ids[1], ids[2]]));
    expect(asked.every((p) => p.includes('include_orderbook=true'))).toBe(true);
    // The same store as one --orderbook pull into an empty file.
    const clean = path.join(dir, 'depth-clean.db');
    expect((await msnap([...PULL, '--orderbook', '--db', clean], { env, cwd: dir, timeout: 120_000 })).exitCode).toBe(0);
    expect(digest(file)).toEqual(digest(clean));
    expect(orderbookRows(clean)).toBeGreaterThan(0);
    const third = proxy.log.length;
    const again = await msnap([...PULL, '--orderbook', '--db', file], { env, cwd: dir, timeout: 60_000 });
    expect(again.stderr).toMatch(/0 new, 0 updated, 3 already complete; 0 snapshots added in 0 snapshot requests/);
    expect(snapshotRequests(third)).toBe(0);
  }, 240_000);

  it('--dry-run lists markets, rows and requests and fetches no snapshot', async () => {
    const { rows, pages } = await sourceCounts();
    const at = proxy.log.length;
    const r = await msnap([...PULL, '--db', path.join(dir, 'dry.db'), '--dry-run'], { env, cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/dry run: 3 markets to fetch/);
    expect(r.stderr).toContain(`total: ${n(rows)} rows in ${pages} snapshot requests of up to 10,000 rows, under a second at the pro key's limits (750/min, 40/s); nothing fetched`);
    expect(existsSync(path.join(dir, 'dry.db'))).toBe(false);
    // Against a store that holds them all: nothing to fetch.
    const full = await msnap([...PULL, '--db', path.join(dir, 'clean.db'), '--dry-run'], { env, cwd: dir });
    expect(full.stderr).toContain('dry run: 0 markets to fetch; 3 already complete in');
    const exp = await msnap(['snapshots', 'BTC', '1hr', '--last', '3', '--csv', '--dry-run'], { env, cwd: dir });
    expect(exp.exitCode, exp.stderr).toBe(0);
    expect(exp.stdout).toBe('');
    expect(exp.stderr).toContain(`total: ${n(rows)} rows in ${pages} snapshot requests`);
    expect(snapshotRequests(at)).toBe(0);
  });

  it('reads a pulled store with --db byte for byte as through serve, in csv, ndjson and json; serve names the origin', async () => {
    const file = path.join(dir, 'clean.db');
    for (const format of ['--csv', '--ndjson', '--json']) {
      const served = await msnap(['snapshots', 'BTC', '1hr', '--last', '3', format], { env, cwd: dir, keepFinalNewline: true, timeout: 60_000 });
      const local = await msnap(['snapshots', 'BTC', '1hr', '--last', '3', format, '--db', file], { cwd: dir, keepFinalNewline: true, timeout: 60_000 });
      expect(served.exitCode, served.stderr).toBe(0);
      expect(local.exitCode, local.stderr).toBe(0);
      expect(local.stdout.length).toBeGreaterThan(1_000_000);
      expect(local.stdout === served.stdout, `snapshots ${format}`).toBe(true);
    }
    const marketsServed = await msnap(['markets', '--coin', 'BTC', '--type', '1hr', '--limit', '3', '--csv'], { env, cwd: dir });
    const marketsLocal = await msnap(['markets', '--coin', 'BTC', '--type', '1hr', '--csv', '--db', file], { cwd: dir });
    expect(marketsLocal.stdout).toBe(marketsServed.stdout);
    const id = marketsLocal.stdout.split('\n')[2]!.split(',')[0]!;
    const ts = String(Number(id.split('-').pop()) * 1000 + 1_234_567);
    const atLocal = await msnap(['at', id, ts, '--json', '--db', file], { cwd: dir });
    expect(atLocal.stdout).toBe((await msnap(['at', id, ts, '--json'], { env, cwd: dir })).stdout);
    expect(JSON.parse(atLocal.stdout).delta_ms).toBe(58);

    const mirror = await startServe(file);
    try {
      // stderr may arrive just after the URL line the start waited for.
      await vi.waitFor(() => expect(mirror.output()).toMatch(/msnap serve: 3 markets pulled from http:\/\/127\.0\.0\.1:\d+ \(v1\), last \d{4}-\d\d-\d\dT/), { timeout: 5000 });
    } finally {
      await mirror.stop();
    }
    const missing = await msnap(['snapshots', 'BTC', '1hr', '--db', path.join(dir, 'nope.db')], { cwd: dir });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(`msnap: no such database: ${path.join(dir, 'nope.db')} (make one with msnap pull or msnap serve seed)`);
  }, 120_000);
});

describe('local exports (--db writes its text straight from the stored values)', () => {
  it('equal the same export through serve byte for byte: csv, ndjson, json; with --orderbook, --from/--to, -o FILE', async () => {
    const direct = { ...env, MSNAP_BASE_URL: source.url };
    const listed = await msnap(['markets', '--coin', 'BTC', '--type', '1hr', '--limit', '3', '--json', '--db', sourceDb], { cwd: dir });
    const [newest, , oldest] = JSON.parse(listed.stdout) as { start_time: number }[];
    // From inside the oldest market to inside the newest, off the 125 ms grid at both ends.
    const range = ['--from', String(oldest!.start_time + 1_234_567), '--to', String(newest!.start_time + 600_001)];
    let depth = 0;
    for (const format of ['--csv', '--ndjson', '--json']) {
      for (const extra of [[], ['--orderbook'], range, ['--orderbook', ...range]]) {
        const args = ['snapshots', 'BTC', '1hr', '--last', '3', format, ...extra];
        const served = await msnap(args, { env: direct, cwd: dir, keepFinalNewline: true, timeout: 60_000 });
        const local = await msnap([...args, '--db', sourceDb], { cwd: dir, keepFinalNewline: true, timeout: 60_000 });
        expect(served.exitCode, served.stderr).toBe(0);
        expect(local.exitCode, local.stderr).toBe(0);
        expect(local.stdout.length).toBeGreaterThan(100_000);
        expect(local.stdout === served.stdout, `${args.join(' ')}`).toBe(true);
        if (extra.includes('--orderbook')) depth += local.stdout.split('orderbook_up').length - 1;
      }
    }
    // The seed gives the newest ten minutes depth: the orderbook runs did carry some.
    expect(depth).toBeGreaterThan(1000);
    const out = path.join(dir, 'local-export.csv');
    const file = await msnap(['snapshots', 'ETH', '5m', '--last', '2', '--orderbook', '--csv', '-o', out, '--db', sourceDb], { cwd: dir });
    expect(file.exitCode, file.stderr).toBe(0);
    const served = await msnap(['snapshots', 'ETH', '5m', '--last', '2', '--orderbook', '--csv'], { env: direct, cwd: dir, keepFinalNewline: true });
    expect(readFileSync(out, 'utf8') === served.stdout).toBe(true);
  }, 240_000);
});

describe('export -> serve import -> export', () => {
  it('is byte-identical in csv, ndjson and json, the service\'s snapshot ids kept', async () => {
    for (const format of ['csv', 'ndjson', 'json']) {
      const exported = path.join(dir, `export.${format}`);
      const markets = path.join(dir, `markets.${format}`);
      const a = await msnap(['snapshots', 'ETH', '5m', '--last', '2', '--orderbook', '-o', exported], { env, cwd: dir, timeout: 60_000 });
      expect(a.exitCode, a.stderr).toBe(0);
      // Resolved ones only: an active market's status follows the clock, not the data.
      const m = await msnap(['markets', '--coin', 'ETH', '--type', '5m', '--status', 'resolved', '--limit', '2', '-o', markets], { env, cwd: dir });
      expect(m.exitCode, m.stderr).toBe(0);
      const copy = path.join(dir, `copy-${format}.db`);
      for (const file of [markets, exported]) {
        const imp = await msnap(['serve', 'import', file, '--db', copy], { cwd: dir, timeout: 60_000 });
        expect(imp.exitCode, imp.stderr).toBe(0);
      }
      const again = path.join(dir, `again.${format}`);
      const b = await msnap(['snapshots', 'ETH', '5m', '--last', '2', '--orderbook', '-o', again, '--db', copy], { cwd: dir, timeout: 60_000 });
      expect(b.exitCode, b.stderr).toBe(0);
      expect(readFileSync(again).equals(readFileSync(exported)), `snapshots ${format}`).toBe(true);
      const marketsAgain = path.join(dir, `markets-again.${format}`);
      await msnap(['markets', '--coin', 'ETH', '--type', '5m', '--status', 'resolved', '--limit', '2', '-o', marketsAgain, '--db', copy], { cwd: dir });
      expect(readFileSync(marketsAgain, 'utf8')).toBe(readFileSync(markets, 'utf8'));
    }
    // Through a served copy too, not only --db.
    const copy = path.join(dir, 'copy-json.db');
    const key = await createKey(copy, 'rt', 'pro');
    const served = await startServe(copy);
    try {
      const r = await msnap(['snapshots', 'ETH', '5m', '--last', '2', '--orderbook', '--json'], { env: { MSNAP_API_KEY: key, MSNAP_BASE_URL: served.url, MSNAP_API: 'v1' }, cwd: dir, keepFinalNewline: true });
      expect(r.stdout === readFileSync(path.join(dir, 'export.json'), 'utf8')).toBe(true);
    } finally {
      await served.stop();
    }
  }, 240_000);

  it('keeps a hosted service\'s own numeric ids through import and export', async () => {
    const lines = Array.from({ length: 6 }, (_, k) =>
      JSON.stringify({ id: String(81_234_560 + k * 3), market_id: 'btc-updown-5m-1763769600', time: 1_763_769_600_000 + k * 125, btc_price: '97123.45', price_up: '0.5', price_down: '0.51' }),
    );
    const file = path.join(dir, 'hosted.ndjson');
    writeFileSync(file, lines.join('\n') + '\n');
    const copy = path.join(dir, 'hosted.db');
    expect((await msnap(['serve', 'import', file, '--db', copy], { cwd: dir })).exitCode).toBe(0);
    const out = await msnap(['snapshots', 'btc-updown-5m-1763769600', '--csv', '--db', copy], { cwd: dir });
    expect(out.stdout.split('\n').slice(1).map((l) => l.split(',')[0])).toEqual(['81234560', '81234563', '81234566', '81234569', '81234572', '81234575']);
  });
});
