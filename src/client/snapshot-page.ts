// A page of snapshots as the client hands it on, read from the body's bytes: an array whose row
// objects are built only when something reads them, and which also offers its rows as ready CSV
// (readyCsvOf). A CSV export takes that text and never builds a row; any other reader (JSON,
// Parquet, pull, bars) sees a plain array of the same records the general path would give.
import type { Snapshot } from '../domain/market.js';
import { rowsFromReadyCsv } from './snapshot-csv-rows.js';
import { scanSnapshotPage, type RowKeys } from './snapshot-page-scan.js';
import type { RawAnswer, Transport } from './transport.js';

/** The columns of a page's ready CSV, in order: the contract's snapshot fields. */
export const READY_CSV_COLUMNS: readonly string[] = ['id', 'market_id', 'time', 'price', 'price_up', 'price_down'];

const READY = Symbol('readyCsv');
const ROWS = Symbol('rows');

/**
 * The ready CSV of a page from the client, if it has one (undefined for any other array): its
 * rows as CSV lines (each ending in `\n`) of READY_CSV_COLUMNS, each value's text as JavaScript
 * prints it.
 */
export function readyCsvOf(page: readonly unknown[]): Uint8Array | undefined {
  return (page as { [READY]?: Uint8Array })[READY];
}

/** The rows of a page as a plain array (a lazy page builds them once; reading through it costs a trap per access). */
export function rowsOf<T>(page: readonly T[]): readonly T[] {
  return (page as { [ROWS]?: readonly T[] })[ROWS] ?? page;
}

// An array index key ('0', '17'): the only own properties of an array besides `length`.
function isIndex(key: string): boolean {
  const c = key.charCodeAt(0);
  return c >= 48 && c <= 57;
}

/**
 * A page of `count` rows that `build` makes on first use; until then only its length and ready
 * CSV can be read. Every other access (index, iteration, slice, keys) builds the rows first, so
 * the page behaves as the plain array `build` returns.
 */
function lazyPage(count: number, ready: Uint8Array, build: () => Snapshot[]): Snapshot[] {
  const rows = new Array<Snapshot>(count);
  let built = false;
  const fill = (): Snapshot[] => {
    if (built) return rows;
    const made = build();
    if (made.length !== count) throw new Error(`snapshot page: scanned ${count} rows, built ${made.length}`);
    for (let i = 0; i < count; i++) rows[i] = made[i]!;
    built = true;
    return rows;
  };
  return new Proxy(rows, {
    // Only an element read needs the rows: methods (and `then`, which `await` looks up) come
    // from the prototype, and run against the page, so their own element reads build them.
    get(target, key) {
      if (key === READY) return ready;
      if (key === ROWS) return fill();
      if (typeof key === 'string' && isIndex(key)) return fill()[key as unknown as number];
      return Reflect.get(target, key);
    },
    set: (target, key, value) => Reflect.set(fill(), key, value),
    has: (target, key) => Reflect.has(fill(), key),
    deleteProperty: (target, key) => Reflect.deleteProperty(fill(), key),
    defineProperty: (target, key, desc) => Reflect.defineProperty(fill(), key, desc),
    getOwnPropertyDescriptor: (target, key) => Reflect.getOwnPropertyDescriptor(fill(), key),
    ownKeys: () => Reflect.ownKeys(fill()),
  });
}

/** A snapshot page body: its envelope (the object, `snapshots` emptied when read fast) and its rows. */
export interface PageBody {
  body: Record<string, unknown>;
  snapshots: Snapshot[];
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
    return { body, snapshots };
  }
  const csv = Buffer.from(scanned.csv.buffer, scanned.csv.byteOffset, scanned.csv.length);
  const build = (): Snapshot[] => t.parse(() => rowsFromReadyCsv(csv, scanned.count, row), path);
  return { body: scanned.envelope, snapshots: lazyPage(scanned.count, scanned.csv, build) };
}
