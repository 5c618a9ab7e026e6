// End to end: a fake Polymarket (Gamma over HTTP, the CLOB market channel and RTDS over
// WebSockets) plays two BTC 5m markets across a rollover on a fast clock shared by the feed and
// `msnap record` (run in process through its run function, so the test owns the clock). The store
// must hold both markets resolved with Gamma's winners, price_start / price_end from the recorded
// Chainlink prices, and snapshots equal byte for byte to the reference reconstruction of the
// frames as received (read back from the --raw files) and to an archive import of the same events.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, msnap, spawnMsnap, startServe } from './support/msnap-process.js';
import { openStream, type Frame } from './support/stream-client.js';
import { DIALECTS, dialectMarketIds, dialectSnapshots } from './support/dialect-snapshots.js';
import { realMarket } from '../src/realdata/import/import-sources.js';
import { importPolymarket } from '../src/realdata/import/polymarket-import.js';
import { fetchGammaMarkets } from '../src/realdata/gamma/gamma-fetch.js';
import { ChainlinkPrices } from '../src/realdata/live/chainlink-prices.js';
import { parseScaled } from '../src/realdata/mapping/decimal.js';
import { startFakePolymarketSockets } from '../src/realdata/test-support/fake-polymarket-sockets.js';
import { startFakeSources } from '../src/realdata/test-support/fake-sources-server.js';
import { FakeMarketFeed } from '../src/realdata/test-support/fake-market-feed.js';
import type { GammaMarketSpec } from '../src/realdata/test-support/gamma-fixture.js';
import { FAST_RETRY } from '../src/realdata/test-support/local-http.js';
import { pmxtFileBytes } from '../src/realdata/test-support/pmxt-fixture.js';
import { scenarioMarket, splitIntoHourFiles } from '../src/realdata/test-support/pmxt-scenarios.js';
import { chainlinkPoints, clobRows, readRawDir } from '../src/realdata/test-support/raw-frames-pmxt.js';
import { referenceNdjson, referencePriceAt, referenceSnapshots } from '../src/realdata/test-support/reference-snapshots.js';
import { openBulkStore } from '../src/store/open-store.js';
import { FIVE_MIN, record, sleep, TIMINGS, until, world } from './support/record-world.js';

let dir: string;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-record-'));
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function snapshotsOf(db: string, id: string): Promise<string> {
  const r = await msnap(['snapshots', id, '--db', db, '--orderbook', '--ndjson', '--quiet'], { cwd: dir, keepFinalNewline: true });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

function marketRow(db: string, id: string) {
  if (!existsSync(db)) return undefined;
  const sql = new Database(db, { readonly: true });
  try {
    return sql.prepare('SELECT id, price_start, price_end, winner, price_source, slug FROM markets WHERE market_id = ?').get(id) as { id: number; price_start: number | null; price_end: number | null; winner: string | null; price_source: string; slug: string };
  } finally {
    sql.close();
  }
}

function spansOf(db: string): { from: number; to: number }[] {
  const sql = new Database(db, { readonly: true });
  try {
    return (sql.prepare("SELECT from_ms, to_ms FROM realdata_spans WHERE source = 'clob' ORDER BY from_ms").raw(true).all() as [number, number][]).map(([from, to]) => ({ from, to }));
  } finally {
    sql.close();
  }
}

/** NDJSON snapshots without their ids (row id × 1e8 + offset), for stores that numbered markets in another order. */
function withoutIds(ndjson: string): string {
  return ndjson.replace(/^\{"id":\d+,/gm, '{');
}

/** The reference price rule at a market's edge, as stored (null before the first price). */
function edge(points: Parameters<typeof referencePriceAt>[0], t: number): number | null {
  const p = referencePriceAt(points, t);
  return p === undefined ? null : Number(p);
}

/** What a store's reader and each API version saw, polled together while the recorder writes. */
interface DialectPolls {
  /** Snapshots of A and B each version showed, and when (clock time) it first showed them. */
  seen: Record<(typeof DIALECTS)[number], { time: number; at: number }[]>;
  /** When each version first listed B, and first showed A's winner. */
  listedB: Partial<Record<(typeof DIALECTS)[number], number>>;
  winnerA: Partial<Record<(typeof DIALECTS)[number], number>>;
  winnerWrittenAt: number | undefined;
  /** When each version first answered (what was written before is not news to it). */
  since: Partial<Record<(typeof DIALECTS)[number], number>>;
  /** When the store first held a snapshot at `time` (its batch's span had passed it). */
  writtenAt(time: number): number;
  stop(): Promise<void>;
}

/**
 * Polls, every 200 ms once `url()` is known: the store file (how far it is written, A's winner),
 * then each API version (its newest snapshots of A and B, its market list). A snapshot at `t` is
 * written once the recorded span passes `t` (the span and the snapshots are one transaction).
 */
function pollDialects(db: string, idA: string, idB: string, url: () => string | undefined, keys: Record<(typeof DIALECTS)[number], string>, now: () => number): DialectPolls {
  const written: { through: number; at: number }[] = [];
  const polls: DialectPolls = {
    seen: { v1: [], v2: [], v4: [] },
    listedB: {},
    winnerA: {},
    winnerWrittenAt: undefined,
    since: {},
    writtenAt: (time) => written.find((w) => w.through > time)?.at ?? Infinity,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
  let stopped = false;
  const last: Record<string, number> = {};
  const loop = (async () => {
    while (!stopped) {
      await sleep(200);
      const base = url();
      if (!base || !existsSync(db)) continue;
      const at = now();
      const spans = spansOf(db);
      if (spans.length > 0) written.push({ through: spans.at(-1)!.to, at });
      if (polls.winnerWrittenAt === undefined && marketRow(db, idA)?.winner != null) polls.winnerWrittenAt = at;
      await Promise.all(
        DIALECTS.map(async (d) => {
          const ids = await dialectMarketIds(base, keys[d], d, 'BTC').catch(() => []);
          if (ids.length > 0) polls.since[d] ??= at;
          if (ids.includes(idB)) polls.listedB[d] ??= at;
          for (const id of ids.includes(idB) ? [idA, idB] : ids.includes(idA) ? [idA] : []) {
            for (const s of await dialectSnapshots(base, keys[d], d, id, 'btc')) {
              if (s.time <= (last[`${d}${id}`] ?? -Infinity)) continue;
              last[`${d}${id}`] = s.time;
              polls.seen[d].push({ time: s.time, at });
            }
          }
          if (polls.winnerA[d] === undefined && (await marketWinner(base, keys[d], d, idA)) === 'Up') polls.winnerA[d] = at;
        }),
      );
    }
  })();
  return polls;
}

/** A market's winner as a version serves it. */
async function marketWinner(url: string, key: string, dialect: (typeof DIALECTS)[number], id: string): Promise<string | null> {
  const path = dialect === 'v1' ? `/v1/markets/${id}` : `/${dialect}/markets/${id}?coin=btc`;
  const res = await fetch(`${url}${path}`, { headers: { 'X-API-Key': key } });
  return res.status === 200 ? ((await res.json()) as { winner: string | null }).winner : null;
}

describe('msnap record', () => {
  it('records two markets across a rollover: equal to the reference and to an import of the same events', async () => {
    const w = await world(1);
    const db = path.join(dir, 'plain.db');
    const raw = path.join(dir, 'plain-raw');
    w.feed.start();
    const resolve = w.resolveLate(3_000);
    try {
      const { status, log } = await record(w, db, raw, () => marketRow(db, `btc-updown-5m-${w.boundary / 1000}`)?.winner != null, resolve);
      expect(status.marketsAdded).toBe(2);
      expect(status.badFrames).toBeGreaterThan(0);
      expect(log).toMatch(/skipped a bad frame/);
      // The next market's tokens were subscribed before it opened.
      const subs = w.sockets.received.clob.join('\n');
      expect(subs).toContain(w.specs[1]!.tokenUp);
      // The ended market's tokens left the channel.
      expect(w.sockets.received.clob).toContainEqual(JSON.stringify({ operation: 'unsubscribe', assets_ids: [w.specs[0]!.tokenUp, w.specs[0]!.tokenDown] }));
    } finally {
      w.feed.stop();
      await w.sockets.close();
    }
    const lines = readRawDir(raw);
    const rows = clobRows(lines);
    const points = chainlinkPoints(lines, 'btc/usd');
    const spans = spansOf(db);
    expect(spans.length).toBe(1);

    // The same events as an archive import, with the same Chainlink prices.
    const importDb = path.join(dir, 'plain-import.db');
    const prices = new ChainlinkPrices();
    for (const p of points) prices.add({ coin: 'BTC', ts: p.knownAt, price: parseScaled(p.value, 4) });
    const gamma = await fetchGammaMarkets(w.sources.url, w.specs.map((s) => s.slug), FAST_RETRY);
    const files = splitIntoHourFiles(rows);
    const store = await openBulkStore(importDb);
    try {
      await importPolymarket(store.bulk, {
        files: files.map((f) => ({ name: f.name, open: async () => { const b = await pmxtFileBytes(f.rows); return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer; } })),
        markets: gamma.markets.map(realMarket),
        prices: () => prices.priceAt('BTC'),
        priceSource: 'chainlink',
      });
    } finally {
      await store.close();
    }
    // The raw files read back by the import rebuild the same store.
    const rebuilt = path.join(dir, 'plain-rebuilt.db');
    const back = await msnap(['import', 'polymarket', raw, '--db', rebuilt, '--gamma-url', w.sources.url, '--coin', 'btc', '--type', '5m'], { cwd: dir });
    await w.sources.close();
    expect(back.exitCode, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/^imported 1 raw file into .*: 2 markets \(2 new, 0 unresolved\), [\d,]+ snapshots, 0 gaps;/);

    for (const s of w.specs) {
      const id = `btc-updown-5m-${s.start / 1000}`;
      const got = await snapshotsOf(db, id);
      const m = marketRow(db, id)!;
      const ref = referenceNdjson(referenceSnapshots(rows, { marketId: id, start: s.start, end: s.end, tokenUp: s.tokenUp, tokenDown: s.tokenDown, conditionId: s.conditionId, marketRowid: m.id }, points, { coverage: spans }));
      expect(got.length).toBeGreaterThan(1000);
      expect(got).toBe(ref);
      // The import numbers its markets in archive order: snapshot ids differ by the row id alone.
      expect(withoutIds(await snapshotsOf(importDb, id))).toBe(withoutIds(got));
      expect(await snapshotsOf(rebuilt, id)).toBe(got);
      expect(marketRow(rebuilt, id)).toEqual(m);
      expect(m.price_source).toBe('chainlink');
      expect(m.price_start).toBe(edge(points, s.start));
      expect(m.price_end).toBe(edge(points, s.end));
    }
    expect(marketRow(db, `btc-updown-5m-${w.specs[0]!.start / 1000}`)?.winner).toBe('Up');
    expect(marketRow(db, `btc-updown-5m-${w.specs[1]!.start / 1000}`)?.winner).toBe('Down');
  }, 120_000);

  it('keeps a drop, a stall and a restart mid-market as gaps, adds nothing twice, and still resolves both markets', async () => {
    const w = await world(2);
    const db = path.join(dir, 'faults.db');
    const raw = path.join(dir, 'faults-raw');
    const [a, b] = w.specs as [GammaMarketSpec, GammaMarketSpec];
    const idA = `btc-updown-5m-${a.start / 1000}`;
    const idB = `btc-updown-5m-${b.start / 1000}`;
    w.feed.start();
    const resolve = w.resolveLate(10_000);
    let dropped = false;
    let stalled = false;
    let second: Awaited<ReturnType<typeof record>>;
    let first: Awaited<ReturnType<typeof record>>;
    try {
      first = await record(w, db, raw, () => w.now() >= w.boundary + 150_000, () => {
        resolve();
        if (!dropped && w.now() >= w.boundary + 40_000) {
          dropped = true;
          w.sockets.dropMidFrame('clob', JSON.stringify([{ event_type: 'last_trade_price', asset_id: b.tokenUp, market: b.conditionId, price: '0.55', size: '10', fee_rate_bps: '0', side: 'BUY', timestamp: String(w.now()), transaction_hash: '0x1' }]));
        }
        if (!stalled && w.now() >= w.boundary + 90_000) {
          stalled = true;
          w.sockets.stall('clob');
        }
      });
      // The recorder is away for a while (a restart mid-market B), then resumes on the same store.
      await sleep(300);
      second = await record(w, db, raw, () => marketRow(db, idB)?.winner != null, resolve);
    } finally {
      w.feed.stop();
      await w.sockets.close();
      await w.sources.close();
    }
    expect(first.status.gaps).toBe(2);
    expect(first.log).toMatch(/clob: no frame for/);
    expect(second.status.marketsAdded).toBe(0);
    expect(w.sockets.connections.clob).toBe(4);

    const lines = readRawDir(raw);
    const rows = clobRows(lines);
    const points = chainlinkPoints(lines, 'btc/usd');
    const spans = spansOf(db);
    // Connected from the start to the drop, to the stall, to the stop; and from the restart on.
    expect(spans).toHaveLength(4);
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.from).toBeGreaterThan(spans[i - 1]!.to);
    for (const [s, id] of [[a, idA], [b, idB]] as const) {
      const m = marketRow(db, id)!;
      const got = await snapshotsOf(db, id);
      const ref = referenceSnapshots(rows, { marketId: id, start: s.start, end: s.end, tokenUp: s.tokenUp, tokenDown: s.tokenDown, conditionId: s.conditionId, marketRowid: m.id }, points, { coverage: spans });
      expect(got).toBe(referenceNdjson(ref));
      expect(m.price_start).toBe(edge(points, s.start));
      expect(m.price_end).toBe(edge(points, s.end));
    }
    // No snapshot in the gaps of market B.
    const times = (await snapshotsOf(db, idB)).trim().split('\n').map((l) => (JSON.parse(l) as { time: number }).time);
    for (let i = 1; i < spans.length; i++) expect(times.some((t) => t >= spans[i - 1]!.to && t < spans[i]!.from)).toBe(false);
    expect(marketRow(db, idA)?.winner).toBe('Up');
    expect(marketRow(db, idB)?.winner).toBe('Down');
  }, 120_000);

  it('a serve on the store being recorded shows each snapshot in every API version and the stream within a second of its being written, markets opening and resolving', async () => {
    // Real time this once (the recorder's own flush and lag), the clock set 6 s before the boundary.
    const w = await world(3, { speed: 1, lead: 6_000 });
    const offset = w.now() - Date.now();
    const db = path.join(dir, 'served.db');
    const key = await createKey(db, 'rec-bot', 'pro');
    // One key per API version: each polls at its own pace, within its own rate limit.
    const keys = { v1: await createKey(db, 'rec-v1', 'pro'), v2: await createKey(db, 'rec-v2', 'pro'), v4: await createKey(db, 'rec-v4', 'pro') };
    const [a, b] = w.specs as [GammaMarketSpec, GammaMarketSpec];
    const [idA, idB] = [a, b].map((s) => `btc-updown-5m-${s.start / 1000}`) as [string, string];
    w.feed.start();
    const resolve = w.resolveLate(500);
    const received: { at: number; frame: Frame }[] = [];
    let served: Awaited<ReturnType<typeof startServe>> | undefined;
    let stream: ReturnType<typeof openStream> | undefined;
    const polls = pollDialects(db, idA, idB, () => served?.url, keys, w.now);
    try {
      await record(
        w,
        db,
        path.join(dir, 'served-raw'),
        () => w.now() >= w.boundary + 5_000,
        () => {
          resolve();
          if (served || spansOf(db).length === 0) return;
          served = {} as never;
          void (async () => {
            served = await startServe(db, { env: { MSNAP_CLOCK_OFFSET_MS: String(offset) } });
            stream = openStream(served.url, { token: key });
            stream.ws.on('message', (data) => received.push({ at: Date.now() + offset, frame: JSON.parse(data.toString()) as Frame }));
            await stream.opened;
            stream.ws.send(JSON.stringify({ type: 'subscribe', coins: ['btc'], market_types: ['5m'], orderbook: true }));
          })();
        },
        { ...TIMINGS, flushMs: 250, lagMs: 1_000 },
      );
      await sleep(1_500);
    } finally {
      await polls.stop();
      w.feed.stop();
      await w.sockets.close();
      await w.sources.close();
    }
    try {
      // Each version showed each snapshot within a second of the store's holding it, and A's winner likewise.
      for (const d of DIALECTS) {
        const seen = polls.seen[d].filter((x) => polls.writtenAt(x.time) >= polls.since[d]!);
        expect(seen.length, d).toBeGreaterThan(30);
        for (const x of seen) expect(x.at - polls.writtenAt(x.time), `${d} snapshot ${x.time}`).toBeLessThanOrEqual(1_000);
        expect(polls.listedB[d], `${d} lists B`).toBeDefined();
        expect(polls.winnerA[d], `${d} shows A's winner`).toBeDefined();
        expect(polls.winnerA[d]! - polls.winnerWrittenAt!, `${d} shows A's winner`).toBeLessThanOrEqual(1_000);
      }
      const snaps = received.filter((r) => r.frame.type === 'snapshot').map((r) => ({ at: r.at, s: r.frame.snapshot as { market_id: string; time: number } }));
      expect(snaps.length).toBeGreaterThan(40);
      // Written about lag + one flush after its time; shown within a second of that.
      for (const { at, s } of snaps) expect(at - s.time).toBeLessThan(1_000 + 250 + 1_000);
      const types = received.map((r) => [r.frame.type, ((r.frame.market ?? r.frame.snapshot) as { market_id?: string } | undefined)?.market_id]);
      expect(types).toContainEqual(['market_resolved', `btc-updown-5m-${a.start / 1000}`]);
      expect(types).toContainEqual(['market_open', `btc-updown-5m-${b.start / 1000}`]);
      // The stream's frames equal the stored snapshots over what it streamed.
      for (const id of [`btc-updown-5m-${a.start / 1000}`, `btc-updown-5m-${b.start / 1000}`]) {
        const mine = snaps.filter((x) => x.s.market_id === id).map((x) => x.s);
        const page = (await (await fetch(`${served!.url}/v1/markets/${id}/snapshots?limit=10000&include_orderbook=true`, { headers: { 'X-API-Key': key } })).json()) as { snapshots: { time: number }[] };
        expect(mine.length).toBeGreaterThan(0);
        expect(mine).toEqual(page.snapshots.filter((x) => x.time >= mine[0]!.time && x.time <= mine.at(-1)!.time));
      }
    } finally {
      stream?.ws.close();
      await served?.stop();
    }
  }, 120_000);

  it('the built command takes its URLs from the environment, and SIGTERM flushes and exits 0 with the summary', async () => {
    // Real time: the fake's markets are the current and next real windows.
    const start = Math.floor(Date.now() / FIVE_MIN) * FIVE_MIN;
    const specs: GammaMarketSpec[] = [start, start + FIVE_MIN].map((st) => {
      const m = scenarioMarket(`rec-cli-${st}`, st, st + FIVE_MIN);
      return { slug: `btc-updown-5m-${st / 1000}`, conditionId: m.conditionId, tokenUp: m.tokenUp, tokenDown: m.tokenDown, start: st, end: st + FIVE_MIN };
    });
    const sources = await startFakeSources({ gamma: specs });
    const sockets = await startFakePolymarketSockets();
    const feed = new FakeMarketFeed(sockets, () => Date.now(), specs.map((m) => ({ ...m })), [{ symbol: 'btc/usd', price: 84_000 }], 4);
    feed.start();
    const db = path.join(dir, 'cli.db');
    try {
      const proc = spawnMsnap(['record', 'btc', '5m', '--db', db, '--verbose'], { env: { MSNAP_CLOB_WS_URL: sockets.clobUrl, MSNAP_RTDS_URL: sockets.rtdsUrl, MSNAP_GAMMA_URL: sources.url } });
      let err = '';
      proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      // The store may exist before its tables do (the recorder is still opening it).
      const recorded = () => {
        try {
          return existsSync(db) && spansOf(db).some((sp) => sp.to > sp.from + 2_000);
        } catch {
          return false;
        }
      };
      await until(recorded, 30_000);
      proc.kill('SIGTERM');
      const r = await proc;
      expect(r.exitCode, err).toBe(0);
      expect(String(r.stdout)).toMatch(/^recorded into .*cli\.db: 2 new markets, [\d,]+ snapshots?, 0 gaps, [\d,]+ frames \(\d+ bad\)/);
      expect(err).toContain(`clob: connected to ${sockets.clobUrl}`);
      expect(err).toContain(`rtds: connected to ${sockets.rtdsUrl}`);
      // Everything received before the stop is decided: the span ends at the stop, not a lag before it.
      const last = spansOf(db).at(-1)!;
      expect(Date.now() - last.to).toBeLessThan(5_000);
    } finally {
      feed.stop();
      await sockets.close();
      await sources.close();
    }
  }, 60_000);
});
