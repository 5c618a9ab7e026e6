// Reads the rows of chosen markets out of a PMXT v2 hourly file without decoding the rest: the
// row groups whose `market` statistics cannot hold a wanted condition id are skipped, and of the
// groups read, only the `market` column is decoded in full; the other columns only over the row
// spans of wanted markets (the file is sorted by market, so each market is one span).
import { parquetMetadataAsync, parquetReadObjects, parquetScan, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { UsageError } from '../../errors.js';
import { publishedEvent } from '../mapping/published-event.js';
import type { MarketEvent, SequencedEvent } from '../mapping/market-event.js';
import { checkPmxtColumns, HOUR_MS, hourFromFileName, PMXT_READ_COLUMNS } from './pmxt-layout.js';

/** One wanted market's events from one file, with their receipt order as `seq`. */
export interface PmxtMarketEvents {
  conditionId: string;
  events: SequencedEvent[];
}

/** What reading a file found. */
export interface PmxtFileStats {
  /** Rows of the file (all markets). */
  rows: number;
  /** Rows of wanted markets decoded. */
  rowsRead: number;
  /** Rows of wanted markets that carried nothing usable (an unknown event type, a bad price). */
  rowsSkipped: number;
  /** The hour the file covers (epoch ms): from its name, else from its first receipt time. */
  hour: number;
}

/** An opened PMXT file: its metadata checked, ready to read markets from. */
export class PmxtFile {
  private constructor(
    readonly path: string,
    private readonly buffer: AsyncBuffer,
    readonly metadata: FileMetaData,
    readonly hour: number | undefined,
  ) {}

  /** Use to open a file the user named: throws a one-line UsageError when it is not a complete PMXT v2 file. */
  static async open(path: string, buffer: AsyncBuffer): Promise<PmxtFile> {
    let metadata: FileMetaData;
    try {
      metadata = await parquetMetadataAsync(buffer);
    } catch (err) {
      throw new UsageError(`${path}: not a complete Parquet file (${(err as Error).message}); was the download cut short?`);
    }
    const columns = metadata.schema.slice(1).map((s) => s.name);
    checkPmxtColumns(path, columns);
    return new PmxtFile(path, buffer, metadata, hourFromFileName(path));
  }

  /** The hour of a file whose name does not say it: its first row's receipt time, floored. */
  async firstReceiptHour(): Promise<number> {
    const rows = (await readOrFail(this.path, () =>
      parquetReadObjects({ file: this.buffer, metadata: this.metadata, columns: ['timestamp_received'], rowStart: 0, rowEnd: 1, compressors }),
    )) as { timestamp_received: unknown }[];
    const ms = rows[0] ? epochMs(rows[0].timestamp_received) : Number.NaN;
    if (!Number.isFinite(ms)) throw new UsageError(`${this.path}: holds no rows`);
    return Math.floor(ms / HOUR_MS) * HOUR_MS;
  }

  /** Rows in the file. */
  get rows(): number {
    return Number(this.metadata.num_rows);
  }

  /**
   * Yields each wanted market's events, in file order of markets. `seqBase` orders this file's
   * events after every earlier file's (the archive's receipt order); within the file the order is
   * the receipt time, then the row.
   */
  async *markets(wanted: ReadonlySet<string>, stats: PmxtFileStats): AsyncGenerator<PmxtMarketEvents> {
    let scan;
    try {
      scan = await parquetScan({
        file: this.buffer,
        metadata: this.metadata,
        columns: [...PMXT_READ_COLUMNS],
        compressors,
        parsers: NUMERIC_TIMES,
        pruningFilter: { market: { $in: [...wanted] } },
      });
    } catch (err) {
      throw new UsageError(`${this.path}: cannot be read (${(err as Error).message})`);
    }
    stats.rows += this.rows;
    for (const range of scan.ranges) {
      const markets = await readOrFail(this.path, () => scan.readColumn({ column: 'market', ...range }));
      // The wanted markets' spans in this range (the file is sorted by market: one span each).
      const spans: { id: string; from: number; to: number }[] = [];
      for (let i = 0, n = markets.length; i < n; ) {
        const id = text(markets[i]);
        let j = i + 1;
        while (j < n && text(markets[j]) === id) j++;
        if (wanted.has(id)) spans.push({ id, from: i, to: j });
        i = j;
      }
      if (spans.length === 0) continue;
      // Each column is decoded once over the spans' extent, whatever the number of spans in it.
      const lo = spans[0]!.from;
      const hi = spans[spans.length - 1]!.to;
      const extent = { rowStart: range.rowStart + lo, rowEnd: range.rowStart + hi };
      const [received, ts, type, asset, bids, asks, price, size, side] = await Promise.all(
        SPAN_COLUMNS.map((column) => readOrFail(this.path, () => scan.readColumn({ column, ...extent }))),
      );
      for (const { id, from, to } of spans) {
        stats.rowsRead += to - from;
        const rows: { recv: number; row: number; e: MarketEvent }[] = [];
        for (let r = from; r < to; r++) {
          const k = r - lo;
          const e = publishedEvent({ type: text(type![k]), ts: epochMs(ts![k]), token: text(asset![k]), bids: bids![k], asks: asks![k], price: price![k], size: size![k], side: text(side![k]) });
          if (e) rows.push({ recv: epochMs(received![k]), row: r, e });
          else stats.rowsSkipped++;
        }
        rows.sort((a, b) => a.recv - b.recv || a.row - b.row);
        yield { conditionId: id, events: rows.map((r, rank) => ({ ...r.e, seq: rank }) as SequencedEvent) };
      }
    }
  }
}

/** The columns read over the wanted markets' spans (`market` is read for every range). */
const SPAN_COLUMNS = PMXT_READ_COLUMNS.filter((c) => c !== 'market');

/** Use as hyparquet's `parsers`: times stay numbers of ms, no Date object per row (the reader's default). */
export const NUMERIC_TIMES = {
  timestampFromMilliseconds: (v: bigint) => Number(v),
  timestampFromMicroseconds: (v: bigint) => Math.floor(Number(v) / 1e3),
  timestampFromNanoseconds: (v: bigint) => Math.floor(Number(v) / 1e6),
};

async function readOrFail<T>(path: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw new UsageError(`${path}: cannot be read (${(err as Error).message}); was the download cut short?`);
  }
}

const decoder = new TextDecoder();

/** A string column value: text already, or bytes (`market` is a fixed-length binary column). */
function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return decoder.decode(v);
  return v === null || v === undefined ? '' : String(v);
}

/** Epoch ms from what a reader gives for a time column: a Date, a bigint or number of ms (µs and ns told by magnitude). */
function epochMs(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  const n = typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
  if (n > 1e17) return Math.floor(n / 1e6);
  if (n > 1e14) return Math.floor(n / 1e3);
  return n;
}
