// End to end: the built `msnap serve --demo` (live by default) over a small seeded file, its clock
// shifted with MSNAP_CLOCK_OFFSET_MS to a few seconds before a 5m boundary, observed with the
// built CLI across that boundary.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketId, MARKET_DETAIL_FIELDS } from '../src/domain/market.js';
import { openSqliteStore } from '../src/store/sqlite/open.js';
import { buildIfStale, msnap } from './support/msnap-process.js';
import { startLiveDemo } from './support/live-demo.js';

const FIVE_MIN = 300_000;
let dir: string;
let env: Record<string, string>;
let boundary: number;
let stop: () => Promise<unknown>;

/** The test's view of the served clock. */
const served = () => Date.now() + Number(env.MSNAP_CLOCK_OFFSET_MS);

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-live-e2e-'));
  const demo = await startLiveDemo(dir);
  ({ boundary, env } = demo);
  expect(demo.stderr()).toMatch(/msnap serve: live: seed 1 runs on; caught up \d+ snapshots/);
  stop = demo.stop;
}, 120_000);

afterAll(async () => {
  await stop?.();
  rmSync(dir, { recursive: true, force: true });
});

async function seedWith(db: string, e: Record<string, string>): Promise<void> {
  const r = await msnap(['serve', 'seed', '--db', db, '--days', '1', '--full', '5m=2,15m=0,1hr=0,4hr=0,24hr=0'], { env: e, timeout: 60_000, cwd: dir });
  if (r.exitCode !== 0) throw new Error(`seed failed: ${r.stderr}`);
}

async function json<T>(args: string[]): Promise<T> {
  const r = await msnap([...args, '--json'], { env, cwd: dir });
  if (r.exitCode !== 0) throw new Error(`msnap ${args.join(' ')} failed (${r.exitCode}): ${r.stderr}`);
  return JSON.parse(String(r.stdout)) as T;
}

interface Market {
  market_id: string;
  end_time: number;
  status: string;
  price_start: number;
  price_end: number | null;
  winner: string | null;
  snapshot_count: number;
}

const market = async (start: number) => (await json<Market[]>(['markets', '--coin', 'BTC', '--type', '5m', '--from', String(start), '--to', String(start + 1)]))[0];

/** Polls the served world (the test waits for the server's clock, it cannot move it). */
async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('msnap serve --live across a market boundary', () => {
  it('answers `at BTC 5m now`, grows the active market, then resolves it and opens the next', async () => {
    const before = boundary - FIVE_MIN;
    expect(served()).toBeLessThan(boundary - 2000);
    const at = await json<{ market_id: string; delta_ms: number }>(['at', 'BTC', '5m', 'now']);
    expect(at.market_id).toBe(marketId('BTC', '5m', before));
    expect(Math.abs(at.delta_ms)).toBeLessThanOrEqual(2000);

    const first = await market(before);
    expect(first).toMatchObject({ status: 'active', price_end: null, winner: null });
    await until('the active market grows', () => market(before), (m) => m.snapshot_count > first.snapshot_count);

    await until('the boundary passes on the served clock', async () => served(), (t) => t > boundary + 1500);
    const ended = await market(before);
    expect(ended.status).toBe('resolved');
    expect(ended.snapshot_count).toBe(2400);
    expect(ended.price_end).not.toBeNull();
    expect(ended.winner).toBe(ended.price_end! >= ended.price_start ? 'Up' : 'Down');
    const next = await market(boundary);
    expect(next.status).toBe('active');
    expect(next.snapshot_count).toBeGreaterThan(0);
    expect((await json<{ market_id: string }>(['at', 'BTC', '5m', 'now'])).market_id).toBe(next.market_id);

    // A seed made now, with the same seed, holds the same ended market, snapshot for snapshot.
    const later = path.join(dir, 'later.db');
    await seedWith(later, { MSNAP_CLOCK_OFFSET_MS: env.MSNAP_CLOCK_OFFSET_MS! });
    const store = openSqliteStore(later);
    try {
      // The CLI shows the contract's fields; the served market's descriptive fields match too.
      const seeded = (await store.getMarket(ended.market_id, served()))!;
      expect(seeded).toMatchObject(ended);
      const res = await fetch(`${env.MSNAP_BASE_URL}/v1/markets/${ended.market_id}`, { headers: { 'X-API-Key': env.MSNAP_API_KEY! } });
      const servedMarket = (await res.json()) as Record<string, unknown>;
      // The seed drew its resolution up to 10 minutes after the end, 1.5 s ago: nothing the server
      // reports lies after its own clock (the Date header, whole seconds).
      const serverNow = Date.parse(res.headers.get('date')!) + 999;
      const drawn = (await store.getMarket(ended.market_id, Number.MAX_SAFE_INTEGER))!;
      for (const field of MARKET_DETAIL_FIELDS) {
        if (field === 'resolved_at' || field === 'updated_at') {
          const v = servedMarket[field] as number | null;
          const notYet = field === 'resolved_at' ? null : ended.end_time;
          // Reached: the drawn time; not yet: resolved_at stays null, updated_at is the market's end.
          if (drawn[field]! <= serverNow - 999) expect(v, field).toBe(drawn[field]);
          else if (drawn[field]! > serverNow) expect(v, field).toBe(notYet);
          else expect([drawn[field], notYet], field).toContain(v);
        } else {
          expect(servedMarket[field], field).toEqual(seeded[field]);
        }
      }
      expect(drawn.resolved_at).not.toBeNull();
      const values = (list: { time: number; price: number; price_up: number; price_down: number }[]) =>
        list.map((x) => [x.time, x.price, x.price_up, x.price_down]);
      const seededRows = JSON.parse((await store.snapshotPageJson(ended.market_id, { limit: 5000, offset: 0, includeOrderbook: false })).json);
      const servedRows = await json<{ time: number; price: number; price_up: number; price_down: number }[]>(['snapshots', ended.market_id]);
      expect(servedRows).toHaveLength(2400);
      expect(values(servedRows)).toEqual(values(seededRows));
    } finally {
      store.close();
    }
  }, 120_000);
});
