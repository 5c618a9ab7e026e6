// `serve seed` and the library's seedStore: deterministic synthetic markets into a store that holds
// none yet. An SQLite file is written by the bulk writer; PostgreSQL is seeded into a temporary
// SQLite store by the same code, then copied in one transaction.
import type { MarketType } from '../domain/market.js';
import { UsageError } from '../errors.js';
import type { BulkLoadStore } from '../store/bulk-store.js';
import { isPostgresUrl, storeName } from '../store/db-path.js';
import type { SeedSummary } from '../store/seed/seed.js';
import type { StoreDeps } from './store-deps.js';
import { throughStaging, usingStore } from './store-use.js';

/** Checked flags of `serve seed`. */
export interface SeedCommandOptions {
  db: string;
  days: number;
  seed: number;
  full: Partial<Record<MarketType, number>>;
  /** Snapshots this recent (ms before now) get orderbooks: --orderbook-minutes or --orderbook-days. */
  orderbookMs: number;
}

/** What seeding needs: the store openers, the clock, and where progress lines go. */
export interface SeedDeps extends StoreDeps {
  now(): number;
  writeErr(text: string): void;
}

/** Use to seed `opts.db` (which must hold no markets yet): the summary, the time it took and rows/s, end to end into PostgreSQL. */
export async function seedNewStore(opts: SeedCommandOptions, deps: SeedDeps): Promise<{ summary: SeedSummary; ms: number; rowsPerSec: number }> {
  const { seedDatabase } = await import('../store/seed/seed.js');
  const seedInto = (store: BulkLoadStore): SeedSummary => {
    const existing = store.bulk.counts().markets;
    if (existing > 0) {
      throw new UsageError(`${opts.db} already holds ${existing} markets; seed a new file (or delete this one)`);
    }
    return seedDatabase(store.bulk, {
      now: deps.now(),
      days: opts.days,
      seed: opts.seed,
      fullMarkets: opts.full,
      orderbookMs: opts.orderbookMs,
      onProgress: (m) => deps.writeErr(`seed: ${m}\n`),
    });
  };
  const started = performance.now();
  let summary: SeedSummary;
  if (isPostgresUrl(opts.db)) {
    const held = await usingStore(deps.openStore(opts.db), opts.db, async (store) => (await store.listMarkets({ limit: 1, offset: 0, window: null, now: deps.now() })).total);
    if (held > 0) throw new UsageError(`${storeName(opts.db)} already holds ${held} markets; seed an empty database`);
    summary = (await throughStaging(opts.db, deps, seedInto)).result;
  } else {
    summary = await usingStore(deps.openBulkStore(opts.db, { cacheMiB: 256 }), opts.db, seedInto);
  }
  if (!isPostgresUrl(opts.db)) return { summary, ms: summary.ms, rowsPerSec: summary.rowsPerSec };
  // Into PostgreSQL the time includes the copy; rows/s is then end to end.
  const ms = performance.now() - started;
  return { summary, ms, rowsPerSec: Math.round((summary.snapshots + summary.orderbooks) / (ms / 1000)) };
}
