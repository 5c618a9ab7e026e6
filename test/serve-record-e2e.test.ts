// End to end: `msnap serve --record BTC:5m` (the built CLI) against a fake Polymarket (Gamma over
// HTTP, the CLOB market channel and RTDS over WebSockets). The serve process's clock is set a few
// seconds before a 5-minute boundary, so market A ends and market B opens while a client watches:
// both appear in every API version, /v1/stream pushes each snapshot as it is written, the frames
// equal the stored snapshots, and SIGTERM writes what was received and exits 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, msnap, startServe } from './support/msnap-process.js';
import { openStream, type Frame } from './support/stream-client.js';
import { until } from './support/until.js';
import { DIALECTS, dialectMarketIds, dialectSnapshots } from './support/dialect-snapshots.js';
import { startFakePolymarketSockets } from '../src/realdata/test-support/fake-polymarket-sockets.js';
import { startFakeSources } from '../src/realdata/test-support/fake-sources-server.js';
import { FakeMarketFeed } from '../src/realdata/test-support/fake-market-feed.js';
import type { GammaMarketSpec } from '../src/realdata/test-support/gamma-fixture.js';
import { scenarioMarket } from '../src/realdata/test-support/pmxt-scenarios.js';

const FIVE_MIN = 300_000;
const HOUR = 3_600_000;
let dir: string;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-serve-record-'));
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function recordedThrough(db: string): number | null {
  const sql = new Database(db, { readonly: true });
  try {
    return sql.prepare('SELECT max(to_ms) FROM realdata_spans').pluck().get() as number | null;
  } finally {
    sql.close();
  }
}

describe('msnap serve --record', () => {
  it('records while serving: markets in every API version, the stream equal to the store, SIGTERM flushes', async () => {
    // Serve's clock (and the fake's) runs at wall speed from 6 s before a boundary in the past.
    const boundary = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR + 30 * 60_000;
    const offset = boundary - 6_000 - Date.now();
    const now = () => Date.now() + offset;
    const specs: GammaMarketSpec[] = [boundary - FIVE_MIN, boundary].map((start) => {
      const m = scenarioMarket(`serve-rec-${start}`, start, start + FIVE_MIN);
      return { slug: `btc-updown-5m-${start / 1000}`, conditionId: m.conditionId, tokenUp: m.tokenUp, tokenDown: m.tokenDown, start, end: start + FIVE_MIN };
    });
    const [idA, idB] = specs.map((s) => `btc-updown-5m-${s.start / 1000}`) as [string, string];
    const sources = await startFakeSources({ gamma: specs });
    const sockets = await startFakePolymarketSockets();
    const feed = new FakeMarketFeed(sockets, now, specs.map((s) => ({ ...s })), [{ symbol: 'btc/usd', price: 84_000 }], 11);
    feed.start();
    const db = path.join(dir, 'served.db');
    const key = await createKey(db, 'rec-bot', 'pro');
    const env = { MSNAP_CLOCK_OFFSET_MS: String(offset), MSNAP_RTDS_URL: sockets.rtdsUrl };
    // The CLOB and Gamma URLs by flag, RTDS's by its environment variable.
    const served = await startServe(db, { env, args: ['--record', 'btc:5m', '--clob-url', sockets.clobUrl, '--gamma-url', sources.url] });
    const received: { at: number; frame: Frame }[] = [];
    const stream = openStream(served.url, { token: key });
    try {
      stream.ws.on('message', (data) => received.push({ at: now(), frame: JSON.parse(data.toString()) as Frame }));
      await stream.opened;
      stream.ws.send(JSON.stringify({ type: 'subscribe', coins: ['btc'], market_types: ['5m'], orderbook: true }));
      await until(() => now() >= boundary + 4_000, 'the clock past the boundary', 30_000, 50);

      for (const dialect of DIALECTS) expect(await dialectMarketIds(served.url, key, dialect, 'BTC')).toEqual([idB, idA]);
      for (const id of [idA, idB]) {
        const v1 = await dialectSnapshots(served.url, key, 'v1', id, 'btc');
        expect(v1.length, id).toBeGreaterThan(8);
        expect(v1[0]!.orderbook_up).toBeDefined();
        // v2 and v4 show the same snapshots (read a moment later: the store grows in between).
        for (const dialect of ['v2', 'v4'] as const) {
          const other = await dialectSnapshots(served.url, key, dialect, id, 'btc');
          expect(other.slice(0, v1.length), `${dialect} ${id}`).toEqual(v1);
        }
      }
      const snaps = received.filter((r) => r.frame.type === 'snapshot').map((r) => ({ at: r.at, s: r.frame.snapshot as { market_id: string; time: number } }));
      // Written about the recorder's lag (1 s) and a flush after its time; streamed within a second of that.
      for (const { at, s } of snaps) expect(at - s.time).toBeLessThan(1_000 + 250 + 1_000);
      const kinds = received.map((r) => [r.frame.type, ((r.frame.market ?? r.frame.snapshot) as { market_id?: string } | undefined)?.market_id]);
      expect(kinds).toContainEqual(['market_open', idB]);
      for (const id of [idA, idB]) {
        const mine = snaps.filter((x) => x.s.market_id === id).map((x) => x.s);
        expect(mine.length, id).toBeGreaterThan(0);
        const stored = await dialectSnapshots(served.url, key, 'v1', id, 'btc');
        expect(mine).toEqual(stored.filter((x) => x.time >= mine[0]!.time && x.time <= mine.at(-1)!.time));
      }
    } finally {
      stream.ws.close();
      feed.stop();
    }
    const stoppedAt = now();
    const r = await served.stop();
    await sockets.close();
    await sources.close();
    expect(r.exitCode, served.output()).toBe(0);
    expect(served.output()).toContain(`msnap serve: record: clob: connected to ${sockets.clobUrl}`);
    expect(served.output()).toContain(`msnap serve: record: rtds: connected to ${sockets.rtdsUrl}`);
    // Everything received before the stop is written: the span ends at the stop, not a lag before it.
    expect(recordedThrough(db)).toBeGreaterThanOrEqual(stoppedAt);
    const markets = await msnap(['markets', '--db', db, '--coin', 'btc', '--json', '--quiet'], { cwd: dir });
    expect(markets.exitCode, markets.stderr).toBe(0);
    expect((JSON.parse(markets.stdout) as { market_id: string }[]).map((m) => m.market_id)).toEqual([idB, idA]);
  }, 90_000);

  it('refuses --record with --replay or a bad pair, in one line with exit 2', async () => {
    for (const args of [
      ['serve', '--db', path.join(dir, 'x.db'), '--record', 'BTC:5m', '--replay', '1h'],
      ['serve', '--db', path.join(dir, 'x.db'), '--record', 'BTC-5m'],
      ['serve', '--db', path.join(dir, 'x.db'), '--record', 'DOGE:5m'],
      ['serve', '--db', path.join(dir, 'x.db'), '--clob-url', 'ws://127.0.0.1:1'],
    ]) {
      const r = await msnap(args, { cwd: dir });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });
});
