// The watch loop (src/client/watch/watch.ts) in process, with the real client, its pacer and a real
// `msnap serve --replay` (a 5m market passes in half a second at 600x, in five at 60x). The
// loop's own waits go through the sleep it is given, so the test sees every interval it asks for;
// the pacer alone keeps the key under its limits even when that sleep returns at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MsnapClient } from '../src/client/client.js';
import type { Snapshot } from '../src/domain/market.js';
import { watchSnapshots, type WatchOptions } from '../src/client/watch/watch.js';
import { pollIntervalMs } from '../src/client/watch/watch-poll.js';
import { buildIfStale, createKey, seed, startServe, type Served } from './support/msnap-process.js';

const FIVE_MIN = 300_000;
let dir: string;
let db: string;
let key: string;
let boundary: number;
let servers: Served[] = [];
const clients: MsnapClient[] = [];

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-watch-loop-'));
  db = path.join(dir, 'loop.db');
  await seed(db, ['--days', '1', '--full', '5m=12,15m=0,1hr=0,4hr=0,24hr=0']);
  // 120 requests a minute, 2 a second: a watch may poll every 2 s (a quarter of the minute limit).
  key = await createKey(db, 'bot', 'enterprise', ['--rpm', '120', '--burst', '2']);
  boundary = Math.floor(Date.now() / FIVE_MIN) * FIVE_MIN - 9 * FIVE_MIN;
}, 180_000);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function replay(speed: number): Promise<Served> {
  const s = await startServe(db, { args: ['--replay', String(boundary - 10_000), '--speed', String(speed)] });
  servers.push(s);
  return s;
}

function client(s: Served): MsnapClient {
  const c = new MsnapClient({ baseUrl: s.url, apiKey: key, api: 'v1' });
  clients.push(c);
  return c;
}

/** A sleep that records what it was asked and waits `scale` of it (0: returns at once). */
function recordingSleep(scale: number): { asked: number[]; sleep: WatchOptions['sleep'] } {
  const asked: number[] = [];
  return {
    asked,
    sleep: (ms, signal) => {
      asked.push(ms);
      return new Promise((resolve) => {
        const t = setTimeout(resolve, ms * scale);
        signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
    },
  };
}

async function collect(batches: AsyncIterable<Snapshot[]>, onBatch?: (all: Snapshot[]) => void): Promise<Snapshot[]> {
  const all: Snapshot[] = [];
  for await (const b of batches) {
    all.push(...b);
    onBatch?.(all);
  }
  return all;
}

async function pageOf(c: MsnapClient, id: string): Promise<Snapshot[]> {
  const all: Snapshot[] = [];
  for await (const p of c.snapshotPages(id, {})) all.push(...p.rows());
  return all;
}

describe('pollIntervalMs', () => {
  it("takes a quarter of the key's minute limit, never under a second", () => {
    const limits = (rpm: number | null) => ({ plan: 'x', trial: null, rate_limit: { requests_per_minute: rpm, burst_per_second: 1 }, data_window: null, api_keys: null, usage: null });
    expect(pollIntervalMs(limits(120))).toBe(2000);
    expect(pollIntervalMs(limits(30))).toBe(8000);
    expect(pollIntervalMs(limits(250))).toBe(1000);
    expect(pollIntervalMs(limits(null))).toBe(1000);
    expect(pollIntervalMs(undefined)).toBe(1000);
  });
});

describe('watch loop (polling) against serve --replay', () => {
  it("polls a market at the key's interval until it resolves: its page exactly, no 429", async () => {
    const s = await replay(60);
    const c = client(s);
    const { asked, sleep } = recordingSleep(0.25);
    const id = `btc-updown-5m-${boundary / 1000}`;
    const stop = new AbortController();
    const got = await collect(watchSnapshots(c, { marketId: id }, { follow: false, includeOrderbook: false, mode: 'poll', sleep, signal: stop.signal, note: () => {} }));
    expect(got.map((x) => x.id)).toEqual((await pageOf(c, id)).map((x) => x.id));
    expect(got).toHaveLength(2400);
    // It watched while the market was open (more than one poll), each wait the interval the limits give.
    expect(asked.length).toBeGreaterThan(1);
    expect(new Set(asked)).toEqual(new Set([2000]));
    expect(c.stats().responses429).toBe(0);
  }, 60_000);

  it('with a sleep that returns at once, the pacer alone keeps the key under its limits', async () => {
    const s = await replay(60);
    const c = client(s);
    const { asked, sleep } = recordingSleep(0);
    const id = `btc-updown-5m-${boundary / 1000}`;
    const stop = new AbortController();
    const started = performance.now();
    const got = await collect(watchSnapshots(c, { marketId: id }, { follow: false, includeOrderbook: false, mode: 'poll', sleep, signal: stop.signal, note: () => {} }));
    const seconds = (performance.now() - started) / 1000;
    expect(got.map((x) => x.id)).toEqual((await pageOf(c, id)).map((x) => x.id));
    expect(asked.length).toBeGreaterThan(3);
    const { requests, responses429, pacedMs } = c.stats();
    expect(responses429).toBe(0);
    expect(pacedMs).toBeGreaterThan(0);
    // Burst 2 a second (one more for the bucket's start).
    expect(requests).toBeLessThanOrEqual(Math.ceil(seconds * 2) + 3);
  }, 60_000);

  it('waiting for a market the replay stops before: ends with a note once the replay has ended', async () => {
    // The replay stops 4 s into the boundary market, 6 s of wall time after it starts (the server's start takes some of them).
    const s = await startServe(db, { args: ['--replay', String(boundary - 2_000), '--until', String(boundary + 4_000), '--speed', '1'] });
    servers.push(s);
    const c = client(s);
    const { asked, sleep } = recordingSleep(0.25);
    const notes: string[] = [];
    const id = `btc-updown-5m-${(boundary + FIVE_MIN) / 1000}`;
    const got = await collect(watchSnapshots(c, { marketId: id }, { follow: true, includeOrderbook: false, mode: 'poll', sleep, signal: new AbortController().signal, note: (n) => notes.push(n) }));
    expect(got).toEqual([]);
    expect(notes).toEqual([`${id} has not opened yet: waiting for it`, 'the replay has ended: no more snapshots will come']);
    // It waited (the replay was still running at the first look), then ended by itself.
    expect(asked.length).toBeGreaterThan(0);
  }, 60_000);

  it('--follow: market after market, each complete, until stopped', async () => {
    const s = await replay(600);
    const c = client(s);
    const { sleep } = recordingSleep(0.25);
    const stop = new AbortController();
    const seen = new Set<string>();
    const got = await collect(
      watchSnapshots(c, { coin: 'BTC', marketType: '5m' }, { follow: true, includeOrderbook: false, mode: 'poll', sleep, signal: stop.signal, note: () => {} }),
      (all) => {
        seen.add(all.at(-1)!.market_id);
        if (seen.size >= 3) stop.abort();
      },
    );
    const ids = [...new Set(got.map((x) => x.market_id))];
    expect(ids.length).toBe(3);
    for (const id of ids.slice(0, -1)) {
      expect(got.filter((x) => x.market_id === id).map((x) => x.id)).toEqual((await pageOf(c, id)).map((x) => x.id));
    }
    const starts = ids.map((id) => Number(id.split('-').at(-1)));
    expect(starts[1]! - starts[0]!).toBe(300);
    expect(starts[2]! - starts[1]!).toBe(300);
  }, 60_000);

  it('the stream, where offered, gives what polling gives', async () => {
    const s = await replay(600);
    const c = client(s);
    const { sleep } = recordingSleep(0.25);
    const stop = new AbortController();
    const via: string[] = [];
    const got = await collect(
      watchSnapshots(c, { coin: 'BTC', marketType: '5m' }, { follow: true, includeOrderbook: false, mode: 'stream', sleep, signal: stop.signal, note: () => {}, onMarket: (_m, how) => via.push(how) }),
      (all) => {
        if (new Set(all.map((x) => x.market_id)).size > 3) stop.abort();
      },
    );
    expect(via).toContain('stream');
    const ids = [...new Set(got.map((x) => x.market_id))];
    for (const id of ids.slice(0, -1)) {
      expect(got.filter((x) => x.market_id === id).map((x) => x.id)).toEqual((await pageOf(c, id)).map((x) => x.id));
    }
  }, 60_000);
});
