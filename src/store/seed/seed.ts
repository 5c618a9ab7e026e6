// Deterministic synthetic data for `msnap serve seed` and `serve --demo`: every coin and market
// type for the last `days` days; full 8/s snapshots only for the newest markets of each type
// (older markets carry price_start, price_end and winner with snapshot_count 0), which keeps the
// default database small and the seed fast while every series still exceeds the builder cap.
import {
  COINS,
  MARKET_DURATION_MS,
  MARKET_TYPES,
  SNAPSHOT_INTERVAL_MS,
  marketId,
  type Coin,
  type MarketType,
} from '../../domain/market.js';
import type { SnapshotBatchWriter } from '../sqlite/snapshot-batch.js';
import type { BulkWriter } from '../sqlite/bulk-writer.js';
import { toScaled } from '../sqlite/price-scale.js';
import { mulberry32, normalCdf, type Random } from './prng.js';
import { COARSE_STEP_MS, simulatePricePath, yearsOf, type PricePath } from './price-path.js';
import { orderbookSideJson } from './orderbook-json.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How many of the newest markets of each type (per coin, counting the active one) get full snapshots. */
export const DEFAULT_FULL_MARKETS: Record<MarketType, number> = { '5m': 72, '15m': 24, '1hr': 6, '4hr': 3, '24hr': 2 };

/** Realistic levels and annualised volatilities; the path starts here `days` ago. */
export const COIN_MODELS: Record<Coin, { startPrice: number; sigma: number; decimals: number }> = {
  BTC: { startPrice: 97_000, sigma: 0.55, decimals: 2 },
  ETH: { startPrice: 3_500, sigma: 0.7, decimals: 2 },
  SOL: { startPrice: 200, sigma: 0.85, decimals: 3 },
};

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
  coin: Coin;
  type: MarketType;
  start: number;
  end: number;
  full: boolean;
}

/** Use to fill a database (through its bulk writer) with synthetic data; same seed and `now` give the same rows. One transaction. */
export function seedDatabase(bulk: BulkWriter, opts: SeedOptions): SeedSummary {
  const started = performance.now();
  const days = opts.days ?? 15;
  const seed = opts.seed ?? 1;
  const orderbookMs = opts.orderbookMs ?? 10 * 60_000;
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
        planned.push({ coin, type, start, end: start + d, full: full[type] > 0 && start >= fullFrom });
      }
    }
  }
  // Rowids then grow with start_time, so snapshot inserts append to the end of the b-tree.
  planned.sort((a, b) => a.start - b.start || a.coin.localeCompare(b.coin) || a.end - b.end);

  const coarseStart = Math.floor(from / COARSE_STEP_MS) * COARSE_STEP_MS;
  const fullStarts = planned.filter((m) => m.full).map((m) => m.start);
  const fineStart = Math.max(coarseStart, Math.min(now - (now % COARSE_STEP_MS), ...fullStarts));

  let snapshots = 0;
  let orderbooks = 0;
  let fullCount = 0;
  bulk.transaction(() => {
    const writer = bulk.snapshotWriter();
    for (const [ci, coin] of COINS.entries()) {
      const model = COIN_MODELS[coin];
      const path = simulatePricePath({
        random: mulberry32(seed * 7919 + ci),
        startPrice: model.startPrice,
        sigma: model.sigma,
        coarseStart,
        fineStart,
        fineEnd: now,
      });
      const noise = mulberry32(seed * 104_729 + ci);
      const round = roundTo(model.decimals);
      for (const m of planned) {
        if (m.coin !== coin) continue;
        const priceStart = round(path.priceAt(m.start));
        const resolved = m.end <= now;
        const priceEnd = resolved ? round(path.priceAt(m.end)) : null;
        const { ref } = bulk.upsertMarket({
          marketId: marketId(coin, m.type, m.start),
          coin,
          marketType: m.type,
          startTime: m.start,
          endTime: m.end,
          priceStart,
          priceEnd,
          winner: priceEnd === null ? null : priceEnd >= priceStart ? 'Up' : 'Down',
        });
        if (!m.full) continue;
        const n = writeSnapshots(bulk, writer, ref.rowid, m, priceStart, path, round, noise, now, orderbookMs);
        snapshots += n.snapshots;
        orderbooks += n.orderbooks;
        fullCount++;
        bulk.setMarketSummary(ref.rowid, n.snapshots, true);
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

function writeSnapshots(
  bulk: BulkWriter,
  writer: SnapshotBatchWriter,
  rowid: number,
  m: PlannedMarket,
  priceStart: number,
  path: PricePath,
  round: (v: number) => number,
  noise: Random,
  now: number,
  orderbookMs: number,
): { snapshots: number; orderbooks: number } {
  const last = Math.min(m.end - SNAPSHOT_INTERVAL_MS, now - (now % SNAPSHOT_INTERVAL_MS));
  const logStart = Math.log(priceStart);
  const depthFrom = now - orderbookMs;
  let snapshots = 0;
  let orderbooks = 0;
  for (let time = m.start; time <= last; time += SNAPSHOT_INTERVAL_MS) {
    const price = round(path.priceAt(time));
    // P(end >= start): the log-move so far against the volatility of the time left.
    const sd = path.sigma * Math.sqrt(yearsOf(m.end - time));
    const p = normalCdf((Math.log(price) - logStart) / sd);
    const up = clampProbability(Math.round(p * 100) / 100);
    // The two sides are quoted separately and carry a small spread: they sum to 1.00-1.02.
    const spread = Math.floor(noise() * 3) / 100;
    const down = clampProbability(Math.round((1 - up + spread) * 100) / 100);
    const t = time - m.start;
    writer.add(rowid, t, toScaled(price), toScaled(up), toScaled(down));
    snapshots++;
    if (time >= depthFrom) {
      bulk.insertOrderbook(rowid, t, orderbookSideJson(up, noise), orderbookSideJson(down, noise));
      orderbooks++;
    }
  }
  return { snapshots, orderbooks };
}

function clampProbability(p: number): number {
  return Math.min(0.99, Math.max(0.01, p));
}

function roundTo(decimals: number): (v: number) => number {
  const f = 10 ** decimals;
  return (v) => Math.round(v * f) / f;
}
