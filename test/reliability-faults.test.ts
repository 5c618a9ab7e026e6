// Reliability, faults: processes die or restart mid-work and nothing is lost, duplicated or left
// half-written; clients that vanish or stall do not hurt the server. Every fault is injected into a
// real process (SIGKILL, SIGTERM, a restart on the same port, a dropped or stalled socket).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from './support/until.js';
import { buildIfStale, createKey, parseRawResponses, rawExchange, seed, spawnMsnap, startServe, type Served } from './support/msnap-process.js';

const HEADERS_TIMEOUT_MS = 1500;
const REQUEST_TIMEOUT_MS = 2500;

let dir: string;
let db: string;
let served: Served;
const keys = { fast: '', paced: '' };
let hourMarket: { market_id: string; snapshot_count: number };
let activeHour: { market_id: string; snapshot_count: number };
const faults: string[] = [];

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-rel-faults-'));
  db = path.join(dir, 'faults.db');
  // Two hourly markets in full (the active one and the last resolved one), orderbooks for the last 20 minutes.
  await seed(db, ['--days', '1', '--full', '5m=0,15m=0,1hr=2,4hr=0,24hr=0', '--orderbook-minutes', '20']);
  keys.fast = await createKey(db, 'faults-fast', 'enterprise', ['--rpm', '100000000', '--burst', '1000000']);
  // Two requests a second: an export of a few pages then lasts long enough to be interrupted.
  keys.paced = await createKey(db, 'faults-paced', 'enterprise', ['--rpm', '6000', '--burst', '2']);
  served = await startServe(db, { env: { MSNAP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), MSNAP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
  const res = await fetch(`${served.url}/api/v1/markets?coin=btc&market_type=1hr&limit=5`, { headers: { 'X-API-Key': keys.fast } });
  // The newest resolved hour: 28,800 snapshots, three pages of 10,000.
  hourMarket = ((await res.json()) as { markets: { market_id: string; snapshot_count: number }[] }).markets.find((m) => m.snapshot_count === 28_800)!;
  expect(hourMarket).toMatchObject({ market_id: expect.stringMatching(/^btc-updown-1hr-\d{10}$/), snapshot_count: 28_800 });
  activeHour = ((await (await fetch(`${served.url}/api/v1/markets?coin=btc&market_type=1hr&status=active`, { headers: { 'X-API-Key': keys.fast } })).json()) as {
    markets: { market_id: string; snapshot_count: number }[];
  }).markets[0]!;
}, 90_000);

afterAll(async () => {
  const stopped = await served?.stop();
  console.log(`[reliability] faults injected:\n  ${faults.join('\n  ')}`);
  expect(stopped?.exitCode).toBe(0);
  expect(served.output()).not.toMatch(/Error|\n\s+at |500 on/);
  rmSync(dir, { recursive: true, force: true });
});

/** A digest of every row of the data tables: equal digests mean an identical database. */
function tableDigest(file: string): { markets: number; snapshots: number; digest: string } {
  const conn = new Database(file);
  try {
    const hash = createHash('sha256');
    for (const table of ['markets', 'snapshots', 'orderbooks']) {
      for (const row of conn.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).iterate()) hash.update(JSON.stringify(row));
    }
    const count = (t: string) => (conn.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    return { markets: count('markets'), snapshots: count('snapshots'), digest: hash.digest('hex') };
  } finally {
    conn.close();
  }
}

/** Where `pid` has read `file` up to (its open descriptor's offset), or -1 when it has no descriptor on it. */
function readOffset(pid: number, file: string): number {
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      let target = '';
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (target !== file) continue;
      const pos = /^pos:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'));
      if (pos) return Number(pos[1]);
    }
  } catch {
    // The process is gone or /proc is not there.
  }
  return -1;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('serve import killed midway', () => {
  it('SIGKILL mid-import leaves the database exactly as before; a rerun imports every row once', async () => {
    const importDb = path.join(dir, 'import.db');
    await seed(importDb);
    // 5 hourly markets of 2024 at 8 snapshots/s: 144,000 rows (~19 MB) the database does not hold.
    const file = path.join(dir, 'big.ndjson');
    const HOUR = 3_600_000;
    const rows: string[] = [];
    let id = 1;
    for (let m = 0; m < 5; m++) {
      const start = Date.UTC(2024, 0, 1) + m * HOUR;
      const marketId = `btc-updown-1hr-${start / 1000}`;
      for (let i = 0; i < 28_800; i++) {
        const up = 0.5 + 0.4 * Math.sin(i / 500);
        rows.push(`{"id":${id++},"market_id":"${marketId}","time":${start + i * 125},"price":${(42_000 + (i % 997) / 7).toFixed(2)},"price_up":${up.toFixed(4)},"price_down":${(1 - up).toFixed(4)}}`);
      }
    }
    writeFileSync(file, rows.join('\n') + '\n');
    const fileRows = rows.length;
    const size = statSync(file).size;
    const before = tableDigest(importDb);

    const proc = spawnMsnap(['serve', 'import', file, '--db', importDb], { cwd: dir });
    // Kill once it has read a third of the file: well inside the one transaction.
    let offsetAtKill = -1;
    await until(() => (offsetAtKill = readOffset(proc.pid!, file)) > size / 3 || proc.exitCode !== null, 'the import to read a third of the file');
    proc.kill('SIGKILL');
    const killed = await proc;
    expect(killed.signal, `the import finished before the kill: ${String(killed.stdout)}`).toBe('SIGKILL');
    const afterKill = tableDigest(importDb);
    expect(afterKill).toEqual(before);
    faults.push(`serve import SIGKILLed at byte ${offsetAtKill} of ${size}: database digest unchanged (${before.markets} markets, ${before.snapshots} snapshots)`);

    const rerun = spawnMsnap(['serve', 'import', file, '--db', importDb], { cwd: dir });
    const done = await rerun;
    expect(done.exitCode, String(done.stderr)).toBe(0);
    const after = tableDigest(importDb);
    expect(after.snapshots).toBe(before.snapshots + fileRows);
    expect(after.markets).toBe(before.markets + 5);
    const again = await spawnMsnap(['serve', 'import', file, '--db', importDb], { cwd: dir });
    expect(again.exitCode).toBe(0);
    expect(tableDigest(importDb)).toEqual(after);
    faults.push(`rerun imported ${after.snapshots - before.snapshots} of ${fileRows} rows; a third run added nothing (digest unchanged)`);
  }, 120_000);
});

describe('CLI export killed midway', () => {
  const exportArgs = (target: string) => ['snapshots', hourMarket.market_id, '--csv', '-o', target];
  const env = () => ({ MSNAP_BASE_URL: served.url, MSNAP_API_KEY: keys.paced, MSNAP_CONFIG_DIR: mkdtempSync(path.join(dir, 'cfg-')) });

  it.each(['SIGTERM', 'SIGKILL'] as const)('%s mid-export leaves no partial -o file', async (signal) => {
    const outDir = mkdtempSync(path.join(dir, `export-${signal}-`));
    const target = path.join(outDir, 'btc.csv');
    const proc = spawnMsnap(exportArgs(target), { env: env() });
    const temp = () => readdirSync(outDir).find((f) => f.startsWith('btc.csv.tmp-'));
    // Wait until the first page (10,000 rows, ~380 KB) is in the temp file; the paced key keeps the rest coming slowly.
    await until(() => {
      const t = temp();
      return (t !== undefined && statSync(path.join(outDir, t)).size > 100_000) || proc.exitCode !== null;
    }, 'the export to write its first page');
    expect(proc.exitCode, 'the export finished before the kill').toBeNull();
    const written = statSync(path.join(outDir, temp()!)).size;
    proc.kill(signal);
    const r = await proc;
    expect(existsSync(target)).toBe(false);
    if (signal === 'SIGTERM') {
      // The handler deletes the temp file and exits 143 (128 + SIGTERM).
      expect(r.exitCode, String(r.stderr)).toBe(143);
      expect(readdirSync(outDir)).toEqual([]);
      faults.push(`export SIGTERMed after ${written} bytes: exit 143, no btc.csv, temp file removed`);
    } else {
      // Nothing runs after SIGKILL: the target never appears, but the temp file may stay behind.
      expect(r.signal).toBe('SIGKILL');
      const left = readdirSync(outDir);
      expect(left.every((f) => f.startsWith('btc.csv.tmp-'))).toBe(true);
      faults.push(`export SIGKILLed after ${written} bytes: no btc.csv; stray temp file left: ${left.join(', ') || 'none'}`);
    }
  }, 60_000);
});

describe('server restarted during an export', () => {
  it('the CLI retries and finishes with output identical to an undisturbed run', async () => {
    const own = await startServe(db);
    const args = ['snapshots', hourMarket.market_id, '--csv', '--verbose'];
    const env = (key: string) => ({ MSNAP_BASE_URL: own.url, MSNAP_API_KEY: key, MSNAP_CONFIG_DIR: mkdtempSync(path.join(dir, 'cfg-')) });
    // The reference needs no pacing (same rows whatever the key); the disturbed run is paced so the restart lands mid-export.
    const reference = await spawnMsnap(args, { env: env(keys.fast), encoding: 'buffer' });
    expect(reference.exitCode, String(reference.stderr)).toBe(0);
    const referenceBytes = reference.stdout as unknown as Uint8Array;
    expect(referenceBytes.length).toBeGreaterThan(hourMarket.snapshot_count * 20);

    const proc = spawnMsnap(args, { env: env(keys.paced), encoding: 'buffer' });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    await until(() => /\/snapshots\?.*-> 200/.test(stderr) || proc.exitCode !== null, 'the first snapshots page');
    expect(proc.exitCode).toBeNull();
    const stopped = await own.stop();
    expect(stopped.exitCode).toBe(0);
    // Stay down until the CLI's next request has found nothing listening (--verbose logs it as status 0).
    await until(() => / -> 0 in /.test(stderr), 'a request that finds the server down');
    const restarted = await startServe(db, { port: own.port });
    const r = await proc;
    await restarted.stop();
    expect(r.exitCode, stderr).toBe(0);
    // At least one attempt hit the downed server (status 0) and a later attempt of it succeeded.
    expect(stderr).toMatch(/-> 0 in /);
    expect(stderr).toMatch(/attempt [2-9]/);
    expect(Buffer.compare(Buffer.from(r.stdout as unknown as Uint8Array), Buffer.from(referenceBytes))).toBe(0);
    const failed = stderr.split('\n').filter((l) => / -> 0 in /.test(l)).length;
    faults.push(`server restarted on port ${own.port} mid-export: ${failed} failed attempt(s) retried, output identical (${referenceBytes.length} bytes)`);
  }, 60_000);
});

describe('clients that vanish or stall', () => {
  it('clients dropping mid-response do not hurt the server', async () => {
    const DROPS = 20;
    const request = `GET /api/v1/markets/${hourMarket.market_id}/snapshots?limit=10000 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${keys.fast}\r\n\r\n`;
    await Promise.all(
      Array.from({ length: DROPS }, () => new Promise<void>((resolve, reject) => {
        const socket = connect(served.port, '127.0.0.1', () => socket.write(request));
        socket.once('data', () => {
          socket.destroy();
          resolve();
        });
        socket.once('error', reject);
      })),
    );
    // And one that resets before the server can answer at all.
    await new Promise<void>((resolve) => {
      const socket = connect(served.port, '127.0.0.1', () => {
        socket.write(request);
        socket.resetAndDestroy();
        resolve();
      });
    });
    const res = await fetch(`${served.url}/api/v1/markets/${hourMarket.market_id}/snapshots?limit=10000`, { headers: { 'X-API-Key': keys.fast } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { snapshots: unknown[] }).snapshots).toHaveLength(10_000);
    expect(served.proc.exitCode).toBeNull();
    expect(served.output()).not.toMatch(/Error|\n\s+at /);
    faults.push(`${DROPS} clients dropped after the first chunk of a 10,000-snapshot page, 1 reset: server kept answering, nothing logged`);
  }, 30_000);

  it('SIGTERM drains in-flight responses to slow readers, then exits 0', async () => {
    const own = await startServe(db);
    // The newest 10,000 snapshots of the last two hourly markets with their orderbooks, twice
    // each: several MB per answer, usually more than the kernel's socket buffers hold for readers
    // that read nothing, so the server is still writing when SIGTERM comes.
    const targets = [hourMarket, activeHour, hourMarket, activeHour].map(
      (m) => `/api/v1/markets/${m.market_id}/snapshots?limit=10000&offset=${Math.max(0, m.snapshot_count - 10_000)}&include_orderbook=true`,
    );
    const readers = await Promise.all(
      targets.map(async (target) => {
        const socket = connect(own.port, '127.0.0.1');
        // A reset after a failed assertion must fail the test, not surface as an unhandled error.
        socket.on('error', () => undefined);
        await new Promise<void>((r) => socket.once('connect', () => r()));
        socket.pause();
        socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${keys.fast}\r\n\r\n`);
        return socket;
      }),
    );
    // SIGTERM once the server is answering every request: the first bytes of each answer have
    // reached its paused reader (a paused socket still buffers up to its high-water mark).
    await until(() => readers.every((socket) => socket.readableLength > 0), 'the first bytes of every answer');
    own.proc.kill('SIGTERM');
    // New connections are refused while draining (and, trivially, after exit). On a loaded machine
    // the signal can reach the server's loop late: probe until it stops listening (the paused
    // readers keep it draining meanwhile), and fail if it never does.
    const probeOnce = (): Promise<boolean> =>
      new Promise<boolean>((resolve) => {
        const probe = connect(own.port, '127.0.0.1');
        probe.once('connect', () => {
          probe.destroy();
          resolve(false);
        });
        probe.once('error', () => resolve(true));
      });
    let refused = await probeOnce();
    for (const started = Date.now(); !refused && Date.now() - started < 5000; ) {
      await sleep(100);
      refused = await probeOnce();
    }
    expect(refused).toBe(true);
    // Usually still running: it waits for the answers to be read. How much the kernel's loopback
    // buffers absorb depends on the machine and on how much of the seeded data carries orderbooks
    // (it moves with the clock), so a server that already handed every byte to the kernel may have
    // exited: that is a correct drain too, and the completeness checks below hold either way.
    const drainingWhenRefused = own.proc.exitCode === null;
    const texts = await Promise.all(
      readers.map(
        (socket) =>
          new Promise<string>((resolve) => {
            const chunks: Buffer[] = [];
            socket.on('data', (d: Buffer) => chunks.push(d));
            socket.once('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
            socket.resume();
          }),
      ),
    );
    const exit = await own.proc;
    expect(exit.exitCode).toBe(0);
    let bytes = 0;
    for (const text of texts) {
      const [res] = parseRawResponses(text);
      expect(res?.status).toBe(200);
      expect(Buffer.byteLength(res!.body, 'latin1')).toBe(Number(res!.headers['content-length']));
      const body = JSON.parse(Buffer.from(res!.body, 'latin1').toString('utf8')) as { snapshots: unknown[] };
      expect(body.snapshots.length).toBeGreaterThan(0);
      bytes += Number(res!.headers['content-length']);
    }
    faults.push(
      `SIGTERM with ${readers.length} paused readers (${(bytes / 1e6).toFixed(1)} MB in flight): ${drainingWhenRefused ? 'still draining when it stopped listening' : 'all bytes already with the kernel when it stopped listening'}, new connections refused, all 200 and complete, exit 0`,
    );
  }, 90_000); // a loaded 2-core machine needs more than 30 s to seed, serve and drain 12+ MB

  it.concurrent.each([
    ['half a request line, then silence', ['GET /api/v1/mar'], 0],
    ['headers one byte every 100 ms (slowloris)', Array.from('GET /api/health HTTP/1.1\r\nHost: x\r\nX-Pad: ' + 'p'.repeat(60)), 100],
  ] as const)('a stalled client (%s) is cut off at the headers timeout with a JSON 408', async (name, chunks, gapMs) => {
    const answer = await rawExchange(served.port, [...chunks], { waitMs: 10_000, gapMs });
    expect(answer.closedByServer).toBe(true);
    // Node checks the timeout once a second: closed after the timeout, well before the 10 s we waited.
    expect(answer.ms).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    expect(answer.ms).toBeLessThan(HEADERS_TIMEOUT_MS + 3000);
    const [res] = parseRawResponses(answer.text);
    expect(res?.status).toBe(408);
    expect(JSON.parse(res!.body)).toMatchObject({ error: 'Request Timeout' });
    expect(res!.headers['x-ratelimit-limit']).toMatch(/^[1-9]\d*$/);
    faults.push(`stalled client (${name}): closed with 408 after ${answer.ms.toFixed(0)} ms (headers timeout ${HEADERS_TIMEOUT_MS} ms)`);
  }, 20_000);

  it.concurrent('a request whose body never finishes is cut off at the request timeout', async () => {
    const answer = await rawExchange(
      served.port,
      [`POST /api/health HTTP/1.1\r\nHost: x\r\nX-API-Key: ${keys.fast}\r\nContent-Length: 1000\r\n\r\n`, 'only a little'],
      { waitMs: 10_000, gapMs: 50 },
    );
    expect(answer.closedByServer).toBe(true);
    expect(answer.ms).toBeLessThan(REQUEST_TIMEOUT_MS + 3000);
    for (const res of parseRawResponses(answer.text)) expect(res.status).toBeLessThan(500);
    faults.push(`request body stalled: socket closed after ${answer.ms.toFixed(0)} ms (request timeout ${REQUEST_TIMEOUT_MS} ms)`);
  }, 20_000);
});
