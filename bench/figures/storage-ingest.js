// Figure 5: bytes per stored snapshot from SQLite's own page accounting (dbstat), seed rows/s
// from the seed that built the bench database, and import rows/s of msnap's own CSV export into a
// fresh database.
import path from 'node:path';
import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { runMsnap } from '../child-process.js';
import { countRows } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const BYTES_TARGET = { max: 40 };
const IMPORT_TARGET = { min: 300_000 };

/** `seed` is the main seed's result; `exportCsv` the largest CSV the export figure wrote. */
export async function storageFigure(ctx, { seed, exportCsv }) {
  const bytes = bytesPerSnapshot(ctx.db);
  const importDb = path.join(ctx.tmpDir, 'import.db');
  const args = ['serve', 'import', exportCsv.file, '--db', importDb];
  const started = performance.now();
  const run = await runMsnap(args, { tmpDir: ctx.tmpDir, env: { MSNAP_DB: importDb } });
  const importMs = performance.now() - started;
  // msnap's own figure (import loop only, without process start) is shown next to the wall one.
  const own = /\(([\d,]+) rows\/s\)/.exec(run.stdout + run.stderr);
  const ownRate = own ? Number(own[1].replace(/,/g, '')) : undefined;
  const imported = countRows(importDb);
  const importRate = imported.snapshots / (importMs / 1000);
  const seedRows = seed.snapshots + seed.orderbooks + seed.markets;
  const seedRate = seedRows / (seed.wallMs / 1000);
  const seedOwnMatch = /\(([\d,]+) rows\/s\)/.exec(seed.output);
  const seedOwn = seedOwnMatch ? Number(seedOwnMatch[1].replace(/,/g, '')) : undefined;
  return {
    title: 'Storage and ingest',
    method:
      'Bytes per snapshot from SQLite\'s `dbstat` page accounting on the seeded database, b-trees grouped by table with their indexes: ' +
      'every table that holds snapshot data (the snapshots table and anything derived from it) / snapshot rows; with orderbook adds ' +
      'the orderbooks table / orderbook rows. Seed rows/s: all rows written ' +
      '(markets, snapshots, orderbooks) over the `msnap serve seed` process wall time. Import rows/s: the largest CSV written by figure 2 (or 6, in full mode) ' +
      'imported into a fresh database by `msnap serve import`, snapshots over process wall time.',
    rows: [
      { name: 'Storage: bytes per snapshot, no orderbook', value: bytes.plain, unit: ' B', target: describeTarget(BYTES_TARGET, ' B'), verdict: judge({ value: bytes.plain, ...BYTES_TARGET }) },
      { name: 'Storage: bytes per snapshot with orderbook', value: bytes.withOrderbook, unit: ' B' },
      { name: 'Ingest: seed rows/s (process wall)', value: seedRate, unit: ' rows/s' },
      ...(seedOwn !== undefined ? [{ name: 'Ingest: seed rows/s as msnap reports it (no process start)', value: seedOwn, unit: ' rows/s' }] : []),
      { name: 'Ingest: import rows/s (process wall)', value: importRate, unit: ' rows/s', target: describeTarget(IMPORT_TARGET, ' rows/s'), verdict: judge({ value: importRate, ...IMPORT_TARGET }) },
      ...(ownRate !== undefined ? [{ name: 'Ingest: import rows/s as msnap reports it (no process start)', value: ownRate, unit: ' rows/s' }] : []),
    ],
    commands: [seed.command.replace(ctx.db, 'bench.db'), `msnap serve import export.csv --db import.db`],
    notes: [
      `Seeded database: ${seed.markets.toLocaleString('en-US')} markets, ${seed.snapshots.toLocaleString('en-US')} snapshots, ` +
        `${seed.orderbooks.toLocaleString('en-US')} orderbooks in ${(seed.wallMs / 1000).toFixed(1)} s; file ${(bytes.fileBytes / 2 ** 20).toFixed(1)} MiB ` +
        `(${(bytes.fileBytes / seed.snapshots).toFixed(1)} B per snapshot for the whole file, markets and orderbooks included).`,
      `Table bytes (indexes included): ${Object.entries(bytes.tables).filter(([, v]) => v >= 2 ** 16).map(([k, v]) => `${k} ${(v / 2 ** 20).toFixed(1)} MiB`).join(', ')}; counted as snapshot data: ${bytes.snapshotTables.join(', ')}.`,
      `Import: ${imported.snapshots.toLocaleString('en-US')} snapshots (${imported.markets} market(s)) from a ${exportCsv.rows.toLocaleString('en-US')}-row CSV in ${(importMs / 1000).toFixed(2)} s.`,
    ],
  };
}

// Tables that hold no snapshot data; every other table (snapshots and anything derived from it,
// such as packed blocks) and its indexes count towards the bytes of a snapshot.
const NOT_SNAPSHOT_DATA = new Set(['markets', 'accounts', 'api_keys', 'orderbooks', 'sqlite_schema', 'sqlite_master', 'sqlite_sequence', 'sqlite_stat1']);

function bytesPerSnapshot(file) {
  const db = new Database(file, { readonly: true });
  try {
    // Bytes per table, its indexes included (dbstat names b-trees; sqlite_schema maps them to tables).
    const tables = {};
    const rows = db
      .prepare(
        `SELECT coalesce(s.tbl_name, d.name) AS tbl, sum(d.pgsize) AS bytes
         FROM dbstat d LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY tbl ORDER BY bytes DESC`,
      )
      .all();
    for (const row of rows) tables[row.tbl] = row.bytes;
    const { snapshots, orderbooks } = countRows(file);
    const pageSize = db.pragma('page_size', { simple: true });
    const pageCount = db.pragma('page_count', { simple: true });
    const snapshotTables = Object.keys(tables).filter((t) => !NOT_SNAPSHOT_DATA.has(t));
    const snapshotBytes = snapshotTables.reduce((sum, t) => sum + tables[t], 0);
    const plain = snapshotBytes / snapshots;
    const withOrderbook = plain + (orderbooks > 0 ? (tables.orderbooks ?? 0) / orderbooks : NaN);
    return { plain, withOrderbook, tables, snapshotTables, fileBytes: pageSize * pageCount };
  } finally {
    db.close();
  }
}
