import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importFile } from '../import/import-file.js';
import { openSqliteStore } from './open.js';
import { inferPattern, SNAPSHOT_ID_STRIDE } from '../core/snapshot-ids.js';
import type { SqliteStore } from './sqlite-store.js';
import { openSql } from './test-support/sql.js';

const START = 1_763_769_600_000;
const ID = 'btc-updown-5m-1763769600';
let dir: string;
let store: SqliteStore;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-ids-'));
  store = openSqliteStore(path.join(dir, 'ids.db'));
});
afterEach(async () => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function line(id: number, k: number): string {
  return JSON.stringify({ id, market_id: ID, time: START + k * 125, price: 97000 + k, price_up: 0.5, price_down: 0.51 });
}
async function load(lines: string[]): Promise<void> {
  await importFile(store.bulk, Readable.from([lines.join('\n') + '\n']), { format: 'ndjson' });
}
async function ids(limit = 100, offset = 0): Promise<number[]> {
  return (JSON.parse((await store.snapshotPageJson(ID, { limit, offset, includeOrderbook: false })).json) as { id: number }[]).map((s) => s.id);
}
function stored(): { exceptions: number; base: number | null; step: number | null } {
  const db = openSql(path.join(dir, 'ids.db'));
  try {
    const m = db.prepare('SELECT id_base AS base, id_step AS step FROM markets WHERE market_id = ?').get(ID) as { base: number | null; step: number | null };
    return { ...m, exceptions: db.prepare('SELECT count(*) FROM snapshot_ids').pluck().get() as number };
  } finally {
    db.close();
  }
}

describe('inferPattern', () => {
  it('reads one id per ms, a step per 125 ms slot, or falls back to per ms from the first row', async () => {
    expect(inferPattern(250, 700_000_250, 375, 700_000_375)).toEqual({ base: 700_000_000, step: null });
    expect(inferPattern(250, 81_234_562, 500, 81_234_564)).toEqual({ base: 81_234_560, step: 1 });
    expect(inferPattern(0, 1000, 250, 1030)).toEqual({ base: 1000, step: 15 });
    expect(inferPattern(0, 50, 125, 40)).toEqual({ base: 50, step: null });
    expect(inferPattern(125, 9)).toEqual({ base: -116, step: null });
  });
});

describe('source snapshot ids', () => {
  it('keep a hosted service-style sequence (one per slot) with no row stored per id', async () => {
    await load(Array.from({ length: 40 }, (_, k) => line(81_234_560 + k, k)));
    expect((await ids())).toEqual(Array.from({ length: 40 }, (_, k) => 81_234_560 + k));
    expect((await ids(5, 30))).toEqual([81_234_590, 81_234_591, 81_234_592, 81_234_593, 81_234_594]);
    expect(stored()).toEqual({ base: 81_234_560, step: 1, exceptions: 0 });
    expect((await store.nearestSnapshot(ID, START + 1000))?.id).toBe(81_234_568);
  });

  it('store only the ids that follow no pattern, and serve them in pages and at a time', async () => {
    const want = Array.from({ length: 20 }, (_, k) => 5 * SNAPSHOT_ID_STRIDE + k * 125);
    want[7] = 42;
    want[19] = 7;
    await load(want.map((id, k) => line(id, k)));
    expect((await ids())).toEqual(want);
    expect((await ids(3, 6))).toEqual(want.slice(6, 9));
    expect(stored()).toEqual({ base: 5 * SNAPSHOT_ID_STRIDE, step: null, exceptions: 2 });
    expect((await store.nearestSnapshot(ID, START + 7 * 125))?.id).toBe(42);
    // A second import of the same lines changes nothing.
    await load(want.map((id, k) => line(id, k)));
    expect(stored().exceptions).toBe(2);
    expect((await ids())).toEqual(want);
  });

  it('leave msnap\'s own ids to rows imported without an id', async () => {
    await load([0, 1, 2].map((k) => line(0, k).replace('"id":0,', '')));
    const db = openSql(path.join(dir, 'ids.db'));
    const rowid = db.prepare('SELECT id FROM markets').pluck().get() as number;
    db.close();
    expect((await ids())).toEqual([0, 125, 250].map((t) => rowid * SNAPSHOT_ID_STRIDE + t));
    expect(stored().base).toBeNull();
  });
});
