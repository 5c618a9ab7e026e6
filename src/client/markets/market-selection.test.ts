// The COIN TYPE choice over a seeded SQLite store (most seeded markets hold no snapshots): a range
// takes every market in it with snapshots and says how many it left out; --last says its shortfall.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Market } from '../../domain/market.js';
import type { MsnapReader } from '../../lib/reader.js';
import { seedStore } from '../../lib/server.js';
import { openStore } from '../../lib/store.js';
import { chooseMarkets } from './market-selection.js';

const NOW = Date.UTC(2025, 10, 22, 12, 2, 30);
const dir = mkdtempSync(path.join(tmpdir(), 'msnap-selection-'));
let reader: MsnapReader;
let all: Market[];

beforeAll(async () => {
  const db = path.join(dir, 'selection.db');
  await seedStore(db, { now: () => NOW, full: { '5m': 2 } });
  reader = await openStore(db, { now: () => NOW });
  all = [];
  for await (const m of reader.markets({ coin: 'ETH', marketType: '5m', limit: 100 })) all.push(m);
});

afterAll(async () => {
  await reader?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('chooseMarkets', () => {
  it('notes the markets of a range it leaves out for holding no snapshots', async () => {
    const from = NOW - 2 * 3_600_000;
    // The reference: every listed market overlapping [from, now) that holds no snapshots.
    const inRange = all.filter((m) => m.end_time > from && m.start_time < NOW);
    const empty = inRange.filter((m) => m.snapshot_count === 0).length;
    expect(empty).toBeGreaterThan(1);
    const notes: string[] = [];
    const got = await chooseMarkets(reader.core, { coin: 'ETH', marketType: '5m' }, { from, to: NOW }, (n) => notes.push(n));
    expect(got.map((m) => m.market_id)).toEqual(inRange.filter((m) => m.snapshot_count > 0).map((m) => m.market_id).reverse());
    expect(notes).toEqual([
      `${empty} ETH 5m markets between ${new Date(from).toISOString()} and ${new Date(NOW).toISOString()} have no snapshots and are left out`,
    ]);
  });

  it('says nothing of a range whose markets all hold snapshots, nor of --last alone', async () => {
    const full = all.filter((m) => m.snapshot_count > 0);
    const notes: string[] = [];
    const one = full[1]!;
    await chooseMarkets(reader.core, { coin: 'ETH', marketType: '5m' }, { from: one.start_time, to: one.end_time }, (n) => notes.push(n));
    await chooseMarkets(reader.core, { coin: 'ETH', marketType: '5m' }, { last: full.length }, (n) => notes.push(n));
    expect(notes).toEqual([]);
  });
});
