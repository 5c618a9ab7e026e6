// End to end: streams whose clients never read, against the built `msnap serve` replaying
// orderbooks fast. Fifty of them on five paid accounts and four on two trial accounts are closed
// with 4002 and a reason naming the bound they passed first (which bound comes first is a race;
// stream-budget.test.ts pins each), seen by each once it reads again. An honest stream beside
// them gets every frame, the server's RSS stays bounded, and it falls back once they are gone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rssMb } from './support/dashboard-client.js';
import { buildIfStale, createKey, seed, startServe, type Served } from './support/msnap-process.js';
import { openStream, type Recorded } from './support/stream-client.js';
import { until } from './support/until.js';

/** What the attack may add to the server's RSS at its peak, and what may stay once it is over (the honest replay alone grows it too). */
const PEAK_MB = 150;
const AFTER_MB = 100;

let dir: string;
let served: Served;
let seededAt: number;
const paid: string[] = [];
const trials: string[] = [];
let honestKey: string;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-stream-budget-'));
  const db = path.join(dir, 'budget.db');
  seededAt = Date.now();
  await seed(db, ['--days', '1', '--full', '5m=3,15m=1,1hr=1,4hr=0,24hr=0', '--orderbook-minutes', '15']);
  for (let i = 0; i < 5; i++) paid.push(await createKey(db, `hoarder-${i}`, 'pro'));
  for (let i = 0; i < 2; i++) trials.push(await createKey(db, `trial-${i}`, 'builder', ['--trial']));
  honestKey = await createKey(db, 'honest', 'pro');
  // Twelve minutes of every market with orderbooks at 60x: about 5,000 frames a second for 12 s.
  served = await startServe(db, { args: ['--replay', String(seededAt - 13 * 60_000), '--speed', '60', '--until', String(seededAt - 60_000)] });
}, 180_000);

afterAll(async () => {
  const stopped = await served?.stop();
  expect(stopped?.exitCode, served?.output().slice(-2000)).toBe(0);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('stream backlog budget', () => {
  it('closes never-reading streams (4002, with the bound as reason), keeps an honest one, and gives the memory back', async () => {
    const pid = served.proc.pid!;
    const honest = openStream(served.url, { token: honestKey });
    await honest.opened;
    honest.ws.send('{"type":"subscribe","coins":["BTC"],"market_types":["5m"],"orderbook":true}');
    await honest.next('subscribed');
    // The server reaches its working size for this traffic first (about a minute of history): that is the start.
    await honest.next('snapshot', undefined, 20_000, 500);
    const before = rssMb(pid);

    const hoarders: Recorded[] = [];
    for (const key of paid) for (let i = 0; i < 10; i++) hoarders.push(openStream(served.url, { token: key }));
    for (const key of trials) for (let i = 0; i < 2; i++) hoarders.push(openStream(served.url, { token: key }));
    await Promise.all(hoarders.map((h) => h.opened));
    for (const h of hoarders) h.ws.send('{"type":"subscribe","orderbook":true}');
    await Promise.all(hoarders.map((h) => h.next('subscribed')));
    // Never read again: the kernel's buffers fill, then the server's.
    for (const h of hoarders) h.ws.pause();

    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
    try {
      await honest.next('end', undefined, 60_000);
    } finally {
      clearInterval(sampler);
    }
    // Each finds its close frame (not a cut connection) behind what the socket still held.
    for (const h of hoarders) h.ws.resume();
    await Promise.all(hoarders.map((h) => h.waitClosed(30_000)));
    const reasons = new Map<string, number>();
    for (const h of hoarders) reasons.set(`${h.closed!.code} ${h.closed!.reason.replace(/\(\d+ MB\)|\d+ MB/, 'N MB')}`, (reasons.get(`${h.closed!.code} ${h.closed!.reason.replace(/\(\d+ MB\)|\d+ MB/, 'N MB')}`) ?? 0) + 1);
    expect(hoarders.every((h) => h.closed!.code === 4002), [...reasons].join('; ')).toBe(true);
    expect(hoarders.every((h) => /^too slow: /.test(h.closed!.reason))).toBe(true);
    // The honest stream got every BTC 5m snapshot of the replay, in order, and stays open.
    expect(honest.closed).toBeUndefined();
    const times = honest.frames.filter((f) => f.type === 'snapshot').map((f) => (f.snapshot as { time: number }).time);
    expect(times.length).toBeGreaterThan(4_000);
    expect(times.every((t, i) => i === 0 || t > times[i - 1]!)).toBe(true);
    honest.ws.close();

    // Memory back: a few collections after the attackers left.
    let after = rssMb(pid);
    await until(() => (after = rssMb(pid)) < before + AFTER_MB, `RSS back under ${before.toFixed(0)} + ${AFTER_MB} MB`, 20_000, 250).catch(() => undefined);
    console.log(`stream budget: ${hoarders.length} never-reading streams; RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} -> after ${after.toFixed(0)} MB; closes: ${[...reasons].join('; ')}`);
    expect(peak - before).toBeLessThan(PEAK_MB);
    expect(after - before).toBeLessThan(AFTER_MB);
  }, 120_000);
});
