// A page of snapshots as the client hands it on, read from the body's bytes: its row objects are
// built only when something asks for them (rows()), and it also offers its rows as ready CSV. A
// CSV export takes that text and never builds a row; any other reader (JSON, Parquet, pull, bars)
// gets the same records the general path would give.
import type { Snapshot } from '../../domain/market.js';
import { rowsFromReadyCsv } from './snapshot-csv-rows.js';
import { scanSnapshotPage, type RowKeys } from './snapshot-page-scan.js';
import { scanSnapshotColumns } from './snapshot-page-columns.js';
import { pageOf, type RowsForm, type SnapshotColumnPage, type SnapshotPage } from './row-page.js';
import type { RawAnswer, Transport } from '../transport/transport.js';

/** The columns of a page's ready CSV, in order: the contract's snapshot fields. */
export const READY_CSV_COLUMNS: readonly string[] = ['id', 'market_id', 'time', 'price', 'price_up', 'price_down'];

/** A page of `count` rows that `build` makes on first use; until then only its count and ready CSV or columns are there. */
function lazyPage(count: number, ready: { readyCsv: Uint8Array } | { columns: SnapshotColumnPage }, build: () => Snapshot[]): SnapshotPage {
  let built: Snapshot[] | undefined;
  return {
    count,
    ...ready,
    rows: () => {
      if (built) return built;
      const made = build();
      if (made.length !== count) throw new Error(`snapshot page: scanned ${count} rows, built ${made.length}`);
      return (built = made);
    },
  };
}

/** A snapshot page body: its envelope (the object, `snapshots` emptied when read fast) and its rows. */
export interface PageBody {
  body: Record<string, unknown>;
  page: SnapshotPage;
}

/**
 * Use in a dialect's snapshot page: the body scanned in one pass when its rows allow (see
 * snapshot-page-scan.ts), else parsed and normalised row by row with `row`. Either way the rows
 * are what `row` makes of each raw row (the scanned ones given in the contract's names), and a
 * body that breaks the contract fails here, as an HttpError. `form` 'columns': the rows come as
 * columns where the column scan takes them (snapshot-page-columns.ts), else as ready CSV.
 */
export function readSnapshotPage(t: Transport, answer: RawAnswer, path: string, keys: RowKeys, row: (raw: unknown) => Snapshot, form: RowsForm = 'csv'): PageBody {
  const columns = form === 'columns' ? scanSnapshotColumns(answer.bytes, keys) : undefined;
  if (columns) {
    const build = (): Snapshot[] => t.parse(() => rowsFromColumns(columns.columns, columns.count, row), path);
    return { body: columns.envelope, page: lazyPage(columns.count, { columns: columns.columns }, build) };
  }
  const scanned = scanSnapshotPage(answer.bytes, keys);
  if (!scanned) {
    const body = t.object(t.json(answer), path);
    const raw = Array.isArray(body['snapshots']) ? (body['snapshots'] as unknown[]) : [];
    const snapshots = t.parse(() => {
      const out = new Array<Snapshot>(raw.length);
      for (let i = 0; i < raw.length; i++) out[i] = row(raw[i]);
      return out;
    }, path);
    return { body, page: pageOf(snapshots) };
  }
  const csv = Buffer.from(scanned.csv.buffer, scanned.csv.byteOffset, scanned.csv.length);
  const build = (): Snapshot[] => t.parse(() => rowsFromReadyCsv(csv, scanned.count, row), path);
  return { body: scanned.envelope, page: lazyPage(scanned.count, { readyCsv: scanned.csv }, build) };
}

/** The rows of a column page as the contract's raw records passed through `row`, as rowsFromReadyCsv gives them. */
function rowsFromColumns(c: SnapshotColumnPage, count: number, row: (raw: unknown) => Snapshot): Snapshot[] {
  const out = new Array<Snapshot>(count);
  for (let r = 0; r < count; r++) {
    out[r] = row({ id: c.id[r], market_id: c.marketIds[c.market[r]!], time: c.time[r], price: c.price[r], price_up: c.up[r], price_down: c.down[r] });
  }
  return out;
}

