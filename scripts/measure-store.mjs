#!/usr/bin/env node
// Measures the SQLite store's bulk paths side by side: import of one 691,200-row 24hr market from
// NDJSON and from CSV (rows/s), then snapshotPageJson pages at random offsets (snapshots/s).
// Compare builds in the same run (the machine is shared, absolute numbers drift):
//   node scripts/measure-store.mjs                       # ./dist only
//   node scripts/measure-store.mjs --dist /tmp/base/dist --dist dist   # baseline, then current
// Options: --rounds N (default 2, best kept), --serve-ms N (per page size, default 1500),
// --only seed|import|serve, --keep (leave the work directory with its export files).
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const dists = [];
for (let i = 0; i < args.length; i++) if (args[i] === '--dist') dists.push(path.resolve(args[i + 1]));
if (dists.length === 0) dists.push(path.resolve('dist'));
const rounds = Number(opt('rounds', '2'));
const serveMs = Number(opt('serve-ms', '1500'));
const only = opt('only', '');

// Just after a day boundary: the active 24hr markets hold a handful of rows, the resolved ones are full.
const NOW = Date.UTC(2025, 10, 22, 0, 0, 1);
const work = mkdtempSync(path.join(tmpdir(), 'msnap-measure-'));

async function load(dist) {
  const imp = (p) => import(pathToFileURL(path.join(dist, p)).href);
  // openSqliteStore lives in open.js since the store was split; older builds export it from sqlite-store.js.
  const opener = existsSync(path.join(dist, 'store/sqlite/open.js')) ? 'store/sqlite/open.js' : 'store/sqlite/sqlite-store.js';
  const [sqlite, seed, importer] = await Promise.all([
    imp(opener),
    imp('store/seed/seed.js'),
    imp('store/import/import-file.js'),
  ]);
  // Seed and import take the store's bulk writer (older builds: the store itself).
  const bulkOf = (store) => store.bulk ?? store;
  return { dist, label: path.relative(process.cwd(), dist) || dist, bulkOf, ...sqlite, ...seed, ...importer };
}

const variants = [];
for (const d of dists) variants.push(await load(d));
const ref = variants[variants.length - 1];

// Source data: two full 24hr markets per coin; the resolved BTC one is exported.
const srcPath = path.join(work, 'src.db');
const src = ref.openSqliteStore(srcPath, { cacheMiB: 256 });
const seeded = ref.seedDatabase(ref.bulkOf(src), {
  now: NOW,
  days: 2,
  fullMarkets: { '5m': 0, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 2 },
  orderbookMs: 0,
});
console.log(`seed: ${seeded.snapshots.toLocaleString('en-US')} snapshots in ${(seeded.ms / 1000).toFixed(1)} s (${seeded.rowsPerSec.toLocaleString('en-US')} rows/s, ${ref.label})`);
const market = src.listMarkets({ coin: 'BTC', marketType: '24hr', status: 'resolved', limit: 1, offset: 0, window: null, now: NOW }).markets[0];

// Export as `msnap snapshots --ndjson|--csv` writes it.
const ndjsonPath = path.join(work, 'export.ndjson');
const csvPath = path.join(work, 'export.csv');
{
  const nd = createWriteStream(ndjsonPath);
  const csv = createWriteStream(csvPath);
  csv.write('id,market_id,time,price,price_up,price_down\n');
  for (let offset = 0; offset < market.snapshot_count; offset += 10_000) {
    const page = JSON.parse(src.snapshotPageJson(market.market_id, { limit: 10_000, offset, includeOrderbook: false }).json);
    nd.write(page.map((s) => JSON.stringify(s)).join('\n') + '\n');
    csv.write(page.map((s) => `${s.id},${s.market_id},${s.time},${s.price},${s.price_up},${s.price_down}`).join('\n') + '\n');
  }
  await Promise.all([new Promise((r) => nd.end(r)), new Promise((r) => csv.end(r))]);
}
src.close();
const rows = market.snapshot_count;
console.log(`export: ${market.market_id}, ${rows.toLocaleString('en-US')} rows; NDJSON ${mb(ndjsonPath)} MB, CSV ${mb(csvPath)} MB`);

const fmt = (n) => Math.round(n).toLocaleString('en-US');
function cpuSeconds(since) {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1e6;
}
function mb(p) {
  return (statSync(p).size / 1e6).toFixed(1);
}

// ---- seed ---------------------------------------------------------------------------------------
if (only === 'seed') {
  for (let round = 0; round < rounds; round++) {
    for (const v of variants) {
      const store = v.openSqliteStore(path.join(work, `seed-${variants.indexOf(v)}-${round}.db`), { cacheMiB: 256 });
      const c0 = process.cpuUsage();
      const r = v.seedDatabase(v.bulkOf(store), { now: NOW, days: 1, fullMarkets: { '5m': 72, '15m': 24, '1hr': 6, '4hr': 0, '24hr': 0 } });
      const cpu = cpuSeconds(c0);
      store.close();
      console.log(`  round ${round + 1} seed ${v.label}: ${fmt(r.snapshots)} snapshots, ${fmt(r.rowsPerSec)} rows/s, ${fmt(r.snapshots / cpu)} per CPU second`);
    }
  }
}

// ---- import -------------------------------------------------------------------------------------
const servingDb = new Map();
if (only === '' || only === 'import') {
  const best = new Map();
  for (let round = 0; round < rounds; round++) {
    for (const v of variants) {
      for (const [format, file] of [['ndjson', ndjsonPath], ['csv', csvPath]]) {
        const dbPath = path.join(work, `dst-${variants.indexOf(v)}-${format}-${round}.db`);
        // As `msnap serve import` opens it.
        const store = v.openSqliteStore(dbPath, { cacheMiB: 256 });
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        const r = await v.importFile(v.bulkOf(store), file);
        const ms = performance.now() - t0;
        const cpu = cpuSeconds(c0);
        store.close();
        const raw = new Database(dbPath, { readonly: true });
        const bytes = raw.pragma('page_count', { simple: true }) * raw.pragma('page_size', { simple: true });
        raw.close();
        if (r.snapshotsAdded !== rows) throw new Error(`${v.label}: imported ${r.snapshotsAdded} of ${rows}`);
        const rate = rows / (ms / 1000);
        const key = `${v.label} ${format}`;
        if (!best.has(key) || best.get(key).rate < rate) best.set(key, { rate, bytes, cpuRate: rows / cpu });
        console.log(`  round ${round + 1} ${key}: ${fmt(rate)} rows/s (${(ms / 1000).toFixed(2)} s; ${fmt(rows / cpu)} rows per CPU second)`);
        if (format === 'ndjson' && !servingDb.has(v)) servingDb.set(v, dbPath);
        else if (servingDb.get(v) !== dbPath) rmSync(dbPath, { force: true });
      }
    }
  }
  // The ceiling: SQLite inserting the same number of rows generated in SQL, no JS per row.
  // The schema from the store, then plain SQL over its own connection.
  ref.openSqliteStore(path.join(work, 'ceiling.db')).close();
  const ceiling = new Database(path.join(work, 'ceiling.db'));
  ceiling.pragma('journal_mode = WAL');
  ceiling.pragma('synchronous = NORMAL');
  ceiling.pragma('cache_size = -262144');
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  ceiling.exec(`WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < ${rows - 1})
    INSERT OR IGNORE INTO snapshots (market, t, price, price_up, price_down)
    SELECT 1, i * 125, 965260500 + i % 1000, 5000 + i % 100, 5100 - i % 100 FROM k`);
  const ceilingRate = rows / ((performance.now() - t0) / 1000);
  const ceilingCpu = rows / cpuSeconds(c0);
  ceiling.close();
  console.log('import, best of rounds (wall rows/s, rows per CPU second, size):');
  for (const [key, { rate, bytes, cpuRate }] of best) {
    console.log(`  ${key.padEnd(40)} ${fmt(rate).padStart(10)} rows/s ${fmt(cpuRate).padStart(10)} /cpu-s   ${(bytes / rows).toFixed(1)} bytes/snapshot (db pages)`);
  }
  console.log(`  ${'ceiling: INSERT ... SELECT in SQL'.padEnd(40)} ${fmt(ceilingRate).padStart(10)} rows/s ${fmt(ceilingCpu).padStart(10)} /cpu-s`);
}

// ---- serving ------------------------------------------------------------------------------------
if (only === '' || only === 'serve') {
  for (const v of variants) {
    if (servingDb.has(v)) continue;
    const dbPath = path.join(work, `serve-${variants.indexOf(v)}.db`);
    const store = v.openSqliteStore(dbPath);
    await v.importFile(v.bulkOf(store), ndjsonPath);
    store.close();
    servingDb.set(v, dbPath);
  }
  const stores = variants.map((v) => ({ v, store: v.openSqliteStore(servingDb.get(v), { readonly: true }) }));
  // Same pages for every variant: a small deterministic generator.
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
  const best = new Map();
  for (let round = 0; round < rounds; round++) {
    for (const limit of [1000, 10_000]) {
      for (const { v, store } of stores) {
        seed = 12345 + limit;
        let snaps = 0;
        let bytes = 0;
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        let t = t0;
        while (t - t0 < serveMs) {
          for (let k = 0; k < 20; k++) {
            const offset = Math.floor(rand() * (rows - limit));
            const page = store.snapshotPageJson(market.market_id, { limit, offset, includeOrderbook: false });
            snaps += page.count;
            bytes += page.json.length;
          }
          t = performance.now();
        }
        const rate = snaps / ((t - t0) / 1000);
        const cpuRate = snaps / cpuSeconds(c0);
        const key = `${v.label} limit=${limit}`;
        if (!best.has(key) || best.get(key).rate < rate) best.set(key, { rate, cpuRate });
        console.log(`  round ${round + 1} ${key}: ${fmt(rate)} snapshots/s, ${fmt(cpuRate)} per CPU second (${(bytes / snaps).toFixed(0)} B/snapshot JSON)`);
      }
    }
  }
  // The ceiling of fetching the same rows raw, for context.
  const db = new Database(servingDb.get(stores[0].v), { readonly: true });
  const raw = db.prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? AND t >= ? AND t < ? ORDER BY t').raw(true);
  const rowid = db.prepare('SELECT id FROM markets WHERE market_id = ?').pluck().get(market.market_id);
  let n = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  while (performance.now() - t0 < serveMs) {
    const k = Math.floor(rand() * (rows - 1000));
    n += raw.all(rowid, k * 125, (k + 1000) * 125).length;
  }
  const rawRate = n / ((performance.now() - t0) / 1000);
  const rawCpu = n / cpuSeconds(c0);
  console.log('serving, best of rounds (wall snapshots/s, per CPU second):');
  for (const [key, { rate, cpuRate }] of best) console.log(`  ${key.padEnd(40)} ${fmt(rate).padStart(10)} /s ${fmt(cpuRate).padStart(10)} /cpu-s`);
  console.log(`  ${'raw better-sqlite3 4-column rows, 1000'.padEnd(40)} ${fmt(rawRate).padStart(10)} /s ${fmt(rawCpu).padStart(10)} /cpu-s`);
  db.close();
  for (const { store } of stores) store.close();
}

if (args.includes('--keep')) console.log(`kept ${work}`);
else rmSync(work, { recursive: true, force: true });
