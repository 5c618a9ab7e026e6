// `msnap import polymarket`: PMXT archive hours, in time order, into a store through the bulk
// writer. Each hour file is one transaction that writes its snapshots, marks the hour done per
// market and saves each market's reconstruction state, so an import killed mid-way and run again
// equals an uninterrupted one, and an hour imported twice adds nothing.
import type { AsyncBuffer } from 'hyparquet';
import type { Coin } from '../../domain/market.js';
import type { RecordWrites } from '../../store/record-writes.js';
import type { PriceAt } from '../mapping/snapshot-tape.js';
import { TapeStore } from '../tape-store.js';
import { HOUR_MS } from '../pmxt/pmxt-layout.js';
import { PmxtFile, type PmxtFileStats } from '../pmxt/pmxt-reader.js';
import type { RealMarket } from './real-market.js';

/** How long after an hour's end its events may still arrive in the next hour's file: ticks that
 *  close are decided only once the next file is read (or the run ends). */
const LATE_ARRIVAL_MS = 60_000;
/** Markets opening this soon after an hour are read from it: their books before the open. */
const PRE_OPEN_MS = 24 * HOUR_MS;
/** Orders one hour's receipt order after every earlier hour's (ranks within a market stay below it). */
const SEQ_PER_HOUR = 1e9;

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
  /** Of `ms`, the time spent deciding ticks and writing rows (the write path). */
  writeMs: number;
  ms: number;
}

/** Use to import archive files into a store through its RecordWrites port (SQLite's bulk writer, PostgreSQL's record writer). */
export async function importPolymarket(bulk: RecordWrites, opts: PolymarketImportOptions): Promise<PolymarketImportSummary> {
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
    writeMs: 0,
    ms: 0,
  };
  const byCondition = new Map(opts.markets.map((m) => [m.conditionId.toLowerCase(), m]));
  const opened: { file: PmxtFile; hour: number }[] = [];
  for (const input of opts.files) {
    const file = await PmxtFile.open(input.name, await input.open());
    opened.push({ file, hour: file.hour ?? (await file.firstReceiptHour()) });
  }
  opened.sort((a, b) => a.hour - b.hour);

  const store = new TapeStore(bulk, { priceSource: opts.priceSource, prices: opts.prices });
  for (let fi = 0; fi < opened.length; fi++) {
    const { file, hour } = opened[fi]!;
    opts.signal?.throwIfAborted();
    const hourEnd = hour + HOUR_MS;
    const relevant = opts.markets.filter((m) => m.endTime > hour && m.startTime < hourEnd + PRE_OPEN_MS);
    const wanted = new Set<string>();
    for (const m of relevant) {
      if (await bulk.realdata.hasHour(m.marketId, hour)) s.hoursSkipped++;
      else wanted.add(m.conditionId);
    }
    if (wanted.size === 0) continue;
    s.files++;
    const stats: PmxtFileStats = { rows: 0, rowsRead: 0, rowsSkipped: 0, hour };
    await store.batch(async () => {
      const seen = new Set<string>();
      for await (const chunk of file.markets(wanted, stats)) {
        opts.signal?.throwIfAborted();
        const m = byCondition.get(chunk.conditionId.toLowerCase());
        if (!m) continue;
        const base = (hour / HOUR_MS) * SEQ_PER_HOUR;
        for (const e of chunk.events) e.seq += base;
        (await store.open(m)).tape.push(chunk.events);
        seen.add(m.marketId);
        opts.onProgress?.({
          file: file.path,
          fileIndex: fi,
          files: opened.length,
          rowsRead: s.rowsRead + stats.rowsRead,
          rowsScanned: s.rowsScanned + stats.rows,
          markets: seen.size,
          snapshots: store.counts.snapshots,
        });
      }
      for (const m of relevant) {
        if (!wanted.has(m.conditionId)) continue;
        if (m.startTime >= hourEnd && !seen.has(m.marketId)) continue;
        const l = await store.open(m);
        l.tape.cover(hour, hourEnd);
        store.advance(l, hourEnd - LATE_ARRIVAL_MS);
        await bulk.realdata.addHour(m.marketId, hour);
        await store.save(l);
      }
    });
    s.rowsScanned += stats.rows;
    s.rowsRead += stats.rowsRead;
    s.rowsSkipped += stats.rowsSkipped;
  }

  // The run's end: every tick the covered hours reach is decided, and each market's outcome set.
  await store.batch(async () => {
    for (const m of opts.markets) {
      if (!(await store.hasSaved(m.marketId))) continue;
      const l = await store.open(m);
      store.advance(l, Number.POSITIVE_INFINITY);
      await store.save(l);
      await store.settle(l);
    }
  });

  for (const l of store.markets()) {
    s.markets++;
    s.gaps += l.tape.counts.gaps;
    if (l.market.winner === null) s.unresolved++;
    if (!store.priceFor(l.market.coin) && !s.coinsWithoutPrices.includes(l.market.coin)) s.coinsWithoutPrices.push(l.market.coin);
  }
  s.marketsAdded = store.counts.marketsAdded;
  s.snapshots = store.counts.snapshots;
  s.snapshotsSkipped = store.counts.snapshotsSkipped;
  s.books = store.counts.books;
  s.writeMs = store.counts.writeMs;
  s.ms = performance.now() - started;
  return s;
}
