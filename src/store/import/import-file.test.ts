import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { MARKET_DETAIL_FIELDS } from '../../domain/market.js';
import { UsageError } from '../../errors.js';
import { openSqliteStore } from '../sqlite/open.js';
import type { SqliteStore } from '../sqlite/sqlite-store.js';
import { openSql } from '../sqlite/test-support/sql.js';
import { seedDatabase } from '../seed/seed.js';
import { importFile } from './import-file.js';

const NOW = Date.UTC(2025, 10, 22, 13, 7, 30, 500);
let dir: string;
let src: SqliteStore;
let dst: SqliteStore;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-import-'));
  src = openSqliteStore(path.join(dir, 'src.db'));
  seedDatabase(src.bulk, { now: NOW, days: 1, fullMarkets: { '5m': 2, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 }, orderbookMs: 30_000 });
  dst = openSqliteStore(path.join(dir, 'dst.db'));
});
afterEach(async () => {
  src.close();
  dst.close();
  rmSync(dir, { recursive: true, force: true });
});

async function resolvedBtc5m() {
  return (await src.listMarkets({ coin: 'BTC', marketType: '5m', status: 'resolved', limit: 1, offset: 0, window: null, now: NOW })).markets[0]!;
}
async function exported(marketId: string, ob = false): Promise<Record<string, unknown>[]> {
  return JSON.parse((await src.snapshotPageJson(marketId, { limit: 10_000, offset: 0, includeOrderbook: ob })).json);
}
const csvCell = (v: unknown) => {
  const s = typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v ?? '');
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
function toCsv(rows: Record<string, unknown>[], cols: string[]): string {
  return [cols.join(','), ...rows.map((r) => cols.map((c) => csvCell(r[c])).join(','))].join('\n') + '\n';
}
const SNAP_COLS = ['id', 'market_id', 'time', 'price', 'price_up', 'price_down'];
// The contract's fields and the hosted service's descriptive ones: a markets export round-trips whole.
const MARKET_COLS = [
  'market_id', 'slug', 'coin', 'market_type', 'status', 'start_time', 'end_time', 'price_start', 'price_end', 'winner', 'snapshot_count',
  ...MARKET_DETAIL_FIELDS,
];

describe('importFile', () => {
  it('round-trips seeded markets and snapshots through NDJSON; re-import adds nothing', async () => {
    const m = await resolvedBtc5m();
    const snaps = await exported(m.market_id);
    const file = path.join(dir, 'x.ndjson');
    writeFileSync(file, [JSON.stringify(m), ...snaps.map((s) => JSON.stringify(s))].join('\n') + '\n');
    const first = await importFile(dst.bulk, file);
    expect(first).toMatchObject({ format: 'ndjson', marketsAdded: 1, snapshotsAdded: 2400, snapshotsSkipped: 0 });
    expect((await dst.getMarket(m.market_id, NOW))).toEqual(m);
    const mine = JSON.parse((await dst.snapshotPageJson(m.market_id, { limit: 10_000, offset: 0, includeOrderbook: false })).json);
    expect(mine.map((s: { id: number; time: number }) => s.time)).toEqual(snaps.map((s) => s.time));
    expect(mine.map(({ id: _id, ...rest }: Record<string, unknown>) => rest)).toEqual(snaps.map(({ id: _id, ...rest }) => rest));
    const again = await importFile(dst.bulk, file);
    expect(again).toMatchObject({ marketsAdded: 0, snapshotsAdded: 0, snapshotsSkipped: 2400 });
    expect(dst.bulk.counts().snapshots).toBe(2400);
  });

  it('round-trips CSV with orderbooks in quoted JSON cells, and markets CSV', async () => {
    const active = (await src.listMarkets({ coin: 'SOL', marketType: '5m', status: 'active', limit: 1, offset: 0, window: null, now: NOW })).markets[0]!;
    const snaps = await exported(active.market_id, true);
    expect(snaps.some((s) => s.orderbook_up)).toBe(true);
    const file = path.join(dir, 'x.csv');
    writeFileSync(file, toCsv(snaps, [...SNAP_COLS, 'orderbook_up', 'orderbook_down']));
    const r = await importFile(dst.bulk, file);
    expect(r.snapshotsAdded).toBe(snaps.length);
    expect(r.orderbooksAdded).toBe(snaps.filter((s) => s.orderbook_up).length);
    const back = JSON.parse((await dst.snapshotPageJson(active.market_id, { limit: 10_000, offset: 0, includeOrderbook: true })).json);
    expect(back.map(({ id: _i, ...x }: Record<string, unknown>) => x)).toEqual(snaps.map(({ id: _i, ...x }) => x));
    // The market came from its id; a markets CSV then fills in its metadata.
    const markets = (await src.listMarkets({ coin: 'SOL', limit: 1000, offset: 0, window: null, now: NOW })).markets;
    const mfile = path.join(dir, 'm.csv');
    writeFileSync(mfile, toCsv(markets, MARKET_COLS));
    const rm = await importFile(dst.bulk, mfile);
    expect(rm.marketsAdded + rm.marketsUpdated).toBe(markets.length);
    expect((await dst.getMarket(active.market_id, NOW))).toEqual(active);
  });

  it('accepts the hosted variants: numeric strings, ISO times, btc_price, stdin', async () => {
    const m = await resolvedBtc5m();
    const lines = [
      { market_id: m.market_id, time: String(m.start_time), btc_price: '97000.5', price_up: '0.5', price_down: 0.51 },
      { market_id: m.market_id, time: new Date(m.start_time + 125).toISOString(), price: 97001, price_up: 0.52, price_down: 0.49 },
    ];
    const r = await importFile(dst.bulk, '-', { stdin: Readable.from([lines.map((l) => JSON.stringify(l)).join('\n')]) });
    expect(r.snapshotsAdded).toBe(2);
    const snaps = JSON.parse((await dst.snapshotPageJson(m.market_id, { limit: 10, offset: 0, includeOrderbook: false })).json);
    expect(snaps.map((s: { price: number }) => s.price)).toEqual([97000.5, 97001]);
    expect((await dst.getMarket(m.market_id, NOW))!.price_start).toBe(97000.5);
  });

  it('reads orderbook levels as {price, size} or as [price, size] (old exports) and stores {price, size}; v4 spellings', async () => {
    const m = await resolvedBtc5m();
    const sol = m.market_id.replace('btc-', 'sol-');
    const lines = [
      { market_id: sol, start_time: m.start_time, market_type: '5m', sol_price_start: 210.5, sol_price_end: 211, winner: 'Up', event_id: 1234567, final_volume: '10.5' },
      { market_id: sol, time: m.start_time, sol_price: 210.5, price_up: 0.5, price_down: 0.5,
        orderbook_up: { bids: [[0.49, 10]], asks: [[0.5, '2.5']] }, orderbook_down: { bids: [], asks: [{ price: 0.51, size: 3 }] } },
    ];
    const r = await importFile(dst.bulk, '-', { stdin: Readable.from([lines.map((l) => JSON.stringify(l)).join('\n')]) });
    expect(r.orderbooksAdded).toBe(1);
    const [snap] = JSON.parse((await dst.snapshotPageJson(sol, { limit: 1, offset: 0, includeOrderbook: true })).json);
    expect(snap.price).toBe(210.5);
    expect(snap.orderbook_up).toEqual({ bids: [{ price: 0.49, size: 10 }], asks: [{ price: 0.5, size: 2.5 }] });
    expect(snap.orderbook_down).toEqual({ bids: [], asks: [{ price: 0.51, size: 3 }] });
    expect((await dst.getMarket(sol, NOW))).toMatchObject({ price_start: 210.5, price_end: 211, event_id: '1234567', final_volume: 10.5, condition_id: null });
  });

  it('mixes fast and general lines of several markets; the first of two rows for one time wins', async () => {
    const a = await resolvedBtc5m();
    const b = (await src.listMarkets({ coin: 'ETH', marketType: '5m', status: 'resolved', limit: 1, offset: 0, window: null, now: NOW })).markets[0];
    const sa = await exported(a!.market_id);
    const sb = await exported(b!.market_id);
    const lines: string[] = [];
    for (let i = 0; i < sa.length; i++) {
      const s = sa[i]!;
      // Every 7th line in a hosted shape (general path), markets interleaved every 400 lines.
      lines.push(i % 7 === 3 ? JSON.stringify({ ...s, time: new Date(s.time as number).toISOString(), price: String(s.price) }) : JSON.stringify(s));
      if (i % 400 === 399) lines.push(...sb.slice(i - 399, i + 1).map((x) => JSON.stringify(x)));
    }
    lines.push(JSON.stringify({ ...sa[5], price: 1 }));
    const file = path.join(dir, 'mixed.ndjson');
    writeFileSync(file, lines.join('\n'));
    const r = await importFile(dst.bulk, file);
    expect(r).toMatchObject({ snapshotsAdded: sa.length + sb.length, snapshotsSkipped: 1 });
    for (const [m, snaps] of [[a!, sa], [b!, sb]] as const) {
      const mine = JSON.parse((await dst.snapshotPageJson(m.market_id, { limit: 10_000, offset: 0, includeOrderbook: false })).json);
      expect(mine.map(({ id: _i, ...x }: Record<string, unknown>) => x)).toEqual(snaps.map(({ id: _i, ...x }) => x));
      expect((await dst.getMarket(m.market_id, NOW))).toMatchObject({ snapshot_count: snaps.length, price_start: m.price_start });
    }
    // The same rows as CSV with a bad line after thousands of fast ones: nothing of it stays.
    const before = dst.bulk.counts();
    const csv = toCsv(sa, SNAP_COLS).trimEnd().split('\n');
    csv.splice(2000, 0, `1,${a!.market_id},${sa[0]!.time},97000,0.5,-0.5`);
    const cfile = path.join(dir, 'bad.csv');
    writeFileSync(cfile, csv.join('\n'));
    const fresh = openSqliteStore(path.join(dir, 'fresh.db'));
    try {
      await expect(importFile(fresh.bulk, cfile)).rejects.toThrow('line 2001: "price_down" must be a probability in [0, 1], got "-0.5"');
      expect(fresh.bulk.counts()).toMatchObject({ markets: 0, snapshots: 0 });
    } finally {
      fresh.close();
    }
    expect(dst.bulk.counts()).toEqual(before);
  });

  it('keeps the dense blocks equal to the rows: fresh, growing, re-imported, rolled back', async () => {
    const m = await resolvedBtc5m();
    const snaps = await exported(m.market_id);
    const lines = snaps.map((s) => JSON.stringify(s));
    const sql = openSql(path.join(dir, 'dst.db'));
    onTestFinished(() => sql.close());
    const blocks = () => sql.prepare('SELECT market, block, data FROM snapshot_blocks ORDER BY market, block').raw(true).all();
    /** The blocks import left, against the same blocks rebuilt from the stored rows alone. */
    const expectBlocksFromRows = (count: number) => {
      const left = blocks();
      expect(left).toHaveLength(count);
      dst.bulk.transaction(() => dst.bulk.refreshMarkets([dst.bulk.marketRef(m.market_id)!.rowid]));
      expect(blocks()).toEqual(left);
    };
    const file = path.join(dir, 'part.ndjson');
    writeFileSync(file, lines.slice(0, 1500).join('\n'));
    await importFile(dst.bulk, file);
    expectBlocksFromRows(2);
    // The rest, overlapping what is stored, with other values for the overlap (the stored ones stay).
    writeFileSync(file, [...lines.slice(1000, 1100).map((l) => l.replace(/"price":[0-9.]+/, '"price":1')), ...lines.slice(1000)].join('\n'));
    expect(await importFile(dst.bulk, file)).toMatchObject({ snapshotsAdded: 900, snapshotsSkipped: 600 });
    expectBlocksFromRows(3);
    const all = (await dst.snapshotPageJson(m.market_id, { limit: 10_000, offset: 0, includeOrderbook: false })).json;
    expect(JSON.parse(all).map(({ id: _i, ...x }: Record<string, unknown>) => x)).toEqual(snaps.map(({ id: _i, ...x }) => x));
    const before = blocks();
    await importFile(dst.bulk, file);
    expect(blocks()).toEqual(before);
    // A bad last line rolls back rows and blocks alike.
    const other = (await src.listMarkets({ coin: 'ETH', marketType: '5m', status: 'resolved', limit: 1, offset: 0, window: null, now: NOW })).markets[0]!;
    writeFileSync(file, [...(await exported(other.market_id)).map((s) => JSON.stringify(s)), '{"market_id":"x"}'].join('\n'));
    await expect(importFile(dst.bulk, file)).rejects.toThrow('line 2401');
    expect(blocks()).toEqual(before);
  });

  it('stops at a bad row, names its line, and leaves the database exactly as before', async () => {
    const m = await resolvedBtc5m();
    const good = (await exported(m.market_id)).slice(0, 10);
    await importFile(dst.bulk, Readable.from([JSON.stringify(good[0]) + '\n']), { format: 'ndjson' });
    const before = readFileSync(path.join(dir, 'dst.db')).length;
    const countsBefore = dst.bulk.counts();
    const bad = [...good.map((s) => JSON.stringify(s)), JSON.stringify({ ...good[1], time: good[1]!.time as number + 2, price_up: 1.5 })];
    const file = path.join(dir, 'bad.ndjson');
    writeFileSync(file, bad.join('\n'));
    await expect(importFile(dst.bulk, file)).rejects.toThrow(new UsageError('line 11: "price_up" must be a probability in [0, 1], got 1.5'));
    expect(dst.bulk.counts()).toEqual(countsBefore);
    expect(readFileSync(path.join(dir, 'dst.db')).length).toBe(before);
    for (const [text, msg] of [
      ['{"market_id":"x","time":1,', 'line 1: not valid JSON'],
      ['market_id,time,price\nbtc-updown-5m-1,"unterminated', 'line 2: unterminated quoted field'],
      [`{"market_id":"${m.market_id}","time":1,"price":1,"price_up":0.5,"price_down":0.5}`, `line 1: "time" 1 lies outside`],
      ['{"market_id":"nope","time":1,"price":1,"price_up":0.5,"price_down":0.5}', 'line 1: "market_id" "nope" is not a known market'],
    ] as const) {
      await expect(importFile(dst.bulk, Readable.from([text]))).rejects.toThrow(msg);
    }
    expect(dst.bulk.counts()).toEqual(countsBefore);
  });
});
