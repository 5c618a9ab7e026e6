// End to end into PostgreSQL: the fake Polymarket of test/record-e2e.test.ts plays two BTC 5m
// markets across a rollover and `msnap record --db postgres://…` writes them into a throwaway
// database. The snapshots served from it must equal, byte for byte, the reference reconstruction of
// the frames as received (the --raw files), over the spans PostgreSQL says were covered, with a
// restart mid-market adding nothing twice, and the raw files read back into another database
// rebuilding the same store; and a built `msnap serve` on that database (another
// process) must show each snapshot and a market's winner within a second of their being written.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, msnap, startServe } from './support/msnap-process.js';
import { dialectMarketIds, dialectSnapshots } from './support/dialect-snapshots.js';
import { databaseAvailable, throwawayDatabase, type ThrowawayDatabase } from './support/throwaway-database.js';
import { record, sleep, TIMINGS, world } from './support/record-world.js';
import { chainlinkPoints, clobRows, readRawDir } from '../src/realdata/test-support/raw-frames-pmxt.js';
import { referenceNdjson, referencePriceAt, referenceSnapshots } from '../src/realdata/test-support/reference-snapshots.js';
import type { GammaMarketSpec } from '../src/realdata/test-support/gamma-fixture.js';

const available = await databaseAvailable();
if (!available) console.warn('skipping "msnap record into PostgreSQL": no PostgreSQL server at 127.0.0.1:5432 and no server binaries');

let dir: string;
let db: ThrowawayDatabase;
let sql: postgres.Sql;

beforeAll(async () => {
  if (!available) return;
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-record-pg-'));
}, 120_000);

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A fresh database per test, and a plain connection to read what the recorder wrote. */
async function freshDatabase(): Promise<string> {
  db = await throwawayDatabase();
  sql = postgres(db.url, { max: 2, onnotice: () => undefined, types: { int8: { to: 20, from: [20], serialize: String, parse: Number } } });
  return db.url;
}

async function dropDatabase(): Promise<void> {
  await sql?.end({ timeout: 1 });
  await db?.destroy();
}

/** A market's row as stored, or undefined (also before the recorder has made the schema). */
async function marketRow(id: string) {
  try {
    const [row] = await sql<{ id: number; price_start: number | null; price_end: number | null; winner: string | null; price_source: string; slug: string; snapshot_count: number }[]>`
      SELECT id, price_start, price_end, winner, price_source, slug, snapshot_count FROM msnap.markets WHERE market_id = ${id}`;
    return row;
  } catch {
    return undefined;
  }
}

async function spansOf(): Promise<{ from: number; to: number }[]> {
  try {
    return await sql<{ from: number; to: number }[]>`SELECT from_ms AS "from", to_ms AS "to" FROM msnap.realdata_spans WHERE source = 'clob' ORDER BY from_ms`;
  } catch {
    return [];
  }
}

async function snapshotsOf(url: string, id: string): Promise<string> {
  const r = await msnap(['snapshots', id, '--db', url, '--orderbook', '--ndjson', '--quiet'], { cwd: dir, keepFinalNewline: true });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

function edge(points: Parameters<typeof referencePriceAt>[0], t: number): number | null {
  const p = referencePriceAt(points, t);
  return p === undefined ? null : Number(p);
}

describe.skipIf(!available)('msnap record into PostgreSQL', () => {
  it('records two markets across a rollover with a restart mid-market: equal to the reference, nothing twice, both resolved', async () => {
    const url = await freshDatabase();
    const w = await world(11);
    const raw = path.join(dir, 'pg-raw');
    const [a, b] = w.specs as [GammaMarketSpec, GammaMarketSpec];
    const [idA, idB] = [a, b].map((s) => `btc-updown-5m-${s.start / 1000}`) as [string, string];
    let winnerB = false;
    w.feed.start();
    const resolve = w.resolveLate(10_000);
    try {
      const first = await record(w, url, raw, () => w.now() >= w.boundary + 100_000, resolve);
      expect(first.status.marketsAdded).toBe(2);
      // The recorder is away for a while (a restart mid-market B), then resumes on the same database.
      await sleep(300);
      const second = await record(w, url, raw, () => winnerB, () => {
        resolve();
        void marketRow(idB).then((m) => (winnerB ||= m?.winner != null));
      });
      expect(second.status.marketsAdded).toBe(0);
    } finally {
      w.feed.stop();
      await w.sockets.close();
    }
    // The raw files read back by the import into another PostgreSQL database rebuild the same store.
    const rebuilt = await throwawayDatabase();
    try {
      const back = await msnap(['import', 'polymarket', raw, '--db', rebuilt.url, '--gamma-url', w.sources.url, '--coin', 'btc', '--type', '5m'], { cwd: dir });
      expect(back.exitCode, back.stderr).toBe(0);
      expect(back.stdout).toMatch(/^imported 1 raw file into .*: 2 markets \(2 new, 0 unresolved\), [\d,]+ snapshots, 1 gap;/);
      for (const id of [idA, idB]) expect(await snapshotsOf(rebuilt.url, id), `${id} rebuilt`).toBe(await snapshotsOf(url, id));
    } finally {
      await w.sources.close();
      await rebuilt.destroy();
    }
    try {
      const lines = readRawDir(raw);
      const rows = clobRows(lines);
      const points = chainlinkPoints(lines, 'btc/usd');
      const spans = await spansOf();
      // Connected from the start to the stop, and from the restart on.
      expect(spans).toHaveLength(2);
      expect(spans[1]!.from).toBeGreaterThan(spans[0]!.to);
      for (const [s, id] of [[a, idA], [b, idB]] as const) {
        const m = (await marketRow(id))!;
        const got = await snapshotsOf(url, id);
        const ref = referenceSnapshots(rows, { marketId: id, start: s.start, end: s.end, tokenUp: s.tokenUp, tokenDown: s.tokenDown, conditionId: s.conditionId, marketRowid: m.id }, points, { coverage: spans });
        expect(ref.length).toBeGreaterThan(200);
        expect(got).toBe(referenceNdjson(ref));
        expect(m.snapshot_count).toBe(ref.length);
        expect(m.price_source).toBe('chainlink');
        expect(m.slug).toBe(id);
        expect(m.price_start).toBe(edge(points, s.start));
        expect(m.price_end).toBe(edge(points, s.end));
      }
      expect((await marketRow(idA))?.winner).toBe('Up');
      expect((await marketRow(idB))?.winner).toBe('Down');
    } finally {
      await dropDatabase();
    }
  }, 120_000);

  it('a serve on the database being recorded shows each snapshot and a winner within a second of its being written', async () => {
    const url = await freshDatabase();
    // Real time (the recorder's own flush and lag), the clock set 6 s before the boundary.
    const w = await world(12, { speed: 1, lead: 6_000 });
    const offset = w.now() - Date.now();
    const made = await msnap(['serve', 'keys', 'create', '--db', url, '--account', 'rec-pg', '--plan', 'pro'], { cwd: dir });
    expect(made.exitCode, made.stderr).toBe(0);
    const key = made.stdout.trim();
    const [a, b] = w.specs as [GammaMarketSpec, GammaMarketSpec];
    const [idA, idB] = [a, b].map((s) => `btc-updown-5m-${s.start / 1000}`) as [string, string];
    const served = await startServe(url, { env: { MSNAP_CLOCK_OFFSET_MS: String(offset) } });
    // What the database held (polled) and what serve showed (polled), both on the test's clock.
    const written: { through: number; at: number }[] = [];
    let winnerWrittenAt: number | undefined;
    let winnerShownAt: number | undefined;
    let listedB: number | undefined;
    const seen: { time: number; at: number }[] = [];
    const last: Record<string, number> = {};
    let stopped = false;
    const poll = (async () => {
      while (!stopped) {
        await sleep(100);
        const at = w.now();
        const spans = await spansOf();
        if (spans.length > 0) written.push({ through: spans.at(-1)!.to, at });
        if (winnerWrittenAt === undefined && (await marketRow(idA))?.winner != null) winnerWrittenAt = at;
        const ids = await dialectMarketIds(served.url, key, 'v1', 'BTC').catch(() => [] as string[]);
        if (ids.includes(idB)) listedB ??= at;
        for (const id of ids.filter((x) => x === idA || x === idB)) {
          for (const s of await dialectSnapshots(served.url, key, 'v1', id, 'btc')) {
            if (s.time <= (last[id] ?? -Infinity)) continue;
            last[id] = s.time;
            seen.push({ time: s.time, at });
          }
        }
        if (winnerShownAt === undefined) {
          const res = await fetch(`${served.url}/v1/markets/${idA}`, { headers: { 'X-API-Key': key } });
          if (res.status === 200 && ((await res.json()) as { winner: string | null }).winner === 'Up') winnerShownAt = at;
        }
      }
    })();
    w.feed.start();
    const resolve = w.resolveLate(500);
    try {
      await record(w, url, path.join(dir, 'served-raw'), () => w.now() >= w.boundary + 5_000, resolve, { ...TIMINGS, flushMs: 250, lagMs: 1_000 });
      await sleep(1_500);
    } finally {
      stopped = true;
      await poll;
      w.feed.stop();
      await w.sockets.close();
      await w.sources.close();
      await served.stop();
    }
    try {
      const writtenAt = (time: number) => written.find((x) => x.through > time)?.at ?? Infinity;
      // What was written before serve first answered is not news to it.
      const since = written[0]?.at ?? Infinity;
      const news = seen.filter((x) => writtenAt(x.time) >= since);
      expect(news.length).toBeGreaterThan(30);
      for (const x of news) expect(x.at - writtenAt(x.time), `snapshot ${x.time}`).toBeLessThanOrEqual(1_000);
      expect(listedB, 'serve lists B').toBeDefined();
      expect(winnerWrittenAt, "A's winner written").toBeDefined();
      expect(winnerShownAt! - winnerWrittenAt!, "serve shows A's winner").toBeLessThanOrEqual(1_000);
    } finally {
      await dropDatabase();
    }
  }, 120_000);
});
