import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSources, type FakeSources } from './fake-sources-server.js';
import { updownSlug, type GammaMarketSpec } from './gamma-fixture.js';
import { generateKlines } from './kline-fixture.js';

const START = Date.UTC(2026, 3, 13, 12, 10);
const SPEC: GammaMarketSpec = { slug: updownSlug('btc', '5m', START), conditionId: `0x${'ab'.repeat(32)}`, tokenUp: '1'.repeat(77), tokenDown: '2'.repeat(77), start: START, end: START + 300_000, state: 'resolved', winner: 'Down' };
const KLINES = generateKlines({ interval: '1s', from: START, to: START + 2500_000 });
const FILE = new Uint8Array(Array.from({ length: 1000 }, (_, i) => i % 251));

let fake: FakeSources;
beforeAll(async () => {
  fake = await startFakeSources({ gamma: [SPEC], klines: { BTCUSDT: { '1s': KLINES } }, files: { '/pmxt/polymarket_orderbook_2026-04-13T12.parquet': FILE } });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.clearFaults();
  fake.requests.length = 0;
});

describe('fake Gamma', () => {
  it('answers /events?slug= with the matching events, [] otherwise, and /markets with []', async () => {
    const events = (await (await fetch(`${fake.url}/events?slug=${SPEC.slug}`)).json()) as { slug: string; markets: { outcomePrices: string }[] }[];
    expect(events.map((e) => e.slug)).toEqual([SPEC.slug]);
    expect(events[0]!.markets[0]!.outcomePrices).toBe('["0","1"]');
    expect(await (await fetch(`${fake.url}/events?slug=nope`)).text()).toBe('[]');
    expect(await (await fetch(`${fake.url}/markets?slug=${SPEC.slug}`)).text()).toBe('[]');
    expect(fake.requests.map((r) => [r.path, r.query.slug])).toEqual([['/events', SPEC.slug], ['/events', 'nope'], ['/markets', SPEC.slug]]);
  });
});

describe('fake Binance klines', () => {
  const klines = async (query: string) => {
    const res = await fetch(`${fake.url}/api/v3/klines?${query}`);
    return { status: res.status, body: (await res.json()) as unknown };
  };

  it('honours startTime, endTime (inclusive, on openTime) and limit ≤ 1000, default 500', async () => {
    const a = await klines(`symbol=BTCUSDT&interval=1s&startTime=${START + 1000}&endTime=${START + 3000}&limit=1000`);
    expect((a.body as number[][]).map((k) => k[0]! - START)).toEqual([1000, 2000, 3000]);
    const b = await klines(`symbol=BTCUSDT&interval=1s&startTime=${START}`);
    expect((b.body as unknown[]).length).toBe(500);
    const c = await klines(`symbol=BTCUSDT&interval=1s&startTime=${START}&limit=1000`);
    expect((c.body as number[][]).at(-1)![0]).toBe(START + 999_000);
    const d = await klines(`symbol=BTCUSDT&interval=1s&endTime=${START + 9000}&limit=2`);
    expect((d.body as number[][]).map((k) => k[0]! - START)).toEqual([8000, 9000]);
  });

  it('refuses a limit over 1000, an unknown symbol and interval as Binance does', async () => {
    expect(await klines('symbol=BTCUSDT&interval=1s&limit=1001')).toMatchObject({ status: 400, body: { code: -1130 } });
    expect(await klines('symbol=DOGEUSDT&interval=1s')).toMatchObject({ status: 400, body: { code: -1121 } });
    expect(await klines('symbol=BTCUSDT&interval=7s')).toMatchObject({ status: 400, body: { code: -1120 } });
  });
});

describe('fake file host', () => {
  const path = '/pmxt/polymarket_orderbook_2026-04-13T12.parquet';

  it('serves files with Content-Length, HEAD and byte ranges; 404 for others', async () => {
    const res = await fetch(fake.url + path);
    expect(res.headers.get('content-length')).toBe('1000');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(FILE);
    const head = await fetch(fake.url + path, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe('1000');
    const tail = await fetch(fake.url + path, { headers: { Range: 'bytes=-8' } });
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(FILE.subarray(992));
    expect((await fetch(`${fake.url}/pmxt/missing.parquet`)).status).toBe(404);
  });

  it('fails on demand: a status a number of times, then normally', async () => {
    fake.fail('/pmxt/', { kind: 'status', status: 500 }, 1);
    expect((await fetch(fake.url + path)).status).toBe(500);
    expect((await fetch(fake.url + path)).status).toBe(200);
  });

  it('fails on demand: slow, dropped, cut short', async () => {
    fake.fail(/klines/, { kind: 'slow', delayMs: 150 }, 1);
    const t0 = performance.now();
    expect((await fetch(`${fake.url}/api/v3/klines?symbol=BTCUSDT&interval=1s&limit=1`)).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    fake.fail('/events', { kind: 'drop' }, 1);
    await expect(fetch(`${fake.url}/events?slug=x`)).rejects.toThrow();
    fake.fail(path, { kind: 'cut' }, 1);
    const got = await new Promise<{ length: string | undefined; received: number; aborted: boolean }>((resolve) => {
      request(fake.url + path, (res) => {
        let received = 0;
        res.on('data', (c: Buffer) => (received += c.length));
        res.on('error', () => resolve({ length: res.headers['content-length'], received, aborted: true }));
        res.on('end', () => resolve({ length: res.headers['content-length'], received, aborted: false }));
      }).end();
    });
    expect(got).toEqual({ length: '1000', received: 500, aborted: true });
  });
});
