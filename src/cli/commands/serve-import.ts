// `msnap serve import`: loads a file written by `msnap markets|snapshots --ndjson|--csv|--json`.
import { existsSync, statSync } from 'node:fs';
import { Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import type { ImportFormat, ImportSummary } from '../../store/import/import-file.js';
import { DEFAULT_DB_PATH_HELP, isPostgresUrl, resolveDbPath, storeName } from '../../store/db-path.js';
import type { BulkLoadStore } from '../../store/bulk-store.js';
import { throughStaging, usingStore } from '../../service/store-use.js';
import type { CliContext } from '../context.js';
import { runAdminWithDeps, type CliDeps } from '../deps.js';
import { caselessChoices } from '../global-options.js';
import { counted } from '../output/terminal/count-text.js';

/** Checked arguments of `serve import`. */
export interface ImportCommandOptions {
  file: string;
  db: string;
  format?: ImportFormat;
}

/** Imports one file (or '-' for stdin) in one transaction and reports what was added. */
export async function runImport(opts: ImportCommandOptions, deps: CliDeps): Promise<ImportSummary | undefined> {
  // A directory opens like a file and fails only on the first read, deep in the import.
  if (opts.file !== '-' && existsSync(opts.file) && statSync(opts.file).isDirectory()) {
    throw new UsageError(`${opts.file} is a directory; give a .ndjson, .csv, .json or .parquet file`);
  }
  const { SQLITE_MAGIC, startsWith } = await import('../../store/import/file-magic.js');
  if (opts.file !== '-' && startsWith(opts.file, SQLITE_MAGIC)) {
    await importStore(opts, deps);
    return undefined;
  }
  const { importFile } = await import('../../store/import/import-file.js');
  const load = (store: BulkLoadStore) => importFile(store.bulk, opts.file, { format: opts.format, stdin: deps.stdin() });
  let s: ImportSummary;
  if (isPostgresUrl(opts.db)) {
    // PostgreSQL: the file is read into a temporary SQLite store by the same importer (every line
    // checked first), then merged with COPY in one transaction: what PostgreSQL already held is skipped.
    const started = performance.now();
    const { result, loaded } = await throughStaging(opts.db, deps, load);
    const ms = performance.now() - started;
    s = {
      ...result,
      snapshotsAdded: loaded.snapshotsAdded,
      snapshotsSkipped: result.snapshotsSkipped + loaded.snapshotsSkipped,
      marketsAdded: loaded.marketsAdded,
      marketsUpdated: loaded.marketsUpdated,
      orderbooksAdded: loaded.orderbooksAdded,
      ms,
      rowsPerSec: Math.round((result.snapshotsAdded + result.snapshotsSkipped) / (ms / 1000)),
    };
  } else {
    s = await usingStore(deps.openBulkStore(opts.db, { cacheMiB: 256 }), opts.db, load);
  }
  const fmt = (n: number) => n.toLocaleString('en-US');
  deps.writeOut(
    `imported ${opts.file === '-' ? 'stdin' : opts.file} (${s.format}): ${counted(s.snapshotsAdded, 'snapshot')} added, ` +
      `${fmt(s.snapshotsSkipped)} already present; ${counted(s.marketsAdded, 'market')} added, ${fmt(s.marketsUpdated)} updated; ` +
      `${(s.ms / 1000).toFixed(1)} s (${fmt(s.rowsPerSec)} rows/s)\n`,
  );
  return s;
}

/** A whole msnap store (an SQLite file) merged into a PostgreSQL store: markets, snapshots, ids, accounts and keys. */
async function importStore(opts: ImportCommandOptions, deps: CliDeps): Promise<void> {
  if (!isPostgresUrl(opts.db)) {
    throw new UsageError(`${opts.file} is an msnap database itself; serve it with --db ${opts.file}, or import it into a PostgreSQL store (--db postgres://...)`);
  }
  const { loadSqliteIntoPostgres } = await import('../../store/copy/sqlite-to-postgres.js');
  const c = await loadSqliteIntoPostgres(opts.file, opts.db);
  const fmt = (n: number) => n.toLocaleString('en-US');
  deps.writeOut(
    `imported store ${opts.file} into ${storeName(opts.db)}: ${counted(c.snapshotsAdded, 'snapshot')} added, ${fmt(c.snapshotsSkipped)} already present; ` +
      `${counted(c.marketsAdded, 'market')} added, ${fmt(c.marketsUpdated)} updated; ${counted(c.accountsAdded, 'account')}, ${counted(c.keysAdded, 'key')}; ${(c.ms / 1000).toFixed(1)} s\n`,
  );
}

/** Use to check the argument and flags of `serve import`; `globalFormat` is the root program's --format. */
function parseImportFlags(
  file: string,
  raw: { db?: string; format?: string },
  globalFormat: string | undefined,
  env: NodeJS.ProcessEnv,
): ImportCommandOptions {
  const format = raw.format ?? globalFormat;
  if (format !== undefined && format !== 'ndjson' && format !== 'csv' && format !== 'json' && format !== 'parquet') {
    throw new UsageError(`--format for serve import must be ndjson, csv, json or parquet; got "${format}"`);
  }
  return { file, db: resolveDbPath(raw.db, env), format };
}

/** The `serve import` subcommand. */
export function serveImportCommand(ctx: CliContext): Command {
  return new Command('import')
    .description('Load markets or snapshots exported by msnap (NDJSON, CSV, JSON or Parquet) into the database')
    .argument('<file>', 'file to load, or - for standard input')
    .option('--db <file|url>', `SQLite database file (default: ${DEFAULT_DB_PATH_HELP})`)
    .addOption(caselessChoices(new Option('--format <format>', 'input format (default: from the extension, else sniffed)'), ['ndjson', 'csv', 'json', 'parquet']))
    .addHelpText(
      'after',
      `
The whole file is one transaction: a bad line stops the import with "line N: ..." (Parquet:
"row N: ...") and leaves
the database exactly as it was. Rows already stored are skipped, so re-importing adds nothing.
Snapshots of a market the database lacks create it from its market_id.

Examples:
  $ msnap snapshots btc-updown-5m-1763769600 --ndjson > snaps.ndjson
  $ msnap serve import snaps.ndjson --db data.db
  $ msnap snapshots BTC 5m --json > snaps.json && msnap serve import snaps.json --db data.db
  $ msnap markets --coin btc --csv | msnap serve import - --format csv --db data.db
  $ msnap snapshots BTC 5m -o snaps.parquet && msnap serve import snaps.parquet --db data.db
  $ msnap serve import msnap.db --db postgres://msnap@db/msnap    # a whole store (pulled, seeded, imported or recorded) into PostgreSQL`,
    )
    .action(async (file: string, raw: { db?: string; format?: string }, cmd: Command) => {
      // The client's global --format is parsed by the root program even after `serve import`.
      const globalFormat = cmd.optsWithGlobals<{ format?: string }>().format;
      const opts = parseImportFlags(file, raw, globalFormat, ctx.env);
      await runAdminWithDeps(ctx, cmd, async (deps) => void (await runImport(opts, deps)));
    });
}
