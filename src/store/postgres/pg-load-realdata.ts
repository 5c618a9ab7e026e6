// The real-data side of a load: what `msnap import polymarket` and `msnap record` keep beside the
// snapshots (migration 9), so a recorded or imported SQLite store moved into PostgreSQL resumes
// there where it left off. Hours read and prices merge (one already held stays), a market's tape
// state already in PostgreSQL stays (it belongs to the rows PostgreSQL holds), a covered span keeps
// the later of the two ends.
import type postgres from 'postgres';
import type { RealdataTable, StoreDumpSource } from '../core/store-dump.js';
import { copyInto } from './pg-copy.js';

/** Each realdata table's merge once its rows are in the temp table load_<table>. */
const MERGE: Record<RealdataTable, string> = {
  hours: 'INSERT INTO realdata_hours SELECT * FROM load_hours ON CONFLICT DO NOTHING',
  state: 'INSERT INTO realdata_state SELECT * FROM load_state ON CONFLICT DO NOTHING',
  prices: 'INSERT INTO realdata_prices SELECT * FROM load_prices ON CONFLICT DO NOTHING',
  spans: `INSERT INTO realdata_spans SELECT * FROM load_spans
    ON CONFLICT (source, from_ms) DO UPDATE SET to_ms = greatest(realdata_spans.to_ms, excluded.to_ms)`,
};

/** Use inside the load's transaction; returns the rows each table gained. */
export async function loadRealdata(tx: postgres.ReservedSql, dump: StoreDumpSource): Promise<Record<RealdataTable, number>> {
  const added = { hours: 0, state: 0, prices: 0, spans: 0 };
  for (const table of Object.keys(MERGE) as RealdataTable[]) {
    const source = dump.realdata[table];
    if (source.count() === 0) continue;
    await tx.unsafe(`CREATE TEMP TABLE load_${table} (LIKE realdata_${table}) ON COMMIT DROP`);
    await copyInto(tx, `load_${table}`, source.columns, source.batches(), (r) => r);
    added[table] = (await tx.unsafe(MERGE[table])).count;
  }
  return added;
}
