// `msnap pull` into PostgreSQL writes what it writes into SQLite: the same sequence of market() and
// page() calls on both writers (source ids by slot and by ms, an id off its pattern, depth, a row
// outside its market, a page sent twice, rows without usable ids) leaves stores that answer alike.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Market, Snapshot } from '../../domain/market.js';
import { throwawayDatabase, type ThrowawayDatabase } from '../../../test/support/throwaway-database.js';
import { skipWithoutPostgres } from '../../../test/support/throwaway-postgres.js';
import type { Origin } from '../core/mirror-state.js';
import { openSqliteStore } from '../sqlite/open.js';
import type { SqliteStore } from '../sqlite/sqlite-store.js';
import { openPgStore, type PgStore } from '../postgres/pg-store.js';

const ORIGIN: Origin = { baseUrl: 'https://hosted.example', dialect: 'v4', pulledAt: 1_763_900_000_000 };
const NOW = 1_763_900_000_000;

function market(id: string, start: number, ms: number, over: Partial<Market> = {}): Market {
  const [coin, , type] = id.split('-');
  return {
    market_id: id, slug: id, coin: coin!.toUpperCase() as Market['coin'], market_type: type as Market['market_type'], status: 'resolved',
    start_time: start, end_time: start + ms, price_start: null, price_end: null, winner: null, snapshot_count: 0, ...over,
  };
}

function snaps(m: Market, ks: number[], step: number, id: (k: number, t: number) => number, depthEvery = 0): Snapshot[] {
  return ks.map((k) => {
    const t = k * step;
    const s: Snapshot = { id: id(k, t), market_id: m.market_id, time: m.start_time + t, price: 97000 + k * 0.37, price_up: 0.5 + k / 200, price_down: 0.5 - k / 200 };
    if (depthEvery > 0 && k % depthEvery === 0) {
      s.orderbook_up = { bids: [{ price: 0.49, size: k + 1 }], asks: [{ price: 0.5, size: 3 }] };
      s.orderbook_down = { bids: [], asks: [{ price: 0.51, size: 2.25 }] };
    }
    return s;
  });
}

const A = market('btc-updown-5m-1763769600', 1763769600000, 300_000, { price_start: 97123.45 });
const B = market('eth-updown-15m-1763769600', 1763769600000, 900_000);
const C = market('sol-updown-1hr-1763769600', 1763769600000, 3_600_000, { price_start: 200, price_end: 201, winner: 'Up' });
const D = market('sol-updown-5m-1763769900', 1763769900000, 300_000);

/** The pull: every call on the writer, its answers in order. */
async function pull(w: { market(m: Market): unknown; page(m: Market, s: readonly Snapshot[]): unknown; local(id: string): unknown }): Promise<unknown[]> {
  const out: unknown[] = [];
  const local = async (id: string) => {
    const l = (await w.local(id)) as { ref?: { startTime: number; endTime: number }; count: number; lastTime?: number };
    return { count: l.count, lastTime: l.lastTime, start: l.ref?.startTime, end: l.ref?.endTime };
  };
  const slot = (k: number) => 81234560 + k;
  out.push(await w.market(A), await local(A.market_id));
  out.push(await w.page(A, snaps(A, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 125, slot, 3)));
  const second = snaps(A, [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 2400], 125, (k) => (k === 17 ? 5 : slot(k)), 4);
  out.push(await w.page(A, second), await local(A.market_id));
  // Sent again with one id changed: no row is added, the new id is kept as SQLite keeps it.
  out.push(await w.page(A, snaps(A, [5, 6, 7, 8, 9, 10, 11, 12, 13, 14], 125, (k) => (k === 12 ? 77 : slot(k)))));
  // Sparse rows reaching the final second: price_start, price_end and winner follow from them.
  const perMs = (_k: number, t: number) => 31_000_000_000 + t;
  out.push(await w.page(B, snaps(B, Array.from({ length: 40 }, (_, k) => k), 250, perMs)));
  out.push(await w.page(B, snaps(B, [3599, 3598].reverse(), 250, perMs)), await local(B.market_id));
  out.push(await w.market(C), await w.market(C), await local(C.market_id));
  out.push(await w.page(D, snaps(D, [0, 1, 2], 125, () => 2 ** 60)), await local(D.market_id), await local('nope'));
  return out;
}

/** Everything a reader sees of the pulled markets. */
async function reads(s: SqliteStore | PgStore): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const m of [A, B, C, D]) {
    out.push(await s.getMarket(m.market_id, NOW));
    for (const includeOrderbook of [false, true]) out.push((await s.snapshotPageJson(m.market_id, { limit: 10_000, offset: 0, includeOrderbook })).json);
    out.push(await s.nearestSnapshot(m.market_id, m.start_time + 1_510, true), (await s.getMarket(m.market_id, 0))?.snapshot_count ?? 0);
  }
  out.push(await s.origins());
  return out;
}

describe.skipIf(skipWithoutPostgres('PostgreSQL pull writer'))('PgMirrorWriter writes as the SQLite MirrorWriter', () => {
  let dir: string;
  let server: ThrowawayDatabase;
  let lite: SqliteStore;
  let pg: PgStore;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-pg-mirror-'));
    lite = openSqliteStore(path.join(dir, 'm.db'));
    server = await throwawayDatabase();
    pg = await openPgStore(server.url);
  }, 60_000);

  afterAll(async () => {
    await pg?.close();
    await server?.destroy();
    lite?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers every call alike, and leaves stores that read alike', async () => {
    const fromLite = await pull(lite.mirrorWriter(ORIGIN));
    const fromPg = await pull(pg.mirrorWriter(ORIGIN));
    expect(fromPg).toEqual(fromLite);
    expect(fromPg[2]).toBe(10);
    const a = await reads(lite);
    const b = await reads(pg);
    for (let i = 0; i < a.length; i++) expect(JSON.stringify(b[i]), `read ${i}`).toBe(JSON.stringify(a[i]));
    // The pattern came from the source, with its exceptions, and the final second settled the market.
    const page = JSON.parse((await pg.snapshotPageJson(A.market_id, { limit: 20, offset: 0, includeOrderbook: false })).json) as { id: number }[];
    expect(page.map((s) => s.id).slice(10, 18)).toEqual([81234570, 81234571, 77, 81234573, 81234574, 81234575, 81234576, 5]);
    expect((await pg.getMarket(B.market_id, NOW))?.winner).not.toBeNull();
  });
});
