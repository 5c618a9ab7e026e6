// Bulk snapshot writes for seed and import: rows are buffered and stored with one multi-row
// INSERT OR IGNORE per BATCH_ROWS rows, which costs a fraction of one statement call per row.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { SnapshotRows } from '../../bulk-store.js';
import type { BlockRuns } from '../dense-blocks.js';

/** Rows per multi-row INSERT: 5 bound values each keeps it far below SQLite's parameter cap. */
const BATCH_ROWS = 128;
const COLUMNS = 5;

/**
 * Use inside a transaction to write many snapshots (values already scaled, see price-scale.ts).
 * Rows keep their order, so of two rows with the same (market, t) the first one stays, as with
 * single-row INSERT OR IGNORE. Call flush() before reading counts or committing.
 */
export class SnapshotBatchWriter implements SnapshotRows {
  private readonly many: Statement;
  private readonly one: Statement;
  private readonly params: number[] = new Array<number>(BATCH_ROWS * COLUMNS);
  private size = 0;
  /** Markets with rows in the pending batch (usually one), in first-seen order. */
  private batchMarkets: number[] = [];
  /** Rows stored so far, and rows ignored because (market, t) was already stored. */
  added = 0;
  skipped = 0;
  /** Markets that received new rows, whose summaries need a refresh (a batch that added rows marks
   *  all its markets: refreshing one more is harmless, as a refresh only recomputes). */
  readonly touched = new Set<number>();

  /** `runs` follows the rows for the dense block cache (see dense-blocks.ts). */
  constructor(
    db: Database.Database,
    readonly runs?: BlockRuns,
  ) {
    const sql = 'INSERT OR IGNORE INTO snapshots (market, t, price, price_up, price_down) VALUES ';
    this.many = db.prepare(sql + new Array<string>(BATCH_ROWS).fill('(?, ?, ?, ?, ?)').join(', '));
    this.one = db.prepare(sql + '(?, ?, ?, ?, ?)');
  }

  /** Queues one row; writes the batch when it is full. */
  add(market: number, t: number, price: number, priceUp: number, priceDown: number): void {
    const p = this.params;
    const k = this.size * COLUMNS;
    p[k] = market;
    p[k + 1] = t;
    p[k + 2] = price;
    p[k + 3] = priceUp;
    p[k + 4] = priceDown;
    this.runs?.add(market, t, price, priceUp, priceDown);
    const marks = this.batchMarkets;
    if (marks.length === 0 || marks[marks.length - 1] !== market) marks.push(market);
    if (++this.size === BATCH_ROWS) this.writeBatch();
  }

  /** Writes whatever is queued. */
  flush(): void {
    if (this.size === BATCH_ROWS) {
      this.writeBatch();
      return;
    }
    const p = this.params;
    let changes = 0;
    for (let i = 0; i < this.size; i++) {
      const k = i * COLUMNS;
      changes += this.one.run(p[k], p[k + 1], p[k + 2], p[k + 3], p[k + 4]).changes;
    }
    this.settle(changes);
  }

  private writeBatch(): void {
    this.settle(this.many.run(this.params).changes);
  }

  private settle(changes: number): void {
    this.added += changes;
    this.skipped += this.size - changes;
    if (changes > 0) for (const m of this.batchMarkets) this.touched.add(m);
    if (changes < this.size && this.runs) for (const m of this.batchMarkets) this.runs.failMarket(m);
    this.size = 0;
    this.batchMarkets = [];
  }
}
