// Figure 18: the PostgreSQL store in blocks. Two seeded SQLite stores (books on every snapshot,
// and none) imported into fresh PostgreSQL databases: bytes per snapshot of the snapshot tables
// (indexes and TOAST included) in SQLite, in PostgreSQL's blocks ("after") and in the row layout an
// older msnap wrote ("before": the same database moved back into rows); `serve compact-books`
// migrating that row store in place; snapshot pages through `msnap serve` on SQLite and on
// PostgreSQL, taking turns; peak RSS of each process.
import path from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { MSNAP_BIN, ROOT, runMsnap, runNode, startServer } from '../child-process.js';
import { countRows, createKey, fullMarkets, seededStores, seedFlags } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';
import { loadSnapshots } from './snapshot-load.js';

const PAGE = 1000;
const BYTES_RATIO_TARGET = { max: 1.5 };
const PAGES_RATIO_TARGET = { min: 0.8 };
const SQLITE_TABLES = ['snapshots', 'snapshot_blocks', 'sqlite_autoindex_snapshot_blocks_1', 'orderbooks', 'snapshot_ids'];
const PG_TABLES = ['snapshots', 'orderbooks', 'snapshot_blocks', 'snapshot_ids'];

export async function pgStorageFigure(ctx) {
  const pgUrl = process.env.MSNAP_BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = postgres(pgUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  const made = [];
  const servers = [];
  const urlOf = (name) => {
    const u = new URL(pgUrl);
    u.pathname = `/${name}`;
    return u.toString();
  };
  const createDb = async (suffix, template) => {
    const name = `msnap_bench18_${process.pid}_${suffix}`;
    await admin.unsafe(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
    made.push(name);
    return name;
  };
  const beforeSpec = ctx.sizes.pgBefore;
  // The full run's stores are figure 12's (seeded alike, so the books store is read, not seeded again).
  const spec = ctx.sizes.pgStore ?? ctx.sizes.depth;
  const mb = (kb) => (kb ?? NaN) / 1024;
  try {
    const kinds = {};
    for (const kind of ['plain', 'books']) {
      const books = kind === 'books' ? ['--orderbook-days', String(spec.days)] : ['--orderbook-minutes', '0'];
      // Figure 12 seeds the same store with books in the full run: read that one if it is there.
      const seeded = seededStores(ctx).find(spec, books);
      const file = seeded ?? path.join(ctx.tmpDir, `pg18-${kind}.db`);
      if (!seeded) await runMsnap(['serve', 'seed', '--db', file, ...seedFlags(spec), ...books], { tmpDir: ctx.tmpDir, env: { MSNAP_DB: file } });
      const key = await createKey(file, { account: `bench-pg18-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
      const rows = countRows(file);
      const after = await createDb(kind);
      const imported = await runMsnap(['serve', 'import', file, '--db', urlOf(after)], { tmpDir: ctx.tmpDir, measureRss: true });
      // The "before" (moved back into rows, then migrated by compact-books) is slow in rows and
      // the same per snapshot at any size: the full run takes it from a smaller store seeded
      // alike (ctx.sizes.pgBefore) instead of a copy of this one.
      let before;
      let beforeRows = rows;
      if (beforeSpec) {
        const small = path.join(ctx.tmpDir, `pg18-${kind}-before.db`);
        const smallBooks = kind === 'books' ? ['--orderbook-days', String(beforeSpec.days)] : ['--orderbook-minutes', '0'];
        await runMsnap(['serve', 'seed', '--db', small, ...seedFlags(beforeSpec), ...smallBooks], { tmpDir: ctx.tmpDir, env: { MSNAP_DB: small } });
        beforeRows = countRows(small);
        before = await createDb(`${kind}_rows`);
        await runMsnap(['serve', 'import', small, '--db', urlOf(before)], { tmpDir: ctx.tmpDir });
      } else {
        before = await createDb(`${kind}_rows`, after);
      }
      const legacy = await runNode(path.join(ROOT, 'bench/pg/legacy-rows.js'), [urlOf(before)], { tmpDir: ctx.tmpDir });
      if (legacy.code !== 0) throw new Error(`moving blocks back into rows failed: ${legacy.stderr.slice(-500)}`);
      const beforeBytes = await pgBytes(urlOf(before), ['snapshots', 'orderbooks', 'snapshot_ids']);
      const migrated = await runMsnap(['serve', 'compact-books', '--db', urlOf(before)], { tmpDir: ctx.tmpDir, measureRss: true });
      kinds[kind] = {
        file,
        key,
        rows,
        beforeRows,
        store: urlOf(after),
        sqlite: sqliteBytes(file),
        after: await pgBytes(urlOf(after), PG_TABLES),
        before: beforeBytes,
        migrated: await pgBytes(urlOf(before), PG_TABLES),
        imported,
        migration: migrated,
      };
    }
    const start = async (args) => {
      const s = await startServer(MSNAP_BIN, ['serve', ...args, '--host', '127.0.0.1', '--port', '0'], { env: { MSNAP_DB: '', MSNAP_DATABASE_URL: '', MSNAP_REDIS_URL: '' } });
      servers.push(s);
      return s;
    };
    const pages = {};
    const pageSizes = { ...ctx.sizes, ...ctx.sizes.pgPagesLoad };
    for (const kind of ['plain', 'books']) {
      const k = kinds[kind];
      const lite = await start(['--db', k.file, '--no-live']);
      const pg = await start(['--db', k.store]);
      const markets = fullMarkets(k.file, { type: '5m', limit: 50 });
      if (markets.length === 0) throw new Error('the seeded store holds no complete 5m market');
      const query = kind === 'books' ? '&include_orderbook=true' : '';
      const sample = await samplePages([lite.url, pg.url], k.key, markets, query);
      const r = await loadSnapshots([['sqlite', [lite.url]], ['postgres', [pg.url]]], { key: k.key, markets, page: PAGE, sizes: pageSizes, query });
      pages[kind] = { r, bytes: sample.bytes, same: sample.same, rss: { sqlite: lite.peakRssKb(), postgres: pg.peakRssKb() } };
    }
    const per = (k, bytes) => bytes / kinds[k].rows.snapshots;
    const perBefore = (k, bytes) => bytes / kinds[k].beforeRows.snapshots;
    const ratio = (k) => per(k, kinds[k].after) / per(k, kinds[k].sqlite);
    const rate = (k, side) => pages[k].r[side].reqPerSec;
    const pageRatio = rate('plain', 'postgres') / rate('plain', 'sqlite');
    const migrationRate = (k) => kinds[k].beforeRows.snapshots / (kinds[k].migration.wallMs / 1000);
    const rows = [];
    for (const k of ['plain', 'books']) {
      const label = k === 'plain' ? 'without books' : 'with books on every snapshot';
      rows.push(
        { name: `Bytes/snapshot ${label}: SQLite`, value: per(k, kinds[k].sqlite), unit: ' B' },
        { name: `Bytes/snapshot ${label}: PostgreSQL rows (before)`, value: perBefore(k, kinds[k].before), unit: ' B' },
        { name: `Bytes/snapshot ${label}: PostgreSQL blocks (after)`, value: per(k, kinds[k].after), unit: ' B' },
        { name: `Bytes/snapshot ${label}: PostgreSQL blocks / SQLite`, value: ratio(k), unit: 'x', target: describeTarget(BYTES_RATIO_TARGET, 'x'), verdict: judge({ value: ratio(k), ...BYTES_RATIO_TARGET }) },
      );
    }
    rows.push(
      { name: 'Pages/s of 1,000 snapshots: SQLite / PostgreSQL', value: `${rate('plain', 'sqlite').toFixed(0)} / ${rate('plain', 'postgres').toFixed(0)}`, unit: ' req/s' },
      { name: 'Page MB/s: SQLite / PostgreSQL', value: `${((rate('plain', 'sqlite') * pages.plain.bytes) / 1e6).toFixed(1)} / ${((rate('plain', 'postgres') * pages.plain.bytes) / 1e6).toFixed(1)}`, unit: ' MB/s' },
      { name: 'Pages/s PostgreSQL / SQLite (1 instance each)', value: pageRatio, unit: 'x', target: describeTarget(PAGES_RATIO_TARGET, 'x'), verdict: judge({ value: pageRatio, ...PAGES_RATIO_TARGET }) },
      { name: 'Pages/s with books: SQLite / PostgreSQL', value: `${rate('books', 'sqlite').toFixed(0)} / ${rate('books', 'postgres').toFixed(0)}`, unit: ' req/s' },
      { name: 'Pages/s with books PostgreSQL / SQLite', value: rate('books', 'postgres') / rate('books', 'sqlite'), unit: 'x' },
      { name: 'Migration rows to blocks: snapshots/s without / with books', value: `${migrationRate('plain').toFixed(0)} / ${migrationRate('books').toFixed(0)}`, unit: ' rows/s' },
      {
        name: 'Peak RSS: import / compact-books / serve SQLite / serve PostgreSQL',
        value: `${mb(kinds.books.imported.peakRssKb).toFixed(0)} / ${mb(kinds.books.migration.peakRssKb).toFixed(0)} / ${mb(Math.max(pages.plain.rss.sqlite, pages.books.rss.sqlite)).toFixed(0)} / ${mb(Math.max(pages.plain.rss.postgres, pages.books.rss.postgres)).toFixed(0)}`,
        unit: ' MB',
      },
    );
    return {
      title: 'PostgreSQL storage: snapshots in blocks',
      method:
        `Two stores seeded alike (\`serve seed ${seedFlags(spec).join(' ')}\`), one with books on every snapshot, one with none, each imported with ` +
        '`msnap serve import FILE.db --db postgres://…` into a fresh database (blocks). Bytes per snapshot: SQLite, `dbstat` pages of snapshots, ' +
        'snapshot_blocks, orderbooks and snapshot_ids; PostgreSQL, `pg_total_relation_size` (heap, TOAST, indexes) of snapshots, orderbooks, ' +
        'snapshot_blocks and snapshot_ids, over the snapshot count. "Before": a copy of the database (CREATE DATABASE … TEMPLATE) moved back into ' +
        'the row layout an older msnap wrote (bench/pg/legacy-rows.js), which `msnap serve compact-books --db postgres://…` then migrates in place ' +
        '(snapshots over process wall time). Pages: autocannon on `/api/v1/markets/ID/snapshots?limit=1000&offset=RANDOM` over the complete 5m ' +
        `markets, ${ctx.sizes.connections} connections, ${pageSizes.loadSeconds} s per side in ${pageSizes.loadSlices} slices taking turns, enterprise key; ` +
        'one `msnap serve` per store. PostgreSQL, the servers and autocannon share the same 2 cores.',
      rows,
      commands: [
        'msnap serve import FILE.db --db postgres://…/msnap_bench18_…',
        'node bench/pg/legacy-rows.js postgres://…/msnap_bench18_…_rows',
        'msnap serve compact-books --db postgres://…/msnap_bench18_…_rows',
        'msnap serve --db FILE.db --no-live --port 0',
        'msnap serve --db postgres://…/msnap_bench18_… --port 0',
      ],
      notes: [
        ...['plain', 'books'].map((k) => {
          const x = kinds[k];
          const m = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
          const beforeOf = beforeSpec ? ` (before, on a store seeded alike at \`${seedFlags(beforeSpec).join(' ')}\`: ${x.beforeRows.snapshots.toLocaleString('en-US')} snapshots)` : '';
          return `${k}: ${x.rows.snapshots.toLocaleString('en-US')} snapshots, ${x.rows.orderbooks.toLocaleString('en-US')} books; SQLite ${m(x.sqlite)}, PostgreSQL rows ${m(x.before)}${beforeOf}, blocks ${m(x.after)} (after the migration ${m(x.migrated)}).`;
        }),
        `Average page: ${Math.round(pages.plain.bytes).toLocaleString('en-US')} B without books, ${Math.round(pages.books.bytes).toLocaleString('en-US')} B with; sampled pages byte-identical between the two servers: ${pages.plain.same && pages.books.same ? 'yes' : 'NO'}.`,
        `Migration: ${kinds.books.migration.stdout.trim()}`,
        ...Object.entries(pages).flatMap(([k, v]) => Object.entries(v.r).map(([side, x]) => `${k} ${side}: ${Math.round(x.reqPerSec)} req/s; p50 ${x.p50} ms, p99 ${x.p99} ms; non-2xx ${x.non2xx}, errors ${x.errors}`)),
      ],
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    for (const name of made.reverse()) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end({ timeout: 1 });
  }
}

async function pgBytes(url, tables) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'msnap' AND c.relkind = 'r' AND c.relname IN ${sql(tables)}`;
    return Number(row.bytes);
  } finally {
    await sql.end();
  }
}

function sqliteBytes(file) {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (${SQLITE_TABLES.map(() => '?').join(', ')})`).pluck().get(...SQLITE_TABLES);
  } finally {
    db.close();
  }
}

/** The bytes of 20 random pages from each server: their average size, and whether the servers sent the same bytes. */
async function samplePages(urls, key, markets, query) {
  let bytes = 0;
  let same = true;
  for (let i = 0; i < 20; i++) {
    const m = markets[i % markets.length];
    const p = `/api/v1/markets/${m.market_id}/snapshots?limit=${PAGE}&offset=${(i * 397) % Math.max(1, m.snapshot_count - PAGE)}${query}`;
    const bodies = await Promise.all(urls.map((u) => fetch(u + p, { headers: { 'x-api-key': key } }).then((r) => r.text())));
    if (bodies.some((b) => b !== bodies[0])) same = false;
    bytes += Buffer.byteLength(bodies[0]);
  }
  return { bytes: bytes / 20, same };
}
