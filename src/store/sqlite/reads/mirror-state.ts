// What an SQLite store holds of the markets a pull copies. Read-only, so a dry run can ask it of a
// store it must not change.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { MirrorStateReader } from '../../mirror-store.js';
import { heldByState, toLocalState, type LocalMarketState, type MarketStateRow } from '../../core/mirror-state.js';

/** Use to decide what a pull still has to fetch (and what its dry run would). */
export class MirrorState implements MirrorStateReader {
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
  async local(marketId: string): Promise<LocalMarketState> {
    return this.localNow(marketId);
  }

  /** Rows a pull need not fetch again: every stored one, or with depth asked for, those fetched with it. */
  async held(marketId: string, withDepth: boolean): Promise<number> {
    const held = heldByState(this.localNow(marketId), withDepth);
    return typeof held === 'number' ? held : (this.countBefore.get(marketId, held.rowsBefore) as number);
  }

  private localNow(marketId: string): LocalMarketState {
    return toLocalState(this.state.get(marketId) as MarketStateRow | undefined);
  }
}
