// msnap/server's record option: startServer({ record }) in this process against a fake Polymarket
// (Gamma over HTTP, the CLOB market channel and RTDS over WebSockets), its clock a few seconds
// before a 5-minute boundary: both markets appear through the server (the library's client), their
// snapshots with books, /v1/stream pushes what is written, and close() writes what was received.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/lib/client.js';
import { UsageError } from '../src/errors.js';
import { createKey, startServer } from '../src/lib/server.js';
import { dialectSnapshots } from './support/dialect-snapshots.js';
import { openStream, type Frame } from './support/stream-client.js';
import { until } from './support/until.js';
import { startFakePolymarketSockets } from '../src/realdata/test-support/fake-polymarket-sockets.js';
import { startFakeSources } from '../src/realdata/test-support/fake-sources-server.js';
import { FakeMarketFeed } from '../src/realdata/test-support/fake-market-feed.js';
import type { GammaMarketSpec } from '../src/realdata/test-support/gamma-fixture.js';
import { scenarioMarket } from '../src/realdata/test-support/pmxt-scenarios.js';

const FIVE_MIN = 300_000;
const HOUR = 3_600_000;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-lib-record-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('startServer({ record })', () => {
  it('records while serving: markets and snapshots through the server, the stream, close() flushes', async () => {
    // The server's clock (and the fake's) runs at wall speed from 6 s before a boundary in the past.
    const boundary = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR + 30 * 60_000;
    const offset = boundary - 6_000 - Date.now();
    const now = () => Date.now() + offset;
    const specs: GammaMarketSpec[] = [boundary - FIVE_MIN, boundary].map((start) => {
      const m = scenarioMarket(`lib-rec-${start}`, start, start + FIVE_MIN);
      return { slug: `btc-updown-5m-${start / 1000}`, conditionId: m.conditionId, tokenUp: m.tokenUp, tokenDown: m.tokenDown, start, end: start + FIVE_MIN };
    });
    const [idA, idB] = specs.map((s) => s.slug) as [string, string];
    const sources = await startFakeSources({ gamma: specs });
    const sockets = await startFakePolymarketSockets();
    const feed = new FakeMarketFeed(sockets, now, specs.map((s) => ({ ...s })), [{ symbol: 'btc/usd', price: 84_000 }], 21);
    feed.start();
    const db = path.join(dir, 'recorded.db');
    const raw = path.join(dir, 'raw');
    const apiKey = await createKey(db, { account: 'bot', plan: 'pro' });
    const log: string[] = [];
    const server = await startServer({
      store: db,
      now,
      log: (line) => log.push(line),
      record: { markets: ['btc:5m'], raw, clobUrl: sockets.clobUrl, rtdsUrl: sockets.rtdsUrl, gammaUrl: sources.url },
    });
    const client = createClient({ baseUrl: server.url, apiKey, paceStateDir: false, now });
    const stream = openStream(server.url, { token: apiKey });
    const pushed: { market_id: string; time: number }[] = [];
    let stoppedAt: number;
    try {
      stream.ws.on('message', (data) => {
        const f = JSON.parse(data.toString()) as Frame;
        if (f.type === 'snapshot') pushed.push(f.snapshot as { market_id: string; time: number });
      });
      await stream.opened;
      stream.ws.send(JSON.stringify({ type: 'subscribe', coins: ['btc'], market_types: ['5m'], orderbook: true }));
      await until(() => now() >= boundary + 4_000, 'the clock past the boundary', 30_000, 50);

      const listed: { market_id: string; snapshot_count: number }[] = [];
      for await (const m of client.markets({ coin: 'BTC', marketType: '5m', limit: 10 })) listed.push(m);
      expect(listed.map((m) => m.market_id)).toEqual([idB, idA]);
      for (const id of [idA, idB]) {
        const stored = await dialectSnapshots(server.url, apiKey, 'v1', id, 'btc');
        expect(stored.length, id).toBeGreaterThan(8);
        expect(stored[0]!.orderbook_up, id).toBeDefined();
        // The stream pushed what the store holds over the same times.
        const mine = pushed.filter((s) => s.market_id === id);
        expect(mine.length, id).toBeGreaterThan(0);
        expect(mine).toEqual(stored.filter((s) => s.time >= mine[0]!.time && s.time <= mine.at(-1)!.time));
      }
    } finally {
      stream.ws.close();
      await client.close();
      feed.stop();
      stoppedAt = now();
      await server.close();
      await sockets.close();
      await sources.close();
    }
    expect(log).toContain(`msnap serve: recording BTC 5m from ${sockets.clobUrl} into this store`);
    expect(readdirSync(raw).some((f) => f.endsWith('.jsonl.gz'))).toBe(true);
    // Everything received before close() is written: the span ends at the close, not a lag before it.
    const sql = new Database(db, { readonly: true });
    try {
      expect(sql.prepare('SELECT max(to_ms) FROM realdata_spans').pluck().get()).toBeGreaterThanOrEqual(stoppedAt);
      expect(sql.prepare('SELECT price_source FROM markets WHERE market_id = ?').pluck().get(idB)).toBe('chainlink');
    } finally {
      sql.close();
    }
  }, 90_000);

  it('checks the record option the way `serve` checks --record', async () => {
    const db = path.join(dir, 'checked.db');
    await expect(startServer({ store: db, record: { markets: [] } })).rejects.toThrow(/^record\.markets takes COIN:TYPE pairs/);
    await expect(startServer({ store: db, record: { markets: ['BTC-5m'] } })).rejects.toThrow(/^record\.markets takes COIN:TYPE pairs.*got "BTC-5m"/);
    await expect(startServer({ store: db, record: { markets: ['DOGE:5m'] } })).rejects.toThrow(UsageError);
    await expect(startServer({ store: db, live: true, record: { markets: ['BTC:5m'] } })).rejects.toThrow(/neither live nor replay/);
    await expect(startServer({ store: db, replay: { from: '1h' }, record: { markets: ['BTC:5m'] } })).rejects.toThrow(/neither live nor replay/);
  });
});
