import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { marketId } from '../../domain/market.js';
import { BLOCK_SNAPSHOTS } from './dense-blocks.js';
import { MIGRATIONS } from './migrations.js';
import { openSqliteStore } from './open.js';
import type { SqliteStore } from './sqlite-store.js';
import { openSql, openStoreWithSql } from './test-support/sql.js';
import { snapshotRowsToJson, type RawSnapshotRow } from '../core/snapshot-json.js';

const START = Date.UTC(2025, 10, 20, 12); // a 1hr market: 28,800 slots
const ID = marketId('BTC', '1hr', START);
let dir: string;
let store: SqliteStore;
/** The store's own connection, for reading and editing rows behind its back. */
let sql: Database.Database;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-blocks-'));
  ({ store, sql } = openStoreWithSql(path.join(dir, 't.db')));
});
afterEach(async () => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function market(): number {
  const { ref } = store.bulk.upsertMarket({
    marketId: ID,
    coin: 'BTC',
    marketType: '1hr',
    startTime: START,
    endTime: START + 3_600_000,
    priceStart: null,
    priceEnd: null,
    winner: null,
  });
  return ref.rowid;
}

/** Scaled values of slot k; `salt` changes them, to tell a second write of the same slot apart. */
const value = (k: number, salt = 0): [number, number, number] => [
  970_000_000 + ((k * 7919 + salt) % 200_000) * 10 + (k % 3),
  (k * 31 + salt) % 10_001,
  10_000 - ((k + salt) % 97),
];

/** Adds slots [from, to) through a bulk writer in one transaction, as import does. */
function write(rowid: number, from: number, to: number, salt = 0): void {
  store.bulk.transaction(() => {
    const w = store.bulk.snapshotWriter();
    for (let k = from; k < to; k++) w.add(rowid, k * 125, ...value(k, salt));
    w.flush();
    store.bulk.refreshMarkets([rowid], w);
  });
}

function rows(rowid: number): RawSnapshotRow[] {
  return sql.prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? ORDER BY t').raw(true).all(rowid) as RawSnapshotRow[];
}

function blocks(rowid: number): { block: number; data: Buffer }[] {
  return sql.prepare('SELECT block, data FROM snapshot_blocks WHERE market = ? ORDER BY block').all(rowid) as { block: number; data: Buffer }[];
}

/** The blocks are exactly the rows, packed: one per 1024 slots, the last one partial. */
function expectBlocksMatchRows(rowid: number): void {
  const r = rows(rowid);
  const want: { block: number; data: Buffer }[] = [];
  for (let b = 0; b * BLOCK_SNAPSHOTS < r.length; b++) {
    const part = r.slice(b * BLOCK_SNAPSHOTS, (b + 1) * BLOCK_SNAPSHOTS);
    const data = Buffer.alloc(part.length * 8);
    part.forEach(([, price, up, down], i) => {
      data.writeUInt32LE(price, i * 4);
      data.writeUInt32LE(up * 2 ** 14 + down, (part.length + i) * 4);
    });
    want.push({ block: b, data });
  }
  expect(blocks(rowid)).toEqual(want);
}

/** Every page shape gives the row path's text: block boundaries, first and last block, partial end. */
async function expectPagesMatchRows(rowid: number): Promise<void> {
  const r = rows(rowid);
  const n = r.length;
  const shapes: [number, number][] = [
    [0, 1], [0, 1000], [0, BLOCK_SNAPSHOTS], [1023, 2], [1000, 100], [1024, 1024], [2047, 3000],
    [n - 1, 5], [n - 953, 953], [n - 1000, 1000], [Math.max(0, n - 5000), 10_000], [0, n],
  ];
  for (const [offset, limit] of shapes) {
    const page = await store.snapshotPageJson(ID, { limit, offset, includeOrderbook: false });
    const want = r.slice(offset, offset + limit);
    expect(page.count).toBe(want.length);
    expect(page.json).toBe(snapshotRowsToJson(want, rowid, ID, START, false));
  }
}

describe('dense blocks', () => {
  it('are built from a fresh market, and pages read from them equal the row path', async () => {
    const rowid = market();
    write(rowid, 0, 5000);
    expect(blocks(rowid)).toHaveLength(5);
    expectBlocksMatchRows(rowid);
    await expectPagesMatchRows(rowid);
    // Pages do read the blocks: one edited behind the store's back shows through.
    const edited = blocks(rowid)[1]!.data;
    edited.writeUInt32LE(10_000, 0);
    sql.prepare('UPDATE snapshot_blocks SET data = ? WHERE market = ? AND block = 1').run(edited, rowid);
    expect(JSON.parse((await store.snapshotPageJson(ID, { limit: 1, offset: 1024, includeOrderbook: false })).json)[0].price).toBe(1);
    store.bulk.refreshMarkets([rowid]);
    expectBlocksMatchRows(rowid);
    // The same pages with the blocks gone come from the rows: same text.
    const before = (await store.snapshotPageJson(ID, { limit: 3000, offset: 1500, includeOrderbook: false })).json;
    sql.prepare('DELETE FROM snapshot_blocks').run();
    expect((await store.snapshotPageJson(ID, { limit: 3000, offset: 1500, includeOrderbook: false })).json).toBe(before);
  });

  it('follow a market that grows, across a partial block and across several transactions', async () => {
    const rowid = market();
    write(rowid, 0, 1500);
    expectBlocksMatchRows(rowid);
    write(rowid, 1500, 2048); // fills the partial block exactly
    expectBlocksMatchRows(rowid);
    write(rowid, 2048, 2049);
    write(rowid, 1000, 4100, 7); // overlaps: stored slots keep their values
    expect(rows(rowid)[1000]![1]).toBe(value(1000)[0]);
    expect(rows(rowid)[4000]![1]).toBe(value(4000, 7)[0]);
    expectBlocksMatchRows(rowid);
    await expectPagesMatchRows(rowid);
    // Rows added one at a time (no writer): refreshMarkets rebuilds from the table.
    for (let k = 4100; k < 4200; k++) store.bulk.insertSnapshot(rowid, k * 125, 97_000 + k / 1e4, 0.5, 0.25);
    store.bulk.refreshMarkets([rowid]);
    expectBlocksMatchRows(rowid);
    await expectPagesMatchRows(rowid);
  });

  it('do not take values from rows that were ignored as already stored', async () => {
    const rowid = market();
    write(rowid, 0, 3000);
    write(rowid, 0, 3000, 5); // every row ignored; the writer's copy differs from the table
    expectBlocksMatchRows(rowid);
    expect((await store.snapshotPageJson(ID, { limit: 2, offset: 0, includeOrderbook: false })).json).toBe(
      snapshotRowsToJson(rows(rowid).slice(0, 2), rowid, ID, START, false),
    );
  });

  it('go when the market stops being dense, and are undone with a rolled-back transaction', async () => {
    const rowid = market();
    write(rowid, 0, 2000);
    store.bulk.begin();
    const w = store.bulk.snapshotWriter();
    for (let k = 2000; k < 4096; k++) w.add(rowid, k * 125, ...value(k));
    w.flush();
    store.bulk.refreshMarkets([rowid], w);
    expect(blocks(rowid)).toHaveLength(4);
    store.bulk.rollback();
    expectBlocksMatchRows(rowid);
    expect(blocks(rowid)).toHaveLength(2);
    store.bulk.insertSnapshot(rowid, 2000 * 125 + 60, 1, 0.5, 0.5);
    store.bulk.refreshMarkets([rowid]);
    expect(blocks(rowid)).toEqual([]);
    expect(JSON.parse((await store.snapshotPageJson(ID, { limit: 2, offset: 2000, includeOrderbook: false })).json)[0].time).toBe(START + 250_060);
  });

  it('skip a block holding a value they cannot pack; its pages come from the rows', async () => {
    const rowid = market();
    store.bulk.transaction(() => {
      const w = store.bulk.snapshotWriter();
      for (let k = 0; k < 3000; k++) w.add(rowid, k * 125, ...(k === 1500 ? ([5e9, 1, 1] as const) : value(k)));
      w.flush();
      store.bulk.refreshMarkets([rowid], w);
    });
    expect(blocks(rowid).map((b) => b.block)).toEqual([0, 2]);
    await expectPagesMatchRows(rowid);
    expect(JSON.parse((await store.snapshotPageJson(ID, { limit: 1, offset: 1500, includeOrderbook: false })).json)[0].price).toBe(500_000);
  });

  it('come to an older database with the migration, built from its rows; a read-only one without the table serves rows', async () => {
    const file = path.join(dir, 'v1.db');
    const old = new Database(file);
    old.exec(MIGRATIONS[0]!.sql);
    old.pragma('user_version = 1');
    old.exec(`INSERT INTO markets (id, market_id, coin, market_type, start_time, end_time, snapshot_count, dense)
              VALUES (1, '${ID}', 'BTC', '1hr', ${START}, ${START + 3_600_000}, 3, 1)`);
    old.exec('INSERT INTO snapshots VALUES (1, 0, 10, 1, 2), (1, 125, 20, 3, 4), (1, 250, 30, 5, 6)');
    old.close();
    const ro = openSqliteStore(file, { readonly: true });
    const want = snapshotRowsToJson([[0, 10, 1, 2], [125, 20, 3, 4], [250, 30, 5, 6]], 1, ID, START, false);
    expect((await ro.snapshotPageJson(ID, { limit: 10, offset: 0, includeOrderbook: false })).json).toBe(want);
    ro.close();
    // Opening it to write migrates it and builds the blocks of its dense markets.
    const rw = openSqliteStore(file);
    expect(rw.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
    const check = openSql(file);
    expect(check.prepare('SELECT count(*) FROM snapshot_blocks').pluck().get()).toBe(1);
    check.close();
    expect((await rw.snapshotPageJson(ID, { limit: 10, offset: 0, includeOrderbook: false })).json).toBe(want);
    expect((await rw.snapshotPageJson(ID, { limit: 10, offset: 1, includeOrderbook: false })).json).toBe(
      snapshotRowsToJson([[125, 20, 3, 4], [250, 30, 5, 6]], 1, ID, START, false),
    );
    rw.close();
  });
});
