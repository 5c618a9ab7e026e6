// Bots as hosted-service users write them: plain fetch, one per API version, pointed at a real
// `msnap serve` on port 0 instead of the hosted base URL and otherwise unchanged. Each pages
// markets, pages one market's snapshots with depth, and reads what a trading bot reads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, seed, startServe, type Served } from './support/msnap-process.js';

interface Level {
  price: number;
  size: number;
}
interface Book {
  bids: Level[];
  asks: Level[];
}
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- bot code reads loose JSON

/** What every bot reports: enough to check it read the data the way it meant to. */
interface BotReport {
  markets: Json[];
  marketId: string;
  times: number[];
  prices: number[];
  spreads: number[];
  books: Book[];
}

// ---- bot code: what a user of the hosted service writes (BASE would be the hosted URL) ----

async function getJson(base: string, apiKey: string, pathname: string, params: Record<string, string | number | boolean>): Promise<Json> {
  const url = new URL(pathname, base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, String(v));
  const res = await fetch(url, { headers: { 'X-API-Key': apiKey } });
  if (!res.ok) throw new Error(`${res.status} ${url.pathname}: ${await res.text()}`);
  return (await res.json()) as Json;
}

function bestSpread(book: Book): number | undefined {
  return book.bids.length > 0 && book.asks.length > 0 ? book.asks[0]!.price - book.bids[0]!.price : undefined;
}

async function v4Bot(base: string, apiKey: string): Promise<BotReport> {
  const markets: Json[] = [];
  let offset = 0;
  for (;;) {
    const page = await getJson(base, apiKey, '/v4/markets', { coin: 'btc', market_type: '5m', limit: 100, offset });
    markets.push(...page.markets);
    if (!page.has_more) break;
    offset = page.next_offset;
  }
  const market = markets.find((m) => m.winner !== null)!;
  const report: BotReport = { markets, marketId: market.market_id, times: [], prices: [], spreads: [], books: [] };
  offset = 0;
  for (;;) {
    const page = await getJson(base, apiKey, `/v4/markets/${market.market_id}/snapshots`, {
      coin: 'btc', include_orderbook: true, limit: 1000, offset, start_time: market.start_time, end_time: market.end_time,
    });
    for (const s of page.snapshots) {
      report.times.push(s.time);
      report.prices.push(s.btc_price);
      if (s.orderbook_up) {
        report.books.push(s.orderbook_up);
        const spread = bestSpread(s.orderbook_up);
        if (spread !== undefined) report.spreads.push(spread);
      }
    }
    if (!page.has_more) break;
    offset = page.next_offset;
  }
  return report;
}

async function v2Bot(base: string, apiKey: string): Promise<BotReport> {
  const markets: Json[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await getJson(base, apiKey, '/v2/markets', { coin: 'BTC', market_type: '5m', resolved: true, limit: 100, offset });
    markets.push(...page.markets);
    if (offset + page.markets.length >= page.total) break;
  }
  const market = markets.find((m) => m.winner !== null)!;
  const report: BotReport = { markets, marketId: market.market_id, times: [], prices: [], spreads: [], books: [] };
  for (let offset = 0; ; offset += 1000) {
    const page = await getJson(base, apiKey, `/v2/markets/${market.market_id}/snapshots`, { coin: 'BTC', include_orderbook: 'true', limit: 1000, offset });
    for (const s of page.snapshots) {
      report.times.push(Date.parse(s.time));
      report.prices.push(s.btc_price);
      if (s.orderbook_up) {
        report.books.push(s.orderbook_up);
        const spread = bestSpread(s.orderbook_up);
        if (spread !== undefined) report.spreads.push(spread);
      }
    }
    if (offset + page.snapshots.length >= page.total) break;
  }
  return report;
}

async function v1Bot(base: string, apiKey: string): Promise<BotReport> {
  const health = await fetch(new URL('/health', base));
  if (!health.ok || (await health.json()).status !== 'ok') throw new Error('service down');
  const markets: Json[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await getJson(base, apiKey, '/api/v1/markets', { coin: 'btc', market_type: '5m', status: 'resolved', limit: 1000, offset });
    markets.push(...page.markets);
    if (offset + page.markets.length >= page.total) break;
  }
  const market = await getJson(base, apiKey, `/v1/markets/by-slug/${markets.find((m) => m.winner !== null)!.slug}`, {});
  const report: BotReport = { markets, marketId: market.market_id, times: [], prices: [], spreads: [], books: [] };
  const page = await getJson(base, apiKey, `/api/v1/markets/${market.market_id}/snapshots`, { include_orderbook: true, limit: 10000 });
  for (const s of page.snapshots) {
    report.times.push(s.time);
    report.prices.push(s.price);
    if (s.orderbook_up) {
      report.books.push(s.orderbook_up);
      const spread = bestSpread(s.orderbook_up);
      if (spread !== undefined) report.spreads.push(spread);
    }
  }
  return report;
}

// ---- the harness ----

let dir: string;
let served: Served;
let key: string;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-bots-'));
  const db = path.join(dir, 'bots.db');
  // Two full 5m markets per coin (the newest still active) and depth for the last 12 minutes:
  // the resolved one has depth on every snapshot.
  await seed(db, ['--days', '1', '--full', '5m=2,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-minutes', '12']);
  // Pro: the last test runs the three bots at once, past a builder's burst of 12.
  key = await createKey(db, 'bots', 'pro');
  served = await startServe(db);
}, 120_000);

afterAll(async () => {
  await served?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function expectSane(r: BotReport): void {
  // A day of 5m markets, newest first, all of them read once.
  expect(r.markets.length).toBeGreaterThanOrEqual(280);
  expect(new Set(r.markets.map((m) => m.market_id)).size).toBe(r.markets.length);
  // The resolved full market: 2,400 snapshots at 8 per second, oldest first, each with depth.
  expect(r.times).toHaveLength(2400);
  r.times.forEach((t, i) => i > 0 && expect(t - r.times[i - 1]!).toBe(125));
  expect(r.prices.every((p) => typeof p === 'number' && p > 10_000)).toBe(true);
  expect(r.books).toHaveLength(2400);
  for (const book of r.books.slice(0, 50)) {
    for (const level of [...book.bids, ...book.asks]) {
      expect(Object.keys(level)).toEqual(['price', 'size']);
      expect(level.size).toBeGreaterThan(0);
    }
    expect(book.bids.map((l) => l.price)).toEqual([...book.bids.map((l) => l.price)].sort((a, b) => b - a));
    expect(book.asks.map((l) => l.price)).toEqual([...book.asks.map((l) => l.price)].sort((a, b) => a - b));
  }
  // A book has a spread when both sides hold levels; near 0 or 1 one side empties, for as long
  // as the seeded path (which depends on the clock's market) stays there.
  expect(r.spreads).toHaveLength(r.books.filter((b) => b.bids.length > 0 && b.asks.length > 0).length);
  expect(r.spreads.length).toBeGreaterThan(600);
  expect(r.spreads.filter((s) => !(s > 0 && s < 0.2))).toEqual([]);
}

describe('bots written for the hosted service run unchanged against msnap serve', () => {
  it('a v4 bot: pages by has_more/next_offset, ms times, btc_price, {price, size} levels', async () => {
    const r = await v4Bot(served.url, key);
    expectSane(r);
    expect(r.markets[0]!.market_type).toBe('5m');
    expect(typeof r.markets[0]!.start_time).toBe('number');
  });

  it('a v2 bot: pages by total, parses ISO times with Date.parse', async () => {
    const r = await v2Bot(served.url, key);
    expectSane(r);
    expect(r.markets.every((m) => typeof m.start_time === 'string' && m.end_time.endsWith('Z'))).toBe(true);
  });

  it('a v1 bot: health without a key, by-slug, one page of up to 10,000 snapshots', async () => {
    const r = await v1Bot(served.url, key);
    expectSane(r);
  });

  it('all three read the same market the same way', async () => {
    const [a, b, c] = await Promise.all([v4Bot(served.url, key), v2Bot(served.url, key), v1Bot(served.url, key)]);
    expect(b.marketId).toBe(a.marketId);
    expect(c.marketId).toBe(a.marketId);
    expect(b.times).toEqual(a.times);
    expect(c.prices).toEqual(a.prices);
    expect(b.books).toEqual(c.books);
  });
});
