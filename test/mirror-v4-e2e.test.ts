// `msnap pull` over the v4 dialect end to end, with the built CLI against a real `msnap serve`:
// the store equals a v1 pull's (same digest, same `snapshots --db` bytes), a re-run makes no
// snapshot request, and the market counts v4 lists come with (msnap serve's snapshot_count
// extension) spare the count request per market that the hosted v4 needs, which a proxy that
// strips them (as the hosted service sends records) shows still happen, with the same output.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, msnap, seed, startServe, type Served } from './support/msnap-process.js';

/** A loopback proxy that logs every request path; with `stripCounts`, /v4 market records lose snapshot_count (as the hosted v4 sends them). */
interface LoggingProxy {
  url: string;
  log: string[];
  close(): Promise<void>;
}

async function startProxy(upstreamUrl: string, stripCounts: boolean): Promise<LoggingProxy> {
  const upstream = new URL(upstreamUrl);
  const log: string[] = [];
  const server: Server = createServer((req, res) => {
    log.push(req.url ?? '');
    // Market lists and single markets; a snapshot page's own `market` the client does not read for counts.
    const strip = stripCounts && /^\/v4\/markets(\?|\/[^/?]+(\?|$))/.test(req.url ?? '');
    const up = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      if (!strip) {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
        return;
      }
      let text = '';
      r.setEncoding('utf8').on('data', (d: string) => (text += d));
      r.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        const drop = (m: unknown) => {
          if (m && typeof m === 'object') delete (m as Record<string, unknown>)['snapshot_count'];
        };
        if (Array.isArray(body['markets'])) body['markets'].forEach(drop);
        else drop(body);
        const out = JSON.stringify(body);
        const headers = { ...r.headers, 'content-length': String(Buffer.byteLength(out)) };
        delete headers['transfer-encoding'];
        res.writeHead(r.statusCode ?? 502, headers).end(out);
      });
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  return {
    url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    log,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let dir: string;
let source: Served;
let proxy: LoggingProxy;
let hosted: LoggingProxy;
let key: string;
/** A complete ETH 1hr market (the active one may hold only minutes of rows early in an hour). */
let fullHour: string;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-mirror-v4-'));
  const db = path.join(dir, 'source.db');
  // Two full 5m markets and one full 1hr market per coin (29 v4 pages of up to 1,000 rows).
  await seed(db, ['--days', '1', '--full', '5m=2,15m=0,1hr=2,4hr=0,24hr=0']);
  key = await createKey(db, 'mirror-v4', 'pro');
  const seeded = new Database(db, { readonly: true });
  fullHour = seeded
    .prepare("SELECT market_id FROM markets WHERE coin = 'ETH' AND market_type = '1hr' AND snapshot_count = 28800 ORDER BY start_time DESC LIMIT 1")
    .pluck()
    .get() as string;
  seeded.close();
  source = await startServe(db);
  proxy = await startProxy(source.url, false);
  hosted = await startProxy(source.url, true);
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await hosted?.close();
  await source?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const env = (api: string, via: LoggingProxy = proxy) => ({ MSNAP_API_KEY: key, MSNAP_BASE_URL: via.url, MSNAP_API: api });
const snapshotRequests = (log: string[], from: number) => log.slice(from).filter((p) => /\/snapshots(\?|$)/.test(p));

/** Everything a pull stores but where and when it pulled: markets, snapshots, ids, orderbooks. */
function digest(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const h = createHash('sha256');
    h.update(JSON.stringify(db.prepare('SELECT market_id, coin, market_type, start_time, end_time, price_start, price_end, winner, snapshot_count, dense, id_base, id_step, id_exceptions FROM markets ORDER BY market_id').raw().all()));
    for (const row of db.prepare('SELECT m.market_id, s.t, s.price, s.price_up, s.price_down FROM snapshots s JOIN markets m ON m.id = s.market ORDER BY m.market_id, s.t').raw().iterate()) h.update(JSON.stringify(row));
    h.update(JSON.stringify(db.prepare('SELECT m.market_id, i.t, i.id FROM snapshot_ids i JOIN markets m ON m.id = i.market ORDER BY 1, 2').raw().all()));
    h.update(JSON.stringify(db.prepare('SELECT m.market_id, o.t, o.up, o.down FROM orderbooks o JOIN markets m ON m.id = o.market ORDER BY 1, 2').raw().all()));
    return h.digest('hex');
  } finally {
    db.close();
  }
}

function originDialects(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT DISTINCT origin_dialect FROM market_origin').pluck().all() as string[];
  } finally {
    db.close();
  }
}

describe('msnap pull --api v4', () => {
  it('stores what a v1 pull stores (digest and --db bytes); a re-run makes no snapshot request', async () => {
    const v1 = path.join(dir, 'v1.db');
    const v4 = path.join(dir, 'v4.db');
    // The dry run plans in v4's pages (at most 1,000 rows), as the pull then asks.
    const dry = await msnap(['pull', fullHour, '--db', v4, '--dry-run'], { env: env('v4'), cwd: dir });
    const [, rows, requests] = /: ([\d,]+) rows, (\d+) requests\n/.exec(dry.stderr)!.map((v) => Number(v.replace(/,/g, '')));
    expect(rows).toBeGreaterThan(2000);
    expect(requests).toBe(Math.ceil(rows! / 1000));
    expect(dry.stderr).toContain(`snapshot requests of up to 1,000 rows`);
    for (const [file, api] of [[v1, 'v1'], [v4, 'v4']] as const) {
      for (const args of [['ETH', '5m', '--last', '2', '--orderbook'], [fullHour]]) {
        const r = await msnap(['pull', ...args, '--db', file], { env: env(api), cwd: dir, timeout: 120_000 });
        expect(r.exitCode, r.stderr).toBe(0);
        expect(r.stderr).toMatch(/new, 0 updated, 0 already complete; [\d,]+ snapshots added/);
      }
    }
    expect(digest(v4)).toBe(digest(v1));
    expect(originDialects(v4)).toEqual(['v4']);
    for (const format of ['--csv', '--json']) {
      const a = await msnap(['snapshots', 'ETH', '5m', '--last', '2', '--orderbook', format, '--db', v1], { cwd: dir, keepFinalNewline: true });
      const b = await msnap(['snapshots', 'ETH', '5m', '--last', '2', '--orderbook', format, '--db', v4], { cwd: dir, keepFinalNewline: true });
      expect(a.stdout.length).toBeGreaterThan(10_000);
      expect(b.stdout === a.stdout, format).toBe(true);
    }
    const at = proxy.log.length;
    const again = await msnap(['pull', 'ETH', '5m', '--last', '2', '--orderbook', '--db', v4], { env: env('v4'), cwd: dir });
    expect(again.stderr).toMatch(/0 new, 0 updated, 2 already complete; 0 snapshots added in 0 snapshot requests/);
    expect(proxy.log.length).toBeGreaterThan(at);
    expect(snapshotRequests(proxy.log, at)).toEqual([]);
    // One market by id: its count comes with its record, so no request for it either.
    const [id] = (JSON.parse((await msnap(['markets', '--coin', 'ETH', '--type', '1hr', '--limit', '1', '--json', '--db', v4], { cwd: dir })).stdout) as { market_id: string }[]).map((m) => m.market_id);
    const one = proxy.log.length;
    const byId = await msnap(['pull', id!, '--db', v4], { env: env('v4'), cwd: dir });
    expect(byId.stderr).toMatch(/pulled 1 market into .*: 0 new, 0 updated, 1 already complete; 0 snapshots added in 0 snapshot requests/);
    expect(snapshotRequests(proxy.log, one)).toEqual([]);
  }, 240_000);

  it('against a v4 without snapshot_count (the hosted service) it counts each market, and a re-run costs only those counts', async () => {
    const file = path.join(dir, 'hosted.db');
    const r = await msnap(['pull', 'ETH', '5m', '--last', '2', '--db', file], { env: env('v4', hosted), cwd: dir, timeout: 120_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const at = hosted.log.length;
    const again = await msnap(['pull', 'ETH', '5m', '--last', '2', '--db', file], { env: env('v4', hosted), cwd: dir });
    expect(again.stderr).toMatch(/0 new, 0 updated, 2 already complete; 0 snapshots added in 0 snapshot requests/);
    const asked = snapshotRequests(hosted.log, at);
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(asked.every((p) => /[?&]limit=1(&|$)/.test(p))).toBe(true);
  }, 120_000);
});

describe('v4 market counts', () => {
  it('markets --limit 100 costs no count request against serve; without the counts one per market, and the same output', async () => {
    const at = proxy.log.length;
    const served = await msnap(['markets', '--coin', 'BTC', '--limit', '100', '--csv'], { env: env('v4'), cwd: dir });
    expect(served.exitCode, served.stderr).toBe(0);
    const requests = proxy.log.slice(at);
    expect(requests.filter((p) => p.includes('/snapshots'))).toEqual([]);
    expect(requests.length).toBeLessThanOrEqual(2);
    const from = hosted.log.length;
    const counted = await msnap(['markets', '--coin', 'BTC', '--limit', '100', '--csv'], { env: env('v4', hosted), cwd: dir });
    expect(counted.stdout).toBe(served.stdout);
    expect(served.stdout.split('\n')).toHaveLength(101);
    expect(snapshotRequests(hosted.log, from)).toHaveLength(100);
    // And v1 (which always had the counts) says the same.
    expect((await msnap(['markets', '--coin', 'BTC', '--limit', '100', '--csv'], { env: env('v1'), cwd: dir })).stdout).toBe(served.stdout);
  }, 120_000);
});
