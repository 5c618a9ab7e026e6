// `msnap import polymarket`: PMXT archive hours, in time order, into a store through the bulk
// writer. Each hour file is one transaction that writes its snapshots, marks the hour done per
// market and saves each market's reconstruction state, so an import killed mid-way and run again
// equals an uninterrupted one, and an hour imported twice adds nothing.
import type { AsyncBuffer } from 'hyparquet';
import type { Coin } from '../../domain/market.js';
import { PRICE_SCALE, toScaled } from '../../store/core/price-scale.js';
import type { BulkWriter, MarketRef } from '../../store/sqlite/bulk-writer.js';
import type { SnapshotBatchWriter } from '../../store/sqlite/snapshot-batch.js';
import { PRICE_DECIMALS } from '../mapping/decimal.js';
import { SnapshotTape, type PriceAt, type SavedTape, type SnapshotSink } from '../mapping/snapshot-tape.js';
import { HOUR_MS } from '../pmxt/pmxt-layout.js';
import { PmxtFile, type PmxtFileStats } from '../pmxt/pmxt-reader.js';
import type { RealMarket } from './real-market.js';

/** How long after an hour's end its events may still arrive in the next hour's file: ticks that
 *  close are decided only once the next file is read (or the run ends). */
export const LATE_ARRIVAL_MS = 60_000;
/** Markets opening this soon after an hour are read from it: their books before the open. */
const PRE_OPEN_MS = 24 * HOUR_MS;
/** Orders one hour's receipt order after every earlier hour's (ranks within a market stay below it). */
const SEQ_PER_HOUR = 1e9;

if (10 ** PRICE_DECIMALS !== PRICE_SCALE) throw new Error('displayed prices must be in the store\'s price unit');

/** One archive file to read: where it is and how to open it. */
export interface ArchiveInput {
  name: string;
  open(): Promise<AsyncBuffer>;
}

/** What the import is given besides the store. */
export interface PolymarketImportOptions {
  files: readonly ArchiveInput[];
  markets: readonly RealMarket[];
  /** The asset price rule per coin (REALDATA.md: the last kline closed by t); undefined: no prices. */
  prices: (coin: Coin) => PriceAt | undefined;
  priceSource: 'binance' | 'chainlink';
  onProgress?: (p: ImportProgress) => void;
  /** Checked between markets: an aborted import rolls back the file in progress. */
  signal?: AbortSignal;
}

/** Progress after each market read. */
export interface ImportProgress {
  file: string;
  fileIndex: number;
  files: number;
  rowsRead: number;
  rowsScanned: number;
  markets: number;
  snapshots: number;
}

/** The closing summary. */
export interface PolymarketImportSummary {
  files: number;
  hoursSkipped: number;
  rowsScanned: number;
  rowsRead: number;
  rowsSkipped: number;
  markets: number;
  marketsAdded: number;
  snapshots: number;
  snapshotsSkipped: number;
  books: number;
  gaps: number;
  /** Markets written whose winner Gamma has not given (not closed yet, or unknown). */
  unresolved: number;
  /** Coins with markets but no price: no snapshot can be written for them. */
  coinsWithoutPrices: Coin[];
  ms: number;
}

interface Live {
  market: RealMarket;
  tape: SnapshotTape;
  ref: MarketRef;
}

/** Use to import archive files into an SQLite store's bulk writer (PostgreSQL goes through a staging file). */
export async function importPolymarket(bulk: BulkWriter, opts: PolymarketImportOptions): Promise<PolymarketImportSummary> {
  const started = performance.now();
  const s: PolymarketImportSummary = {
    files: 0,
    hoursSkipped: 0,
    rowsScanned: 0,
    rowsRead: 0,
    rowsSkipped: 0,
    markets: 0,
    marketsAdded: 0,
    snapshots: 0,
    snapshotsSkipped: 0,
    books: 0,
    gaps: 0,
    unresolved: 0,
    coinsWithoutPrices: [],
    ms: 0,
  };
  const byCondition = new Map(opts.markets.map((m) => [m.conditionId.toLowerCase(), m]));
  const opened: { file: PmxtFile; hour: number }[] = [];
  for (const input of opts.files) {
    const file = await PmxtFile.open(input.name, await input.open());
    opened.push({ file, hour: file.hour ?? (await file.firstReceiptHour()) });
  }
  opened.sort((a, b) => a.hour - b.hour);

  const live = new Map<string, Live>();
  const priceOf = new Map<Coin, PriceAt | undefined>();
  const priceFor = (coin: Coin): PriceAt | undefined => {
    if (!priceOf.has(coin)) priceOf.set(coin, opts.prices(coin));
    return priceOf.get(coin);
  };
  let writer: SnapshotBatchWriter | undefined;
  let current: Live | undefined;
  const sink: SnapshotSink = {
    snapshot(time, price, up, down, books) {
      const { ref } = current!;
      const t = time - ref.startTime;
      writer!.add(ref.rowid, t, toScaled(price), up, down);
      if (bulk.insertOrderbookPair(ref.rowid, t, books)) s.books++;
    },
  };
  const noPrice: PriceAt = () => undefined;
  const advance = (l: Live, limit: number) => {
    current = l;
    const before = l.tape.counts.snapshots;
    l.tape.advance(limit, priceFor(l.market.coin) ?? noPrice, sink);
    s.snapshots += l.tape.counts.snapshots - before;
  };

  /** The market's tape, from this run, the store's saved state, or new (creating the market). */
  const liveFor = (m: RealMarket): Live => {
    let l = live.get(m.marketId);
    if (l) return l;
    const { ref, created } = bulk.upsertMarket({
      marketId: m.marketId,
      coin: m.coin,
      marketType: m.marketType,
      startTime: m.startTime,
      endTime: m.endTime,
      priceStart: null,
      priceEnd: null,
      winner: m.winner,
      details: { condition_id: m.conditionId, clob_token_up: m.tokenUp, clob_token_down: m.tokenDown, event_id: m.eventId },
    });
    if (created) s.marketsAdded++;
    bulk.realdata.setSource(ref.rowid, { slug: m.slug, feeSchedule: m.fees ? JSON.stringify(m.fees) : null, priceSource: opts.priceSource });
    const saved = bulk.realdata.state(m.marketId);
    const tape = new SnapshotTape(
      { marketId: m.marketId, startTime: m.startTime, endTime: m.endTime, tokenUp: m.tokenUp, tokenDown: m.tokenDown },
      saved ? (JSON.parse(saved) as SavedTape) : undefined,
    );
    l = { market: m, tape, ref };
    live.set(m.marketId, l);
    return l;
  };

  const inTransaction = async (fn: () => Promise<void>) => {
    bulk.begin();
    writer = bulk.snapshotWriter();
    try {
      await fn();
      writer.flush();
      s.snapshotsSkipped += writer.skipped;
      const touched = [...live.values()].map((l) => l.ref.rowid);
      bulk.refreshMarkets(touched, writer);
      bulk.commit();
    } catch (err) {
      bulk.rollback();
      // The tapes of this run hold state the rollback undid: the next use reloads the store's.
      live.clear();
      throw err;
    }
  };

  for (let fi = 0; fi < opened.length; fi++) {
    const { file, hour } = opened[fi]!;
    opts.signal?.throwIfAborted();
    const hourEnd = hour + HOUR_MS;
    const relevant = opts.markets.filter((m) => m.endTime > hour && m.startTime < hourEnd + PRE_OPEN_MS);
    const wanted = new Set<string>();
    for (const m of relevant) {
      if (bulk.realdata.hasHour(m.marketId, hour)) s.hoursSkipped++;
      else wanted.add(m.conditionId);
    }
    if (wanted.size === 0) continue;
    s.files++;
    const stats: PmxtFileStats = { rows: 0, rowsRead: 0, rowsSkipped: 0, hour };
    await inTransaction(async () => {
      const seen = new Set<string>();
      for await (const chunk of file.markets(wanted, stats)) {
        opts.signal?.throwIfAborted();
        const m = byCondition.get(chunk.conditionId.toLowerCase());
        if (!m) continue;
        const base = (hour / HOUR_MS) * SEQ_PER_HOUR;
        for (const e of chunk.events) e.seq += base;
        liveFor(m).tape.push(chunk.events);
        seen.add(m.marketId);
        opts.onProgress?.({
          file: file.path,
          fileIndex: fi,
          files: opened.length,
          rowsRead: s.rowsRead + stats.rowsRead,
          rowsScanned: s.rowsScanned + stats.rows,
          markets: live.size,
          snapshots: s.snapshots,
        });
      }
      for (const m of relevant) {
        if (!wanted.has(m.conditionId)) continue;
        const overlaps = m.startTime < hourEnd;
        if (!overlaps && !seen.has(m.marketId)) continue;
        const l = liveFor(m);
        l.tape.cover(hour, hourEnd);
        advance(l, hourEnd - LATE_ARRIVAL_MS);
        bulk.realdata.addHour(m.marketId, hour);
        bulk.realdata.saveState(m.marketId, JSON.stringify(l.tape.save()));
      }
    });
    s.rowsScanned += stats.rows;
    s.rowsRead += stats.rowsRead;
    s.rowsSkipped += stats.rowsSkipped;
  }

  // The run's end: every tick the covered hours reach is decided, and each market's outcome set.
  await inTransaction(async () => {
    for (const m of opts.markets) {
      const saved = live.get(m.marketId) ?? (bulk.marketRef(m.marketId) && bulk.realdata.state(m.marketId) ? liveFor(m) : undefined);
      if (!saved) continue;
      advance(saved, Number.POSITIVE_INFINITY);
      bulk.realdata.saveState(m.marketId, JSON.stringify(saved.tape.save()));
      const price = priceFor(m.coin);
      const edge = (t: number) => (price ? (price(t) ?? null) : null);
      bulk.realdata.setOutcome(saved.ref.rowid, edge(m.startTime), edge(m.endTime), m.winner);
    }
  });

  for (const l of live.values()) {
    s.gaps += l.tape.counts.gaps;
    if (l.market.winner === null) s.unresolved++;
    if (!priceFor(l.market.coin) && !s.coinsWithoutPrices.includes(l.market.coin)) s.coinsWithoutPrices.push(l.market.coin);
  }
  s.markets = live.size;
  s.ms = performance.now() - started;
  return s;
}
