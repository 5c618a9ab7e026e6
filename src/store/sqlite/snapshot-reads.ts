// Snapshot reads for the server: a page as ready JSON text (dense markets from their blocks or
// two plucked columns, others from the rows) and the snapshot nearest a time.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { SNAPSHOT_INTERVAL_MS, type Snapshot } from '../../domain/market.js';
import type { SnapshotQuery } from '../store.js';
import type { DenseBlocks } from './dense-blocks.js';
import { SIDE_BITS, writeDensePage } from './dense-page-writer.js';
import { MARKET_COLUMNS, type MarketRow } from './market-row.js';
import { fromScaled, PRICE_SCALE } from './price-scale.js';
import { snapshotId, snapshotRowsToJson, type RawSnapshotRow } from './snapshot-json.js';

/** A dense market's rows [lo, hi) as two plucked columns: prices, and both probabilities packed. */
export interface DenseColumns {
  /** Scaled prices, ordered by t. Bind (market, lo, hi). */
  prices: Statement;
  /** price_up << SIDE_BITS | price_down, or -1 where a value does not fit. Bind (market, lo, hi). */
  sides: Statement;
}

/** Use wherever a dense market's rows are read as block values (pages, block rebuilds). */
export function prepareDenseColumns(db: Database.Database): DenseColumns {
  return {
    prices: db.prepare('SELECT price FROM snapshots WHERE market = ? AND t >= ? AND t < ? ORDER BY t').pluck(),
    sides: db
      .prepare(
        `SELECT CASE WHEN price_up BETWEEN 0 AND ${PRICE_SCALE} AND price_down BETWEEN 0 AND ${PRICE_SCALE}
         THEN price_up * ${1 << SIDE_BITS} + price_down ELSE -1 END
         FROM snapshots WHERE market = ? AND t >= ? AND t < ? ORDER BY t`,
      )
      .pluck(),
  };
}

/** Use for the Store's snapshot methods over one SQLite connection. */
export class SnapshotReads {
  private readonly marketById: Statement;
  private readonly pageRange: Statement;
  private readonly pageRangeOb: Statement;
  private readonly dense: DenseColumns;
  private readonly countRange: Statement;
  private readonly atOrBefore: Statement;
  private readonly after: Statement;

  constructor(
    db: Database.Database,
    private readonly blocks: DenseBlocks,
  ) {
    const pageSql = (ob: boolean) =>
      ob
        ? `SELECT s.t, s.price, s.price_up, s.price_down, o.up, o.down FROM snapshots s
           LEFT JOIN orderbooks o ON o.market = s.market AND o.t = s.t
           WHERE s.market = ? AND s.t >= ? AND s.t < ? ORDER BY s.t LIMIT ? OFFSET ?`
        : `SELECT t, price, price_up, price_down FROM snapshots
           WHERE market = ? AND t >= ? AND t < ? ORDER BY t LIMIT ? OFFSET ?`;
    this.marketById = db.prepare(`SELECT ${MARKET_COLUMNS} FROM markets WHERE market_id = ?`);
    this.pageRange = db.prepare(pageSql(false)).raw(true);
    this.pageRangeOb = db.prepare(pageSql(true)).raw(true);
    this.dense = prepareDenseColumns(db);
    this.countRange = db.prepare('SELECT count(*) FROM snapshots WHERE market = ? AND t >= ? AND t < ?').pluck();
    this.atOrBefore = db
      .prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? AND t <= ? ORDER BY t DESC LIMIT 1')
      .raw(true);
    this.after = db
      .prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? AND t > ? ORDER BY t ASC LIMIT 1')
      .raw(true);
  }

  /** See Store.snapshotPageJson. */
  snapshotPageJson(marketId: string, q: SnapshotQuery): { json: string; count: number; total: number } {
    const m = this.marketById.get(marketId) as MarketRow | undefined;
    if (!m) return { json: '[]', count: 0, total: 0 };
    const duration = m.end_time - m.start_time;
    // Offsets within the market; times outside [start, end) hold no snapshots.
    const lo = q.from === undefined ? 0 : Math.max(0, q.from - m.start_time);
    const hi = q.before === undefined ? duration : Math.min(duration, q.before - m.start_time);
    if (hi <= lo || m.snapshot_count === 0) return { json: '[]', count: 0, total: 0 };

    let rows: RawSnapshotRow[];
    let total: number;
    const stmt = q.includeOrderbook ? this.pageRangeOb : this.pageRange;
    if (m.dense === 1) {
      // Rows are exactly k * 125 for k < snapshot_count: the page is a key range, no OFFSET walk.
      const kLo = Math.ceil(lo / SNAPSHOT_INTERVAL_MS);
      const kHi = Math.min(m.snapshot_count, Math.ceil(hi / SNAPSHOT_INTERVAL_MS));
      total = Math.max(0, kHi - kLo);
      const first = kLo + q.offset;
      const last = Math.min(kHi, first + q.limit);
      if (last <= first) return { json: '[]', count: 0, total };
      const from = first * SNAPSHOT_INTERVAL_MS;
      const to = last * SNAPSHOT_INTERVAL_MS;
      if (!q.includeOrderbook) {
        // Each row's t follows from its position, so it is not fetched. Stored rows are never
        // updated or deleted, so the two reads agree whenever both hold every row of the range
        // (a writer elsewhere may have changed the market since it was read: general path then).
        // The market's blocks hold the same values one or two BLOBs per page; without them (not
        // built yet, or a value they cannot pack), two plucked columns.
        const n = last - first;
        const packed = this.blocks.read(m.id, first, last);
        if (packed) {
          const json = writeDensePage(packed.prices, packed.sides, from, m.id, m.market_id, m.start_time);
          if (json !== undefined) return { json, count: n, total };
        }
        const prices = this.dense.prices.all(m.id, from, to) as number[];
        const sides = this.dense.sides.all(m.id, from, to) as number[];
        const json =
          prices.length === n && sides.length === n
            ? writeDensePage(prices, sides, from, m.id, m.market_id, m.start_time)
            : undefined;
        if (json !== undefined) return { json, count: n, total };
      }
      rows = stmt.all(m.id, from, to, q.limit, 0) as RawSnapshotRow[];
    } else {
      total =
        q.from === undefined && q.before === undefined ? m.snapshot_count : (this.countRange.get(m.id, lo, hi) as number);
      rows = stmt.all(m.id, lo, hi, q.limit, q.offset) as RawSnapshotRow[];
    }
    const json = snapshotRowsToJson(rows, m.id, m.market_id, m.start_time, q.includeOrderbook);
    return { json, count: rows.length, total };
  }

  /** See Store.nearestSnapshot. */
  nearestSnapshot(marketId: string, ts: number): Snapshot | undefined {
    const m = this.marketById.get(marketId) as MarketRow | undefined;
    if (!m || m.snapshot_count === 0) return undefined;
    const t = ts - m.start_time;
    const before = this.atOrBefore.get(m.id, t) as RawSnapshotRow | undefined;
    const after = this.after.get(m.id, t) as RawSnapshotRow | undefined;
    let pick = before;
    // The earlier one wins a tie, so `after` needs to be strictly closer.
    if (after && (!before || after[0] - t < t - before[0])) pick = after;
    if (!pick) return undefined;
    return {
      id: snapshotId(m.id, pick[0]),
      market_id: m.market_id,
      time: m.start_time + pick[0],
      price: fromScaled(pick[1]),
      price_up: fromScaled(pick[2]),
      price_down: fromScaled(pick[3]),
    };
  }
}
