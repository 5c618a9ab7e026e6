// The page every export of rows passes: a count, the rows, and optionally the rows as ready CSV.
// The client hands snapshot pages on in this shape and the exporter takes any rows in it, so a
// fast path is a declared field, not a property hidden on an array.
import type { Snapshot } from '../../domain/market.js';

/**
 * A page of rows as the client hands it on and the exporter takes it: how many rows it holds, the
 * rows (for a snapshot page read from bytes, built on the first call to rows()), and for such a
 * page its rows as ready CSV: lines (each ending in `\n`) of READY_CSV_COLUMNS (snapshot-page.ts), each value's text as
 * JavaScript prints it. A CSV export takes that text and never builds a row.
 */
export interface RowPage<T> {
  readonly count: number;
  rows(): readonly T[];
  readonly readyCsv?: Uint8Array;
  /** For a snapshot page asked for as columns (SnapshotsStreamQuery.rowsAs): its rows as columns. */
  readonly columns?: SnapshotColumnPage;
}

/** How a snapshot page's rows come ready beside its records: as CSV text (the default) or as columns (a Parquet export). */
export type RowsForm = 'csv' | 'columns';

/**
 * A snapshot page's rows as columns, for a writer that takes columns (Parquet): row r's values at
 * index r of each array, the very numbers the page's records hold.
 */
export interface SnapshotColumnPage {
  readonly id: Float64Array;
  readonly time: Float64Array;
  readonly price: Float64Array;
  readonly up: Float64Array;
  readonly down: Float64Array;
  /** The page's distinct market ids, first seen first (almost always one). */
  readonly marketIds: readonly string[];
  /** Each row's index into marketIds. */
  readonly market: Int32Array;
}

/** A page of snapshots from the client (snapshotPages). */
export type SnapshotPage = RowPage<Snapshot>;

/** Use for a page whose rows are already records (a local store, bars, a test). */
export function pageOf<T>(rows: readonly T[]): RowPage<T> {
  return { count: rows.length, rows: () => rows };
}

/** Use to hand arrays of rows (bars, say) to what takes pages. */
export async function* pagesOf<T>(arrays: AsyncIterable<readonly T[]>): AsyncGenerator<RowPage<T>> {
  for await (const rows of arrays) yield pageOf(rows);
}

/** Use to hand pages to what takes arrays of rows (a computation over records). */
export async function* rowsOfPages<T>(pages: AsyncIterable<RowPage<T>>): AsyncGenerator<readonly T[]> {
  for await (const page of pages) yield page.rows();
}
