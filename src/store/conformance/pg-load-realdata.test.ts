// Loading a real-data SQLite store into PostgreSQL (`serve import`): markets keep their slug, fee
// schedule and price source, and the realdata tables (hours read, tape states, recorded prices,
// covered spans) come along, so the same import run again on PostgreSQL adds nothing and the
// snapshots served are the SQLite file's, books included.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throwawayDatabase, type ThrowawayDatabase } from '../../../test/support/throwaway-database.js';
import { skipWithoutPostgres } from '../../../test/support/throwaway-postgres.js';
import { expandArchiveArgs } from '../../realdata/import/archive-inputs.js';
import { importPolymarket } from '../../realdata/import/polymarket-import.js';
import type { RealMarket } from '../../realdata/import/real-market.js';
import { writePmxtFile } from '../../realdata/test-support/pmxt-fixture.js';
import { doneWhenHour } from '../../realdata/test-support/pmxt-scenarios.js';
import { loadSqliteIntoPostgres } from '../copy/sqlite-to-postgres.js';
import { openPgStore } from '../postgres/pg-store.js';
import type { RecordWrites } from '../record-writes.js';
import { openSqliteStore } from '../sqlite/open.js';
import { openSql } from '../sqlite/test-support/sql.js';

const scenario = doneWhenHour(5);
const markets: RealMarket[] = scenario.markets.map((m, i) => ({
  marketId: m.marketId,
  slug: `${m.marketId}-slug`,
  conditionId: m.conditionId,
  coin: m.coin,
  marketType: m.marketType,
  startTime: m.start,
  endTime: m.end,
  tokenUp: m.tokenUp,
  tokenDown: m.tokenDown,
  closed: i === 0,
  winner: i === 0 ? 'Down' : null,
  // One market without a schedule: null stays null.
  fees: i === 2 ? null : { rate: 0.07, exponent: 1, taker_only: true, rebate_rate: 0.2 + i / 10, buy_fee_in: 'shares' },
  eventId: null,
}));
const price = (t: number) => 84_000 + Math.round(Math.sin(t / 9_000) * 5000) / 100;

function importInto(writes: RecordWrites, files: string[]) {
  return importPolymarket(writes, { files: expandArchiveArgs(files), markets, prices: () => price, priceSource: 'binance' });
}

/** Every realdata table and the markets' provenance, as rows sorted the same way in both stores. */
const TABLES = {
  markets: 'SELECT market_id, slug, fee_schedule, price_source, price_start, price_end, winner, snapshot_count FROM markets ORDER BY market_id',
  hours: 'SELECT market_id, hour FROM realdata_hours ORDER BY market_id, hour',
  state: 'SELECT market_id, state FROM realdata_state ORDER BY market_id',
  prices: 'SELECT coin, ts, price FROM realdata_prices ORDER BY coin, ts',
  spans: 'SELECT source, from_ms, to_ms FROM realdata_spans ORDER BY source, from_ms',
};

describe.skipIf(skipWithoutPostgres('PostgreSQL load of real data'))('loading a real-data SQLite store into PostgreSQL', () => {
  let dir: string;
  let server: ThrowawayDatabase;
  let file: string;
  const archive: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-pg-load-real-'));
    for (const f of scenario.files) {
      archive.push(path.join(dir, f.name));
      await writePmxtFile(archive.at(-1)!, f.rows, { rowGroupSize: 500 });
    }
    file = path.join(dir, 'real.db');
    const s = openSqliteStore(file);
    try {
      await importInto(s.bulk, archive);
      // What a recording keeps beside: Chainlink prices and the spans it was connected.
      s.bulk.begin();
      for (let k = 0; k < 5; k++) s.bulk.realdata.addPrice('BTC', scenario.markets[0]!.start + k * 1000, 840_000_000 + k);
      s.bulk.realdata.coverSpan('clob', scenario.markets[0]!.start, scenario.markets[0]!.end);
      s.bulk.commit();
    } finally {
      s.close();
    }
    server = await throwawayDatabase();
  }, 120_000);

  afterAll(async () => {
    await server?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps slug, fee schedule, price source and the realdata tables; the import again adds nothing; snapshots with books the same', async () => {
    const db = openSql(file);
    const want = Object.fromEntries(Object.entries(TABLES).map(([k, q]) => [k, db.prepare(q).all()]));
    db.close();
    expect(want.hours).toHaveLength(3);
    expect(want.state).toHaveLength(3);
    expect((want.markets as { fee_schedule: string | null }[]).filter((m) => m.fee_schedule !== null)).toHaveLength(2);

    const store = await openPgStore(server.url, { schema: 'real' });
    const sql = postgres(server.url, { max: 1, onnotice: () => undefined, connection: { search_path: 'real' }, types: { int8: { to: 20, from: [20], serialize: String, parse: Number } } });
    try {
      const loaded = await loadSqliteIntoPostgres(file, store);
      expect(loaded.marketsAdded).toBe(3);
      for (const [k, q] of Object.entries(TABLES)) expect([...(await sql.unsafe(q))], k).toEqual(want[k]);

      // A second load merges: nothing doubled, spans and states as they were.
      await loadSqliteIntoPostgres(file, store);
      for (const [k, q] of Object.entries(TABLES)) expect([...(await sql.unsafe(q))], k).toEqual(want[k]);

      // The hours read came along: the import run again on PostgreSQL reads nothing.
      const again = await importInto(store.recordWrites(), archive);
      expect(again).toMatchObject({ files: 0, hoursSkipped: 3, snapshots: 0, marketsAdded: 0 });

      const sqlite = openSqliteStore(file, { readonly: true });
      try {
        for (const m of markets) {
          const q = { limit: 10_000, offset: 0, includeOrderbook: true };
          const [a, b] = [await sqlite.snapshotPageJson(m.marketId, q), await store.snapshotPageJson(m.marketId, q)];
          expect(a.count).toBeGreaterThan(100);
          expect(b.json).toBe(a.json);
        }
      } finally {
        sqlite.close();
      }
    } finally {
      await sql.end({ timeout: 1 });
      await store.close();
    }
  }, 120_000);
});
