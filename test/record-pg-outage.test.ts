// `msnap record` into a PostgreSQL server that goes away mid-recording (a throwaway server of its
// own, stopped as an operator's restart stops it): back within the recorder's patience, nothing is
// lost (the frames held while it was down are written once it is back, no gap, equal to the
// reference); away for longer, the run ends with one line and exit code 7, and what was committed
// before stays whole.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeError, EXIT } from '../src/errors.js';
import { buildIfStale, msnap } from './support/msnap-process.js';
import { record, sleep, TIMINGS, until, world } from './support/record-world.js';
import { skipWithoutPostgres, startThrowawayPostgres, type ThrowawayPostgres } from './support/throwaway-postgres.js';
import { chainlinkPoints, clobRows, readRawDir } from '../src/realdata/test-support/raw-frames-pmxt.js';
import { referenceNdjson, referenceSnapshots } from '../src/realdata/test-support/reference-snapshots.js';
import type { GammaMarketSpec } from '../src/realdata/test-support/gamma-fixture.js';

let dir: string;

beforeAll(async () => {
  if (skipWithoutPostgres('msnap record through a PostgreSQL outage')) return;
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-record-outage-'));
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Rows of a query, or [] while the server is down or the schema not made yet. */
async function rows<T>(sql: postgres.Sql, query: string): Promise<T[]> {
  try {
    return [...(await sql.unsafe<T[]>(query))];
  } catch {
    return [];
  }
}

describe.skipIf(skipWithoutPostgres('msnap record through a PostgreSQL outage'))('msnap record through a PostgreSQL outage', () => {
  let server: ThrowawayPostgres;
  let sql: postgres.Sql;

  beforeAll(async () => {
    server = await startThrowawayPostgres();
    sql = postgres(server.url, { max: 1, onnotice: () => undefined, types: { int8: { to: 20, from: [20], serialize: String, parse: Number } } });
  }, 60_000);

  afterAll(async () => {
    await sql?.end({ timeout: 1 });
    await server?.destroy();
  });

  it('holds the frames while PostgreSQL restarts and writes them once it is back: no gap, equal to the reference', async () => {
    const w = await world(31);
    const raw = path.join(dir, 'restart-raw');
    const [a, b] = w.specs as [GammaMarketSpec, GammaMarketSpec];
    const ids = [a, b].map((s) => `btc-updown-5m-${s.start / 1000}`);
    let restarted = false;
    let winnerB = false;
    w.feed.start();
    const resolve = w.resolveLate(10_000);
    // Down for 2 s of real time (50 s of the clock) across A's end and B's start.
    const outage = (async () => {
      await until(async () => (await rows<{ n: number }>(sql, 'SELECT snapshot_count AS n FROM msnap.markets WHERE snapshot_count > 0')).length > 0, 60_000);
      await server.stop();
      await sleep(2_000);
      await server.restart();
      restarted = true;
    })();
    let log: string;
    try {
      ({ log } = await record(w, server.url, raw, () => restarted && winnerB, () => {
        resolve();
        void rows<{ winner: string | null }>(sql, `SELECT winner FROM msnap.markets WHERE market_id = '${ids[1]}'`).then((r) => (winnerB ||= r[0]?.winner != null));
      }, { ...TIMINGS, storeRetryMs: 100, storeOutageMs: 60_000 }));
    } finally {
      await outage;
      w.feed.stop();
      await w.sockets.close();
      await w.sources.close();
    }
    expect(log).toMatch(/msnap: store: failed to write \(PostgreSQL unavailable .*\); holding the frames and trying again for up to 60 s/);
    expect(log).toMatch(/msnap: store: reachable again after [\d.]+ s; the frames held are written/);
    const spans = await rows<{ from: number; to: number }>(sql, "SELECT from_ms AS from, to_ms AS to FROM msnap.realdata_spans WHERE source = 'clob' ORDER BY from_ms");
    // The market channel stayed connected: one span, no gap where the database was away.
    expect(spans).toHaveLength(1);
    const lines = readRawDir(raw);
    for (const [s, id] of [[a, ids[0]!], [b, ids[1]!]] as const) {
      const [m] = await rows<{ id: number; snapshot_count: number }>(sql, `SELECT id, snapshot_count FROM msnap.markets WHERE market_id = '${id}'`);
      const got = await msnap(['snapshots', id, '--db', server.url, '--orderbook', '--ndjson', '--quiet'], { cwd: dir, keepFinalNewline: true });
      expect(got.exitCode, got.stderr).toBe(0);
      const ref = referenceSnapshots(
        clobRows(lines),
        { marketId: id, start: s.start, end: s.end, tokenUp: s.tokenUp, tokenDown: s.tokenDown, conditionId: s.conditionId, marketRowid: m!.id },
        chainlinkPoints(lines, 'btc/usd'),
        { coverage: spans },
      );
      expect(ref.length).toBeGreaterThan(200);
      expect(got.stdout).toBe(referenceNdjson(ref));
      expect(m!.snapshot_count).toBe(ref.length);
    }
  }, 120_000);

  it('gives up after the outage lasts longer: one line, exit code 7, what was committed before stays', async () => {
    // A database of its own on the same server: the same windows as the test before.
    await sql.unsafe('CREATE DATABASE gone');
    await sql.end({ timeout: 1 });
    const url = server.url.replace(/\/[^/]*$/, '/gone');
    sql = postgres(url, { max: 1, onnotice: () => undefined });
    const w = await world(32);
    let committed = 0;
    w.feed.start();
    let failure: unknown;
    const down = (async () => {
      await until(async () => {
        committed = (await rows<{ n: number }>(sql, 'SELECT sum(snapshot_count)::int AS n FROM msnap.markets'))[0]?.n ?? 0;
        return committed > 100;
      }, 60_000);
      await server.stop();
    })();
    try {
      await record(w, url, path.join(dir, 'gone-raw'), () => false, () => undefined, { ...TIMINGS, storeRetryMs: 100, storeOutageMs: 1_500 });
    } catch (err) {
      failure = err;
    } finally {
      await down;
      w.feed.stop();
      await w.sockets.close();
      await w.sources.close();
    }
    const { lines, exitCode } = describeError(failure);
    expect(exitCode).toBe(EXIT.unreachable);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^msnap: PostgreSQL unavailable \(\w+\): .*; stopped after \d+ s of trying to write \(what was received since the last batch written is not in the store; --raw files keep it\)$/);
    await server.restart();
    const [after] = await rows<{ n: number }>(sql, 'SELECT sum(snapshot_count)::int AS n FROM msnap.markets');
    expect(after!.n).toBeGreaterThanOrEqual(committed);
    // Summaries agree with the blocks: no batch was half-written.
    const [blocks] = await rows<{ n: number }>(sql, 'SELECT sum(n)::int AS n FROM msnap.snapshot_blocks');
    expect(blocks!.n).toBe(after!.n);
  }, 120_000);
});
