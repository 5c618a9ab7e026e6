// A page of snapshots as the client hands it on, read from the body's bytes: its row objects are
// built only when something asks for them (rows()), and it also offers its rows as ready CSV. A
// CSV export takes that text and never builds a row; any other reader (JSON, Parquet, pull, bars)
// gets the same records the general path would give.
import type { Snapshot } from '../domain/market.js';
import { rowsFromReadyCsv } from './snapshot-csv-rows.js';
import { scanSnapshotPage, type RowKeys } from './snapshot-page-scan.js';
import { pageOf, type SnapshotPage } from './row-page.js';
import type { RawAnswer, Transport } from './transport.js';

/** The columns of a page's ready CSV, in order: the contract's snapshot fields. */
export const READY_CSV_COLUMNS: readonly string[] = ['id', 'market_id', 'time', 'price', 'price_up', 'price_down'];

/** A page of `count` rows that `build` makes on first use; until then only its count and ready CSV are there. */
function lazyPage(count: number, readyCsv: Uint8Array, build: () => Snapshot[]): SnapshotPage {
  let built: Snapshot[] | undefined;
  return {
    count,
    readyCsv,
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
 * body that breaks the contract fails here, as an HttpError.
 */
export function readSnapshotPage(t: Transport, answer: RawAnswer, path: string, keys: RowKeys, row: (raw: unknown) => Snapshot): PageBody {
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
  return { body: scanned.envelope, page: lazyPage(scanned.count, scanned.csv, build) };
}

