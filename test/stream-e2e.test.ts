// End to end: the built `msnap serve` over a seeded file, GET /v1/stream with a real WebSocket
// client. A replay at high speed delivers every snapshot of a market exactly once, in order, equal
// to its REST page, between its market_open and market_resolved, then `end`; a client that stops
// reading is closed with 4002 while the server's memory stays bounded; plans cap open streams;
// bad frames get error frames; a static server has no stream; live mode streams what it writes.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, seed, startServe, type Served } from './support/msnap-process.js';
import { openStream, type Frame } from './support/stream-client.js';

const FIVE_MIN = 300_000;
let dir: string;
let db: string;
let pro: string;
let builder: string;
let boundary: number;
let seededAt: number;
const servers: Served[] = [];

async function serve(args: string[], file = db): Promise<Served> {
  const s = await startServe(file, { args });
  servers.push(s);
  return s;
}

async function get<T>(url: string, key: string): Promise<T> {
  const r = await fetch(url, { headers: { 'X-API-Key': key } });
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

/** The peak resident memory of a process, in MB (Linux). */
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-stream-e2e-'));
  db = path.join(dir, 'stream.db');
  seededAt = Date.now();
  // Full snapshots for the four newest 5m markets (at least the last 15 minutes); the one before the active one is complete.
  await seed(db, ['--days', '1', '--full', '5m=4,15m=2,1hr=1,4hr=1,24hr=1', '--orderbook-minutes', '20']);
  boundary = Math.floor(seededAt / FIVE_MIN) * FIVE_MIN - FIVE_MIN;
  pro = await createKey(db, 'pro-bot', 'pro');
  builder = await createKey(db, 'builder-bot', 'builder');
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('GET /v1/stream over a replay', () => {
  it('delivers every snapshot of a market once, in order, equal to its page, between open and resolved, then end', async () => {
    // Five replay minutes (2.5 wall seconds at 120x) to subscribe before the market opens; the replay stops just after it ends.
    const s = await serve(['--replay', String(boundary - FIVE_MIN), '--speed', '120', '--until', String(boundary + FIVE_MIN + 2_000)]);
    const stream = openStream(s.url, { token: pro });
    await stream.opened;
    stream.ws.send(JSON.stringify({ type: 'subscribe', coins: ['btc'], market_types: ['5m'], orderbook: true }));
    expect(await stream.next('subscribed')).toEqual({ type: 'subscribed', coins: ['BTC'], market_types: ['5m'], orderbook: true });
    await stream.next('end', undefined, 30_000);

    const id = `btc-updown-5m-${boundary / 1000}`;
    const mine = (f: Frame) => ((f.snapshot ?? f.market) as { market_id?: string } | undefined)?.market_id === id;
    const frames = stream.frames.filter(mine);
    expect(frames[0]).toMatchObject({ type: 'market_open', market: { market_id: id, status: 'active', price_end: null, winner: null } });
    expect(frames.at(-1)).toMatchObject({ type: 'market_resolved', market: { market_id: id, status: 'resolved' } });
    const snapshots = frames.slice(1, -1).map((f) => f.snapshot as { time: number; orderbook_up?: unknown });
    expect(frames.slice(1, -1).every((f) => f.type === 'snapshot')).toBe(true);

    const page = await get<{ snapshots: unknown[]; total: number }>(`${s.url}/v1/markets/${id}/snapshots?limit=10000&include_orderbook=true`, pro);
    expect(page.total).toBeGreaterThan(2000);
    expect(snapshots.length).toBe(page.total);
    expect(snapshots).toEqual(page.snapshots);
    expect(snapshots.some((x) => x.orderbook_up !== undefined)).toBe(true);
    const market = await get<Record<string, unknown>>(`${s.url}/v1/markets/${id}`, pro);
    expect((frames.at(-1)!.market as Record<string, unknown>).winner).toBe(market.winner);
    expect((frames.at(-1)!.market as Record<string, unknown>).price_end).toBe(market.price_end);
    // Only BTC 5m, and times never go back.
    const times = stream.frames.filter((f) => f.type === 'snapshot').map((f) => (f.snapshot as { time: number; market_id: string }).market_id);
    expect(times.every((m) => m.startsWith('btc-updown-5m-'))).toBe(true);
    expect(stream.frames.at(-1)).toEqual({ type: 'end' });
    stream.ws.close();
  }, 60_000);

  it('closes a client that stops reading with 4002; the server holds a bounded amount for it', async () => {
    // Twelve minutes of history with orderbooks at 400x: about 86,000 snapshots in 2 s.
    const s = await serve(['--replay', String(seededAt - 13 * 60_000), '--speed', '400', '--until', String(seededAt - 60_000)]);
    const slow = openStream(s.url, { token: pro });
    const fast = openStream(s.url, { headers: { Authorization: `Bearer ${pro}` } });
    await Promise.all([slow.opened, fast.opened]);
    slow.ws.send('{"type":"subscribe","orderbook":true}');
    // One market at a time: 3,200 frames a second at 400x, which a test process reads easily.
    fast.ws.send('{"type":"subscribe","coins":["BTC"],"market_types":["5m"]}');
    await slow.next('subscribed');
    slow.ws.pause();
    await fast.next('end', undefined, 60_000);
    const times = fast.frames.filter((f) => f.type === 'snapshot').map((f) => (f.snapshot as { time: number }).time);
    // The replay runs from serve's start, not the subscription: what the fast reader missed before it
    // subscribed depends on the machine's load, so it must have every snapshot from its first on (one
    // market at 8 a second, no gap), over most of the twelve minutes.
    expect(times.at(-1)! - times[0]!).toBeGreaterThan(8 * 60_000);
    expect(times.length).toBeGreaterThanOrEqual(Math.floor((times.at(-1)! - times[0]!) / 125));
    expect(peakRssMb(s.proc.pid!)).toBeLessThan(300);
    slow.ws.resume();
    expect((await slow.waitClosed(60_000)).code).toBe(4002);
    // It got what the kernel and the bound held, not the 86,000 snapshots of all markets.
    expect(slow.frames.filter((f) => f.type === 'snapshot').length).toBeLessThan(40_000);
    fast.ws.close();
  }, 120_000);

  it('charges the opening, caps a builder key at two streams (4008), answers bad frames and keeps the stream', async () => {
    const s = await serve(['--replay', String(boundary), '--speed', '1']);
    const a = openStream(s.url, { token: builder });
    const b = openStream(s.url, { headers: { 'X-API-Key': builder } });
    await Promise.all([a.opened, b.opened]);
    const third = openStream(s.url, { token: builder });
    await third.opened;
    expect((await third.waitClosed()).code).toBe(4008);

    a.ws.send('not json');
    expect(await a.next('error')).toMatchObject({ code: 'invalid_json' });
    a.ws.send('{"type":"subscribe","coins":["DOGE"]}');
    expect(await a.next('error', (f) => f.code === 'invalid_coin')).toMatchObject({ type: 'error' });
    a.ws.send('{"type":"subscribe","market_types":["2m"]}');
    await a.next('error', (f) => f.code === 'invalid_market_type');
    // An empty list would subscribe to nothing: refused, and the subscription stays as it was.
    a.ws.send('{"type":"subscribe","coins":[]}');
    expect(await a.next('error', (f) => f.code === 'invalid_coin' && /"coins" is empty/.test(String(f.message)))).toMatchObject({
      message: '"coins" is empty: it would subscribe to nothing; name at least one (e.g. ["BTC"]) or omit it for all. The subscription is unchanged.',
    });
    a.ws.send('{"type":"subscribe","market_types":[]}');
    await a.next('error', (f) => f.code === 'invalid_market_type' && /"market_types" is empty/.test(String(f.message)));
    a.ws.send('{"type":"hello"}');
    await a.next('error', (f) => f.code === 'unknown_type');
    a.ws.send('[1,2]');
    await a.next('error', (f) => f.code === 'invalid_frame');
    a.ws.send('{"type":"subscribe","coins":["eth"],"market_types":["1h"]}');
    expect(await a.next('subscribed')).toEqual({ type: 'subscribed', coins: ['ETH'], market_types: ['1hr'], orderbook: false });
    // A new subscribe replaces the old one.
    a.ws.send('{"type":"subscribe","market_types":["5m"]}');
    expect(await a.next('subscribed', (f) => (f.market_types as string[]).length === 1 && (f.market_types as string[])[0] === '5m')).toMatchObject({ coins: ['BTC', 'ETH', 'SOL'] });
    expect(a.closed).toBeUndefined();
    // Frames larger than the server reads close the stream (1009).
    b.ws.send(JSON.stringify({ type: 'subscribe', pad: 'x'.repeat(10_000) }));
    expect((await b.waitClosed()).code).toBe(1009);

    // The opening is charged: /v1/limits... the key's minute counts the three openings.
    const limits = await fetch(`${s.url}/v1/limits`, { headers: { 'X-API-Key': builder } });
    expect(Number(limits.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(250 - 4);

    const bad = openStream(s.url, { token: 'msk_not-a-key' });
    await expect(bad.opened).rejects.toThrow(/HTTP 401/);
    expect(JSON.parse(bad.refused!.body)).toMatchObject({ error: 'Unauthorized' });
    const none = openStream(s.url);
    await expect(none.opened).rejects.toThrow(/HTTP 401/);
    // SIGTERM with a stream open: it is closed with 1001 and the server exits 0.
    expect(await s.stop()).toMatchObject({ exitCode: 0 });
    expect((await a.waitClosed()).code).toBe(1001);
  }, 60_000);
});

describe('GET /v1/stream in other modes', () => {
  it('a static server has no stream: 404', async () => {
    const s = await serve(['--no-live']);
    // Answered as any unknown path: credentials first, then 404.
    const stream = openStream(s.url, { headers: { 'X-API-Key': pro } });
    await expect(stream.opened).rejects.toThrow(/HTTP 404/);
  }, 60_000);

  it('live mode streams the snapshots the world writes, never ahead of the wall clock, equal to the page', async () => {
    const file = path.join(dir, 'live.db');
    copyFileSync(db, file);
    const s = await serve(['--live'], file);
    const stream = openStream(s.url, { token: pro });
    await stream.opened;
    stream.ws.send('{"type":"subscribe","coins":["SOL"],"market_types":["5m"]}');
    await stream.next('subscribed');
    await stream.next('snapshot', undefined, 20_000, 16);
    const got = stream.frames.filter((f) => f.type === 'snapshot').map((f) => f.snapshot as { time: number; market_id: string });
    expect(got.every((x) => x.time <= Date.now())).toBe(true);
    const id = got[0]!.market_id;
    const mine = got.filter((x) => x.market_id === id);
    const page = await get<{ snapshots: { time: number }[] }>(`${s.url}/v1/markets/${id}/snapshots?limit=10000&start_time=${mine[0]!.time}&end_time=${mine.at(-1)!.time + 1}`, pro);
    expect(mine).toEqual(page.snapshots);
    stream.ws.close();
  }, 60_000);
});
