// What a store already holds of a market `msnap pull` copies: its rows, the newest one, and how far
// its orderbook depth was fetched. Read-only, so a dry run can ask it of a store it must not change.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';

/** A market as the store holds it now. */
export interface LocalMarketState {
  exists: boolean;
  count: number;
  /** Time of the newest stored snapshot. */
  lastTime: number | undefined;
  /** Stored rows before this time were fetched with depth (--orderbook); undefined: none were. */
  depthThrough: number | undefined;
}

/** A market's state row as every store's query returns it. */
export interface MarketStateRow {
  count: number;
  last_t: number | null;
  start_time: number;
  depth_through: number | null;
}

/** Use in every store: the state of a market from its row (undefined: not stored). */
export function toLocalState(r: MarketStateRow | undefined): LocalMarketState {
  if (!r) return { exists: false, count: 0, lastTime: undefined, depthThrough: undefined };
  return {
    exists: true,
    count: r.count,
    lastTime: r.last_t === null ? undefined : r.start_time + r.last_t,
    depthThrough: r.depth_through ?? undefined,
  };
}

/**
 * Rows a pull need not fetch again: every stored one, or with depth asked for, those fetched with
 * it. A number when the state tells; else `{ rowsBefore }`: the stored rows before that time, which
 * the store counts.
 */
export function heldByState(s: LocalMarketState, withDepth: boolean): number | { rowsBefore: number } {
  if (!withDepth) return s.count;
  if (s.depthThrough === undefined || s.lastTime === undefined) return 0;
  if (s.depthThrough > s.lastTime) return s.count;
  return { rowsBefore: s.depthThrough };
}

/** Use to decide what a pull still has to fetch (and what its dry run would). */
export class MirrorState {
  private readonly state: Statement;
  private readonly countBefore: Statement;

  constructor(db: Database.Database) {
    // A store from before the depth column (read-only: not migrated) has fetched no depth.
    const columns = db.prepare("SELECT name FROM pragma_table_info('market_origin')").pluck().all() as string[];
    const depth = columns.includes('origin_depth_through') ? 'o.origin_depth_through' : 'NULL';
    const origin = columns.length > 0 ? 'LEFT JOIN market_origin o ON o.market = m.id' : '';
    this.state = db.prepare(
      `SELECT m.snapshot_count AS count, (SELECT max(t) FROM snapshots s WHERE s.market = m.id) AS last_t,
              m.start_time, ${depth} AS depth_through
       FROM markets m ${origin} WHERE m.market_id = ?`,
    );
    this.countBefore = db.prepare('SELECT count(*) FROM snapshots s JOIN markets m ON m.id = s.market WHERE m.market_id = ? AND s.t < ? - m.start_time').pluck();
  }

  /** The market as stored now. */
  local(marketId: string): LocalMarketState {
    return toLocalState(this.state.get(marketId) as MarketStateRow | undefined);
  }

  /** Rows a pull need not fetch again: every stored one, or with depth asked for, those fetched with it. */
  held(marketId: string, withDepth: boolean): number {
    const held = heldByState(this.local(marketId), withDepth);
    return typeof held === 'number' ? held : (this.countBefore.get(marketId, held.rowsBefore) as number);
  }
}
