// msnap/store over both backends: the same seeded world read from an SQLite file and from
// PostgreSQL gives the same markets and snapshots, and a read-only open never creates a schema.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, UsageError } from '../errors.js';
import { throwawayDatabase, type ThrowawayDatabase } from '../../test/support/throwaway-database.js';
import { skipWithoutPostgres } from '../../test/support/throwaway-postgres.js';
import { seedStore } from './server.js';
import { openStore } from './store.js';
import type { MsnapReader } from './reader.js';

// One clock for both seeds, so both stores hold the same world.
const NOW = Date.UTC(2025, 10, 22, 12, 2, 30);
const now = () => NOW;

async function read(reader: MsnapReader) {
  const markets = [];
  for await (const m of reader.markets({ coin: 'ETH', limit: 20 })) markets.push(m);
  const rows = [];
  for await (const s of reader.snapshots({ coin: 'ETH', type: '5m', last: 2 }, { orderbook: true })) rows.push(s);
  return { markets, rows };
}

describe('openStore on an SQLite file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'msnap-lib-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a missing file with a UsageError and creates none', async () => {
    await expect(openStore(path.join(dir, 'missing.db'))).rejects.toBeInstanceOf(UsageError);
  });

  it('reads the selection, the range and the errors of the CLI', async () => {
    const file = path.join(dir, 'a.db');
    await seedStore(file, { now, full: { '5m': 2 } });
    const reader = await openStore(file, { now });
    try {
      const { rows } = await read(reader);
      const ids = [...new Set(rows.map((r) => r.market_id))];
      expect(ids).toHaveLength(2);
      // Oldest first across the selection.
      expect(rows.map((r) => r.time)).toEqual([...rows.map((r) => r.time)].sort((a, b) => a - b));
      const first = rows[0]!.time;
      const within = [];
      for await (const s of reader.snapshots(ids[0]!, { from: first + 1000, to: new Date(first + 3000) })) within.push(s.time);
      expect(within).toEqual(rows.filter((r) => r.market_id === ids[0] && r.time >= first + 1000 && r.time < first + 3000).map((r) => r.time));
      await expect(reader.market('eth-updown-5m-1000000200')).rejects.toBeInstanceOf(NotFoundError);
      await expect(reader.snapshots(ids[0]!, { from: 5, to: 5 }).next()).rejects.toBeInstanceOf(UsageError);
    } finally {
      await reader.close();
    }
  });
});

describe.skipIf(skipWithoutPostgres('msnap/store on PostgreSQL'))('openStore on PostgreSQL', () => {
  let pg: ThrowawayDatabase;
  const dir = mkdtempSync(path.join(tmpdir(), 'msnap-lib-pg-'));
  beforeAll(async () => {
    pg = await throwawayDatabase();
  }, 120_000);
  afterAll(async () => {
    await pg?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a database that holds no store, and leaves it without one', async () => {
    await expect(openStore(pg.url)).rejects.toThrow(/holds no msnap store/);
    const sql = postgres(pg.url, { onnotice: () => undefined });
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = 'msnap'`;
    await sql.end();
    expect(row!.n).toBe(0);
  });

  it('reads what the same world in an SQLite file reads', async () => {
    const file = path.join(dir, 'same.db');
    await seedStore(file, { now, full: { '5m': 2 } });
    await seedStore(pg.url, { now, full: { '5m': 2 } });
    const fromFile = await openStore(file, { now });
    const fromPg = await openStore(pg.url, { now });
    try {
      const a = await read(fromFile);
      const b = await read(fromPg);
      expect(a.rows.length).toBeGreaterThan(0);
      expect(b).toEqual(a);
    } finally {
      await fromFile.close();
      await fromPg.close();
    }
  }, 120_000);
});
