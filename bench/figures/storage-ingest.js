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
      'Bytes per snapshot from `SELECT name, sum(pgsize) FROM dbstat GROUP BY name` on the seeded database (snapshots table ' +
      'bytes / snapshot rows; with orderbook adds the orderbooks table bytes / orderbook rows). Seed rows/s: all rows written ' +
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
      `Table bytes: ${Object.entries(bytes.tables).map(([k, v]) => `${k} ${(v / 2 ** 20).toFixed(1)} MiB`).join(', ')}.`,
      `Import: ${imported.snapshots.toLocaleString('en-US')} snapshots (${imported.markets} market(s)) from a ${exportCsv.rows.toLocaleString('en-US')}-row CSV in ${(importMs / 1000).toFixed(2)} s.`,
    ],
  };
}

function bytesPerSnapshot(file) {
  const db = new Database(file, { readonly: true });
  try {
    const tables = {};
    for (const row of db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY 2 DESC').all()) tables[row.name] = row.bytes;
    const { snapshots, orderbooks } = countRows(file);
    const pageSize = db.pragma('page_size', { simple: true });
    const pageCount = db.pragma('page_count', { simple: true });
    const plain = (tables.snapshots ?? 0) / snapshots;
    const withOrderbook = plain + (orderbooks > 0 ? (tables.orderbooks ?? 0) / orderbooks : NaN);
    return { plain, withOrderbook, tables, fileBytes: pageSize * pageCount };
  } finally {
    db.close();
  }
}
