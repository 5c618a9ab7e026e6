// `msnap serve compact-books`: packs the orderbooks an older msnap stored as JSON text, in place;
// on PostgreSQL, moves the rows an older msnap stored into blocks (serve-compact-blocks.ts).
import { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { COMPACT_BATCH_ROWS, type CompactProgress } from '../../store/bulk-store.js';
import { DEFAULT_DB_PATH_HELP, isPostgresUrl, resolveDbPath } from '../../store/db-path.js';
import { usingStore } from '../../service/store-use.js';
import { runCompactBlocks } from './serve-compact-blocks.js';
import type { CliContext } from '../context.js';
import { boundedIntArg } from '../../domain/arguments.js';
import { runAdminWithDeps, type CliDeps } from '../deps.js';

/** Checked flags of `serve compact-books`. */
export interface CompactBooksOptions {
  db: string;
  batchRows: number;
  vacuum: boolean;
}

/** Use to check the flags of `serve compact-books`; throws UsageError naming the bad one. */
export function parseCompactBooksFlags(raw: { db?: string; batch: string; vacuum?: boolean }, env: NodeJS.ProcessEnv): CompactBooksOptions {
  const db = resolveDbPath(raw.db, env);
  if (isPostgresUrl(db) && raw.vacuum) throw new UsageError('--vacuum is for an SQLite file; on PostgreSQL the emptied row tables are truncated at the end');
  return { db, batchRows: boundedIntArg('--batch', raw.batch, 1, 10_000_000), vacuum: raw.vacuum ?? false };
}

/** Packs the store's text orderbooks, progress on stderr, a summary on stdout. */
export async function runCompactBooks(opts: CompactBooksOptions, deps: CliDeps): Promise<CompactProgress> {
  const fmt = (n: number) => n.toLocaleString('en-US');
  return usingStore(deps.openBulkStore(opts.db, { mustExist: true }), opts.db, (store) => {
    const started = performance.now();
    const done = store.bulk.compactBooks({
      batchRows: opts.batchRows,
      onProgress: (p) => deps.writeErr(`compact-books: ${fmt(p.done)} / ${fmt(p.total)} text rows (${p.total ? Math.floor((100 * p.done) / p.total) : 100}%)\n`),
    });
    const s = (performance.now() - started) / 1000;
    if (opts.vacuum) store.bulk.vacuum();
    deps.writeOut(
      `compacted ${opts.db}: ${fmt(done.packed)} orderbook rows packed, ${fmt(done.kept)} kept as text, in ${s.toFixed(1)} s ` +
        `(${fmt(Math.round(done.done / Math.max(s, 1e-3)))} rows/s)${opts.vacuum ? '; file vacuumed' : '; the space freed is reused by later writes (--vacuum returns it now)'}\n`,
    );
    return done;
  });
}

/** The `serve compact-books` subcommand. */
export function serveCompactBooksCommand(ctx: CliContext): Command {
  return new Command('compact-books')
    .description('Pack orderbooks stored as JSON text by an older msnap (about 20x smaller; served bytes unchanged)')
    .option('--db <file>', `SQLite database file or postgres:// URL (default: ${DEFAULT_DB_PATH_HELP})`)
    .option('--batch <n>', 'rows per transaction', String(COMPACT_BATCH_ROWS))
    .option('--vacuum', 'rewrite the file afterwards so it shrinks on disk (needs room for a copy)')
    .addHelpText(
      'after',
      `
Each batch is one transaction: a run stopped at any point leaves a store that serves the same
bytes, and running the command again continues where it stopped. The server may keep running.
On PostgreSQL it moves the snapshots and orderbooks an older msnap stored one row each into
blocks (whole markets per transaction), then truncates the emptied row tables.

Examples:
  $ msnap serve compact-books --db data.db
  $ msnap serve compact-books --db data.db --vacuum
  $ msnap serve compact-books --db postgres://msnap@db/msnap`,
    )
    .action(async (raw: { db?: string; batch: string; vacuum?: boolean }, cmd: Command) => {
      const opts = parseCompactBooksFlags(raw, ctx.env);
      await runAdminWithDeps(ctx, cmd, async (deps) => void (await (isPostgresUrl(opts.db) ? runCompactBlocks(opts, deps) : runCompactBooks(opts, deps))));
    });
}
