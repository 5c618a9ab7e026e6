// Reliability under slow readers: clients that ask the built `msnap serve` for its biggest pages
// (10,000 snapshots with orderbooks, ~11 MB each) over raw sockets and never read a byte. The
// server writes with backpressure, drops answers that make no progress, holds a bounded total of
// unread bytes (503 + Retry-After past it), and its RSS stays under a stated ceiling.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rssMb } from './support/dashboard-client.js';
import { buildIfStale, createKey, seed, startServe, type Served } from './support/msnap-process.js';

/** How long the attack runs, and how often it opens a connection with two pipelined big requests. */
const ATTACK_MS = 8_000;
const EVERY_MS = 40;
/** Bytes of unread answers serve may hold (MSNAP_RESPONSE_BUDGET_MB), and the RSS the attack may add on top. */
const BUDGET_MB = 32;
const RSS_CEILING_MB = 200;

let dir: string;
let served: Served;
let key: string;
let market: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-slow-'));
  const db = path.join(dir, 'slow.db');
  // Two full 1hr markets per coin (the older one complete: 28,800 snapshots), orderbooks on all of it.
  await seed(db, ['--days', '1', '--full', '5m=0,15m=0,1hr=2,4hr=0,24hr=0', '--orderbook-minutes', '150']);
  key = await createKey(db, 'greedy', 'enterprise', ['--rpm', '1000000', '--burst', '1000']);
  served = await startServe(db, { env: { MSNAP_RESPONSE_BUDGET_MB: String(BUDGET_MB), MSNAP_WRITE_STALL_MS: '2000' } });
  const list = await request(`${served.url}/api/v1/markets?coin=btc&market_type=1hr&status=resolved&limit=1`, { headers: { 'x-api-key': key } });
  market = ((await list.body.json()) as { markets: { market_id: string }[] }).markets[0]!.market_id;
}, 120_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  const stopped = await served?.stop();
  expect(stopped?.exitCode, served?.output().slice(-2000)).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

function bigPage(): string {
  return `GET /api/v1/markets/${market}/snapshots?limit=10000&include_orderbook=true HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`;
}

describe('slow readers', () => {
  it(`never-reading clients asking for 11 MB pages every ${EVERY_MS} ms for ${ATTACK_MS / 1000} s add under ${RSS_CEILING_MB} MB of RSS`, async () => {
    // Honest big pages first, read in full: the heap grows to its working size for such pages
    // (~200 MB of garbage per page before a collection), which is the baseline.
    let size = 0;
    for (let i = 0; i < 10; i++) {
      const page = await request(`${served.url}/api/v1/markets/${market}/snapshots?limit=10000&include_orderbook=true`, { headers: { 'x-api-key': key } });
      size = (await page.body.arrayBuffer()).byteLength;
      expect(page.statusCode).toBe(200);
    }
    expect(size).toBeGreaterThan(5_000_000);
    const pid = served.proc.pid!;
    const before = rssMb(pid);
    let peak = before;
    const statuses: number[] = [];
    const started = Date.now();
    while (Date.now() - started < ATTACK_MS) {
      // Never read: no 'data' listener, so the kernel buffers fill and the server's writes stall.
      const s = connect(served.port, '127.0.0.1', () => s.write(bigPage() + bigPage()));
      s.on('error', () => {});
      sockets.push(s);
      peak = Math.max(peak, rssMb(pid));
      if (sockets.length % 25 === 0) {
        // An honest client meanwhile: answered (200), or told to come back (503 + Retry-After), never hung.
        const h = await request(`${served.url}/api/v1/markets?coin=btc&limit=1`, { headers: { 'x-api-key': key }, headersTimeout: 5000 });
        statuses.push(h.statusCode);
        if (h.statusCode === 503) expect(h.headers['retry-after']).toBe('2');
        await h.body.dump();
      }
      await new Promise((r) => setTimeout(r, EVERY_MS));
    }
    console.log(`slow readers: ${sockets.length} connections, ${(sockets.length * 2 * size) / 2 ** 20 | 0} MB asked; RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MB; honest: ${statuses.join(' ')}`);
    expect(peak - before).toBeLessThan(RSS_CEILING_MB);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    for (const s of sockets) s.destroy();
    // Once the readers are gone the budget is free again and the big page is served.
    await expect.poll(async () => {
      const r = await request(`${served.url}/api/v1/markets/${market}/snapshots?limit=10000&include_orderbook=true`, { headers: { 'x-api-key': key } });
      await r.body.dump();
      return r.statusCode;
    }, { timeout: 10_000, interval: 250 }).toBe(200);
  }, 120_000);
});
