// Copies a store's dump (an msnap SQLite store, read by copy/sqlite-to-postgres.ts) into the
// PostgreSQL store: `serve seed` and `serve import` with --store postgres://… write a temp SQLite
// file and load it here. The whole load is one
// transaction, so an interrupted one leaves nothing behind, and it merges: what PostgreSQL
// already holds stays, a market's details are filled in, rows already stored are skipped (loading
// the same file twice adds nothing). Rows and depth are copied into temp tables and from there
// merged into each market's blocks; a market PostgreSQL already held gets its summary recomputed
// as SQLite does. A real market's slug, fee schedule and price source and the realdata tables
// (pg-load-realdata.ts) go with it, so an import or a recording resumes in PostgreSQL.
import type postgres from 'postgres';
import { MARKET_DETAIL_FIELDS } from '../../domain/market.js';
import { SNAPSHOT_ID_STRIDE } from '../core/snapshot-ids.js';
import type { DumpRow, MarketDumpTable, StoreDumpSource } from '../core/store-dump.js';
import { foldRows, moveMarketToBlocks } from './pg-blocks.js';
import { copyInto } from './pg-copy.js';
import { loadAccounts } from './pg-load-accounts.js';
import { loadRealdata } from './pg-load-realdata.js';
import { ADOPT_MARKETS_SQL, MERGE_IDS_SQL, REFRESH_SQL, TEMP_MARKETS_SQL, UPSERT_MARKETS_SQL } from './pg-load-sql.js';
import { openPgStore, type PgStore, type PgStoreOptions } from './pg-store.js';

/** Progress of a load: rows of `table` copied so far out of `total`. */
export interface LoadProgress {
  table: string;
  done: number;
  total: number;
}

/** Options for loadSqliteIntoPostgres. */
export interface LoadOptions {
  /** Called after every batch; a returned promise holds the load until it settles. */
  onProgress?: (p: LoadProgress) => void | Promise<void>;
  /** Store options when the target is a URL. */
  store?: PgStoreOptions;
}

/** What a load did: rows new to PostgreSQL, and rows it already held. */
export interface LoadCounts {
  marketsAdded: number;
  marketsUpdated: number;
  snapshotsAdded: number;
  snapshotsSkipped: number;
  orderbooksAdded: number;
  accountsAdded: number;
  keysAdded: number;
  sessionsAdded: number;
  ms: number;
}

type Tx = postgres.ReservedSql;

/**
 * Use to copy a store's dump into a PostgreSQL store (an open PgStore, or a URL: opened, migrated
 * and closed here). All or nothing; throws StoreUnavailableError when the database goes away midway.
 */
export async function loadDumpIntoPostgres(dump: StoreDumpSource, target: PgStore | string, opts: LoadOptions = {}): Promise<LoadCounts> {
  const started = performance.now();
  let store: PgStore | undefined;
  try {
    store = typeof target === 'string' ? await openPgStore(target, opts.store) : target;
    const counts = await store.bulkTransaction((tx) => load(tx, dump, opts.onProgress ?? (() => undefined)));
    return { ...counts, ms: Math.round(performance.now() - started) };
  } finally {
    if (typeof target === 'string') await store?.close();
  }
}

async function load(tx: Tx, dump: StoreDumpSource, progress: (p: LoadProgress) => void | Promise<void>): Promise<Omit<LoadCounts, 'ms'>> {
  const markets = dump.markets();
  await tx.unsafe(TEMP_MARKETS_SQL);
  const marketColumns = ['src', 'market_id', 'coin', 'market_type', 'start_time', 'end_time', 'price_start', 'price_end', 'winner',
    'snapshot_count', 'dense', ...MARKET_DETAIL_FIELDS, 'id_base', 'id_step', 'id_exceptions', 'slug', 'fee_schedule', 'price_source'];
  await copyInto(tx, 'load_markets', marketColumns, once(markets), (m) => [
    m.id, m.market_id, m.coin, m.market_type, m.start_time, m.end_time, m.price_start, m.price_end, m.winner,
    m.snapshot_count, m.dense === 1, ...MARKET_DETAIL_FIELDS.map((f) => m[f]),
    // msnap's own ids follow the SQLite rowid: kept as an explicit pattern, since the row gets a new id here.
    m.id_base ?? m.id * SNAPSHOT_ID_STRIDE, m.id_base === null ? null : m.id_step, m.id_exceptions,
    m.slug ?? null, m.fee_schedule ?? null, m.price_source ?? null,
  ]);
  await progress({ table: 'markets', done: markets.length, total: markets.length });
  const mapped = await tx.unsafe<{ src: number; dst: number; inserted: boolean; fresh: boolean }[]>(UPSERT_MARKETS_SQL);
  await tx.unsafe(ADOPT_MARKETS_SQL);
  const dst = new Map(mapped.map((r) => [r.src, r.dst]));
  const fresh = mapped.filter((r) => r.fresh).map((r) => r.src);
  const merged = mapped.filter((r) => !r.fresh).map((r) => r.src);
  const byDst = (row: DumpRow) => [dst.get(row[0] as number)!, ...row.slice(1)];

  // Rows and depth go through temp tables, then into each market's blocks (pg-blocks.ts): what
  // PostgreSQL holds already stays. Id exceptions of markets it had no rows for go in as they are.
  const copy = (table: string, source: MarketDumpTable, into: string, markets: number[]) => {
    const total = source.count(markets);
    let done = 0;
    return copyInto(tx, into, source.columns, source.batches(markets), byDst, (n) => progress({ table, done: (done += n), total }));
  };
  await tx.unsafe(`CREATE TEMP TABLE load_snapshots (LIKE snapshots) ON COMMIT DROP;
    CREATE TEMP TABLE load_orderbooks (LIKE orderbooks) ON COMMIT DROP;
    CREATE TEMP TABLE load_ids (LIKE snapshot_ids) ON COMMIT DROP;
    CREATE TEMP TABLE load_added (market bigint, t integer) ON COMMIT DROP`).simple();
  const all = mapped.map((r) => r.src);
  const rows = await copy('snapshots', dump.snapshots, 'load_snapshots', all);
  await copy('orderbooks', dump.orderbooks, 'load_orderbooks', all);
  await copy('snapshot ids', dump.snapshotIds, 'snapshot_ids', fresh);
  await tx.unsafe(`CREATE INDEX ON load_snapshots (market, t); CREATE INDEX ON load_orderbooks (market, t); ANALYZE load_snapshots, load_orderbooks`).simple();
  let snapshotsAdded = 0;
  let orderbooksAdded = 0;
  const isMerged = new Set(merged);
  let done = 0;
  for (const src of all) {
    const market = dst.get(src)!;
    const keep = isMerged.has(src);
    if (keep) await moveMarketToBlocks(tx, market);
    const c = await foldRows(tx, market, { snapshots: 'load_snapshots', orderbooks: 'load_orderbooks' }, keep);
    snapshotsAdded += c.added;
    orderbooksAdded += c.books;
    if (keep && c.addedTs!.length > 0) await copyInto(tx, 'load_added', ['market', 't'], once(c.addedTs!), (t) => [market, t]);
    await progress({ table: 'blocks', done: ++done, total: all.length });
  }
  const snapshotsSkipped = rows - snapshotsAdded;

  if (merged.length > 0) {
    await copy('snapshot ids', dump.snapshotIds, 'load_ids', merged);
    await tx.unsafe(MERGE_IDS_SQL);
    await tx.unsafe(REFRESH_SQL).simple();
  }

  const origins = dump.origins;
  await tx.unsafe('CREATE TEMP TABLE load_origins (LIKE market_origin) ON COMMIT DROP');
  await copyInto(tx, 'load_origins', origins.columns, origins.batches(), (r) => [dst.get(r[0] as number) ?? null, ...r.slice(1)]);
  // The most recent pull of a market says where it came from.
  await tx.unsafe(`INSERT INTO market_origin SELECT * FROM load_origins WHERE market IS NOT NULL
    ON CONFLICT (market) DO UPDATE SET origin_base_url = excluded.origin_base_url, origin_dialect = excluded.origin_dialect,
      origin_pulled_at = excluded.origin_pulled_at WHERE excluded.origin_pulled_at >= market_origin.origin_pulled_at`);

  await loadRealdata(tx, dump);
  const accounts = await loadAccounts(tx, dump);
  // Fresh statistics, so the planner uses the indexes on what was just loaded.
  await tx.unsafe('ANALYZE markets; ANALYZE snapshot_blocks').simple();
  return {
    marketsAdded: mapped.filter((r) => r.inserted).length,
    marketsUpdated: mapped.filter((r) => !r.inserted).length,
    snapshotsAdded,
    snapshotsSkipped,
    orderbooksAdded,
    ...accounts,
  };
}

async function* once<T>(rows: T[]): AsyncIterable<T[]> {
  if (rows.length > 0) yield rows;
}
