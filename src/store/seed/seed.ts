// Deterministic synthetic data for `msnap serve seed` and `serve --demo`: every coin and market
// type for the last `days` days; full 8/s snapshots only for the newest markets of each type
// (older markets carry price_start, price_end and winner with snapshot_count 0), which keeps the
// default database small and the seed fast while every series still exceeds the builder cap.
// Values come from synthetic-market.ts, so they depend on the seed and the market alone: two seeds
// run at different times agree on every market both hold, and serve --live continues them.
import { COINS, MARKET_DURATION_MS, MARKET_TYPES, SNAPSHOT_INTERVAL_MS, type MarketType } from '../../domain/market.js';
import type { BulkWrites } from '../bulk-store.js';
import { SyntheticCoin } from './synthetic-market.js';
import { DEFAULT_FULL_MARKETS } from './seed-defaults.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export { DEFAULT_FULL_MARKETS } from './seed-defaults.js';

/** Snapshots this close to the clock carry orderbooks, unless a seed says otherwise. */
const DEFAULT_ORDERBOOK_MS = 10 * 60_000;

/** Options for seedDatabase; `now` is the clock the data ends at (the active markets contain it). */
export interface SeedOptions {
  now: number;
  days?: number;
  seed?: number;
  /** Per type, how many newest markets get full snapshots (default DEFAULT_FULL_MARKETS). */
  fullMarkets?: Partial<Record<MarketType, number>>;
  /** Snapshots this close to `now` also get 8-level orderbooks (default 10 minutes). */
  orderbookMs?: number;
  onProgress?: (message: string) => void;
}

/** What a seed run made, for the command's summary. */
export interface SeedSummary {
  markets: number;
  fullMarkets: number;
  snapshots: number;
  orderbooks: number;
  ms: number;
  rowsPerSec: number;
  from: number;
  to: number;
}

interface PlannedMarket {
  coin: (typeof COINS)[number];
  type: MarketType;
  start: number;
  full: boolean;
}

/**
 * Use to fill a database (through its bulk writer) with synthetic data, in one transaction; records
 * the world (seed, orderbook window, clock) and owns every market it makes, for serve --live.
 */
export function seedDatabase(bulk: BulkWrites, opts: SeedOptions): SeedSummary {
  const started = performance.now();
  const days = opts.days ?? 15;
  const seed = opts.seed ?? 1;
  const orderbookMs = opts.orderbookMs ?? DEFAULT_ORDERBOOK_MS;
  const full = { ...DEFAULT_FULL_MARKETS, ...opts.fullMarkets };
  const now = opts.now;
  const from = now - days * DAY_MS;
  if (!(days > 0)) throw new RangeError('days must be positive');

  // Every market of every coin and type from `from` up to the one active at `now`.
  const planned: PlannedMarket[] = [];
  for (const type of MARKET_TYPES) {
    const d = MARKET_DURATION_MS[type];
    const first = Math.ceil(from / d) * d;
    const last = Math.floor(now / d) * d;
    const fullFrom = last - (full[type] - 1) * d;
    for (const coin of COINS) {
      for (let start = first; start <= last; start += d) {
        planned.push({ coin, type, start, full: full[type] > 0 && start >= fullFrom });
      }
    }
  }
  // Rowids then grow with start_time, so snapshot inserts append to the end of the b-tree.
  planned.sort((a, b) => a.start - b.start || a.coin.localeCompare(b.coin) || MARKET_DURATION_MS[a.type] - MARKET_DURATION_MS[b.type]);

  const lastStep = now - (now % SNAPSHOT_INTERVAL_MS);
  let snapshots = 0;
  let orderbooks = 0;
  let fullCount = 0;
  bulk.transaction(() => {
    const writer = bulk.snapshotWriter();
    bulk.world.save({ seed, orderbookMs, through: now });
    for (const coin of COINS) {
      const synthetic = new SyntheticCoin(seed, coin);
      for (const m of planned) {
        if (m.coin !== coin) continue;
        const { ref } = bulk.upsertMarket(synthetic.marketWrite(m.type, m.start, now));
        bulk.world.own(ref.rowid);
        if (!m.full) continue;
        let n = 0;
        synthetic.snapshots(m.type, m.start, m.start, lastStep, now - orderbookMs, (row, book) => {
          writer.add(ref.rowid, row.t, row.price, row.priceUp, row.priceDown);
          n++;
          if (book && bulk.insertOrderbookPair(ref.rowid, row.t, book)) orderbooks++;
        });
        snapshots += n;
        fullCount++;
        bulk.setMarketSummary(ref.rowid, n, true);
      }
      opts.onProgress?.(`${coin}: ${snapshots.toLocaleString('en-US')} snapshots so far`);
    }
    writer.flush();
    bulk.syncBlocks(writer);
  });
  const ms = performance.now() - started;
  const rows = planned.length + snapshots + orderbooks;
  return {
    markets: planned.length,
    fullMarkets: fullCount,
    snapshots,
    orderbooks,
    ms,
    rowsPerSec: Math.round(rows / (ms / 1000)),
    from,
    to: now,
  };
}
