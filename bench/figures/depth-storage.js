// Figure 12: orderbooks packed in the SQLite store. Bytes per snapshot of the books as an older
// msnap stored them (JSON text) and packed; `serve compact-books` migrating the text store in
// place (rows/s, peak RSS); the seed with books for its whole history; and pages of 1,000
// snapshots with and without books in bytes/s.
import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { runMsnap, runNode, ROOT } from '../child-process.js';
import { countRows, seededStores, seedFlags } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const BOOK_BYTES_TARGET = { max: 100 };
const PAGE_RATIO_TARGET = { min: 0.8 };

export async function depthFigure(ctx) {
  const spec = ctx.sizes.depth;
  const packed = path.join(ctx.tmpDir, 'depth.db');
  const books = ['--orderbook-days', String(spec.days)];
  const seedArgs = ['serve', 'seed', '--db', packed, ...seedFlags(spec), ...books];
  const seed = await runMsnap(seedArgs, { tmpDir: ctx.tmpDir, measureRss: true, env: { MSNAP_DB: packed } });
  // Figure 18 reads (and serves) a store seeded alike: it takes this one instead of seeding again.
  seededStores(ctx).remember(spec, books, packed);
  const rows = countRows(packed);
  const after = bookBytes(packed);

  // The "before" (every book rewritten as JSON text, VACUUMed, then migrated back) costs minutes
  // at the full store's 2.4M books and ~2.4 GB of text; bytes per book and the migration's rows/s
  // do not depend on the store's size, so the full run takes them from a smaller store seeded
  // alike (ctx.sizes.depthBefore) and quick mode from a copy of its own small one.
  const beforeSpec = ctx.sizes.depthBefore;
  const text = path.join(ctx.tmpDir, 'depth-text.db');
  if (beforeSpec) await runMsnap(['serve', 'seed', '--db', text, ...seedFlags(beforeSpec), '--orderbook-days', String(beforeSpec.days)], { tmpDir: ctx.tmpDir, env: { MSNAP_DB: text } });
  else copyFileSync(packed, text);
  const beforeRows = beforeSpec ? countRows(text) : rows;
  const unpack = await runNode(path.join(ROOT, 'bench/depth/unpack-books.js'), [text], { tmpDir: ctx.tmpDir });
  if (unpack.code !== 0) throw new Error(`unpacking books failed: ${unpack.stderr.slice(-500)}`);
  const before = bookBytes(text);

  const compactArgs = ['serve', 'compact-books', '--db', text];
  const compact = await runMsnap(compactArgs, { tmpDir: ctx.tmpDir, measureRss: true, env: { MSNAP_DB: text } });
  rmSync(text, { force: true });
  const migrationRate = beforeRows.orderbooks / (compact.wallMs / 1000);
  const ownRate = Number((/\(([\d,]+) rows\/s\)/.exec(compact.stdout)?.[1] ?? '').replace(/,/g, '')) || undefined;

  const pages = await runNode(path.join(ROOT, 'bench/depth/page-rates.js'), [packed, String(ctx.sizes.depthPageSeconds)], { tmpDir: ctx.tmpDir, measureRss: true });
  if (pages.code !== 0) throw new Error(`page rates failed: ${pages.stderr.slice(-500)}`);
  const r = JSON.parse(pages.stdout);
  const ratio = r.books.bytesPerSec / r.plain.bytesPerSec;
  const mb = (kb) => (kb ?? NaN) / 1024;
  return {
    title: 'Depth: packed orderbooks',
    method:
      'A store seeded with books on every snapshot (`--orderbook-days` = `--days`). Bytes per snapshot of the books: the `orderbooks` table ' +
      "(with its b-tree's interior pages) from SQLite's `dbstat` / orderbook rows; \"before\" is the same store with every book rewritten as the JSON text an " +
      'older msnap stored, then VACUUMed. Migration: `msnap serve compact-books` on that text store, orderbook rows over process wall time. ' +
      'Pages: `snapshotPageJson` (what the server sends) for pages of 1,000 snapshots of the full markets, with and without `include_orderbook`, ' +
      'in alternating 250 ms slices in one process (no HTTP); bytes/s is the JSON bytes made per second.',
    rows: [
      { name: 'Books: bytes per snapshot, JSON text (before)', value: before.perRow, unit: ' B' },
      { name: 'Books: bytes per snapshot, packed (after)', value: after.perRow, unit: ' B', target: describeTarget(BOOK_BYTES_TARGET, ' B'), verdict: judge({ value: after.perRow, ...BOOK_BYTES_TARGET }) },
      { name: 'Whole file: bytes per snapshot with books, before / after', value: `${(before.fileBytes / beforeRows.snapshots).toFixed(0)} / ${(after.fileBytes / rows.snapshots).toFixed(0)}`, unit: ' B' },
      { name: 'Pages/s of 1,000 snapshots without books', value: r.plain.pagesPerSec, unit: ' pages/s' },
      { name: 'Pages/s of 1,000 snapshots with books', value: r.books.pagesPerSec, unit: ' pages/s' },
      { name: 'Page bytes/s with books / without', value: ratio, unit: 'x', target: describeTarget(PAGE_RATIO_TARGET, 'x'), verdict: judge({ value: ratio, ...PAGE_RATIO_TARGET }) },
      { name: 'Migration: orderbook rows/s (process wall)', value: migrationRate, unit: ' rows/s' },
      ...(ownRate ? [{ name: 'Migration: rows/s as msnap reports it', value: ownRate, unit: ' rows/s' }] : []),
      { name: 'Seed with books: rows/s (process wall)', value: (rows.snapshots + rows.orderbooks + rows.markets) / (seed.wallMs / 1000), unit: ' rows/s' },
      { name: 'Peak RSS: seed / compact-books / page reads', value: `${mb(seed.peakRssKb).toFixed(0)} / ${mb(compact.peakRssKb).toFixed(0)} / ${mb(pages.peakRssKb).toFixed(0)}`, unit: ' MB' },
    ],
    commands: [`msnap ${seedArgs.join(' ').replace(packed, 'depth.db')}`, 'node bench/depth/unpack-books.js depth-text.db', 'msnap serve compact-books --db depth-text.db', 'node bench/depth/page-rates.js depth.db'],
    notes: [
      `${rows.snapshots.toLocaleString('en-US')} snapshots, ${rows.orderbooks.toLocaleString('en-US')} orderbooks (2 x 2 x 8 levels, or fewer near 0 and 1); file ${(after.fileBytes / 2 ** 20).toFixed(1)} MiB packed.`,
      beforeSpec
        ? `Before and migration on a store seeded alike at a smaller size (\`serve seed ${seedFlags(beforeSpec).join(' ')}\`, books on every snapshot): ${beforeRows.snapshots.toLocaleString('en-US')} snapshots, ${beforeRows.orderbooks.toLocaleString('en-US')} orderbooks, ${(before.fileBytes / 2 ** 20).toFixed(1)} MiB as text.`
        : `Before and migration on a copy of the same store: ${(before.fileBytes / 2 ** 20).toFixed(1)} MiB as text.`,
      `Page bytes: ${Math.round(r.plain.bytesPerPage).toLocaleString('en-US')} without books, ${Math.round(r.books.bytesPerPage).toLocaleString('en-US')} with; ${(r.plain.bytesPerSec / 1e6).toFixed(0)} vs ${(r.books.bytesPerSec / 1e6).toFixed(0)} MB/s.`,
      // The last full run before issue 25's reads (one statement per page's books, price pieces), beside this one.
      'Before issue 25 (BENCHMARKS.md, full run on 21c8964): 3,839 pages/s without books and 284.0 with (0.597x); peak RSS of the page reads 179 MB.',
    ],
  };
}

function bookBytes(file) {
  const db = new Database(file, { readonly: true });
  try {
    const table = db.prepare("SELECT sum(pgsize) FROM dbstat WHERE name = 'orderbooks'").pluck().get();
    const n = db.prepare('SELECT count(*) FROM orderbooks').pluck().get();
    const pages = db.pragma('page_count', { simple: true });
    const size = db.pragma('page_size', { simple: true });
    const free = db.pragma('freelist_count', { simple: true });
    return { perRow: table / n, fileBytes: (pages - free) * size };
  } finally {
    db.close();
  }
}
