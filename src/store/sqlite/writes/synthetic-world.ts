// The synthetic world's records: which seed made it, how far it has been written, and which
// markets it owns (seed and serve --live write only those; imported markets are never touched).
import type Database from 'better-sqlite3';
import { MARKET_DURATION_MS, MARKET_TYPES, type Coin, type MarketType } from '../../../domain/market.js';
import type { BookPacker } from '../books/book-packer.js';
import type { OwnedMarket, WorldRecords, WorldState } from '../../bulk-store.js';

export type { OwnedMarket, WorldState };

/** Use in seed, serve --live and import (which releases markets) over one SQLite connection. */
export class SyntheticWorldRecords implements WorldRecords {
  private prepared: ReturnType<typeof prepare> | undefined;

  // Prepared on first use: a read-only connection to a database from before these tables opens fine.
  constructor(
    private readonly db: Database.Database,
    private readonly books?: BookPacker,
  ) {}

  private get s(): ReturnType<typeof prepare> {
    return (this.prepared ??= prepare(this.db));
  }

  /** The world, or undefined when no seed made this database's data. */
  state(): WorldState | undefined {
    return this.s.select.get() as WorldState | undefined;
  }

  /** Records the world a seed made (replacing any before). */
  save(state: WorldState): void {
    this.s.upsert.run(state.seed, state.orderbookMs, state.through);
  }

  /** Records how far the world has been written. */
  setThrough(through: number): void {
    this.s.setThroughStmt.run(through);
  }

  /** Marks a market as synthetic: the live world may write it. */
  own(rowid: number): void {
    this.s.ownStmt.run(rowid);
  }

  /** Use in writers of outside data (import): the live world stops writing these markets. */
  release(rowids: Iterable<number>): void {
    for (const id of rowids) this.s.disownStmt.run(id);
  }

  /** True when the live world owns the market. */
  owns(rowid: number): boolean {
    return this.s.ownedStmt.get(rowid) !== undefined;
  }

  /** Owned markets with start_time <= to and end_time > from, oldest first. */
  ownedOverlapping(from: number, to: number): OwnedMarket[] {
    const out: OwnedMarket[] = [];
    // One indexed range per type (a market starts at most its length before `from`): a tick reads
    // a handful of rows, not a day of markets.
    for (const type of MARKET_TYPES) {
      const rows = this.s.overlapping.all({ type, from, to, since: from - MARKET_DURATION_MS[type] }) as (Omit<OwnedMarket, 'dense'> & { dense: number })[];
      for (const r of rows) out.push({ ...r, dense: r.dense === 1 });
    }
    return out.sort((a, b) => a.startTime - b.startTime || a.rowid - b.rowid);
  }

  /** The offset of a market's last stored snapshot, or undefined when it has none. */
  lastSnapshotOffset(rowid: number): number | undefined {
    return (this.s.lastT.get(rowid) as number | null) ?? undefined;
  }

  /** Deletes a market's orderbooks at offsets below `beforeT`; returns how many. */
  pruneOrderbooks(rowid: number, beforeT: number): number {
    // Packed rows kept may refer to rows about to go.
    this.books?.detachBefore(rowid, beforeT);
    return this.s.prune.run(rowid, beforeT).changes;
  }
}

function prepare(db: Database.Database) {
  return {
    select: db.prepare('SELECT seed, orderbook_ms AS orderbookMs, through FROM synthetic_world WHERE id = 1'),
    upsert: db.prepare('INSERT OR REPLACE INTO synthetic_world (id, seed, orderbook_ms, through) VALUES (1, ?, ?, ?)'),
    setThroughStmt: db.prepare('UPDATE synthetic_world SET through = ? WHERE id = 1'),
    ownStmt: db.prepare('INSERT OR IGNORE INTO synthetic_markets (market) VALUES (?)'),
    disownStmt: db.prepare('DELETE FROM synthetic_markets WHERE market = ?'),
    ownedStmt: db.prepare('SELECT 1 FROM synthetic_markets WHERE market = ?').pluck(),
    // CROSS JOIN keeps SQLite on the (market_type, start_time) index instead of walking every owned market.
    overlapping: db.prepare(
      `SELECT m.id AS rowid, m.coin, m.market_type AS marketType, m.start_time AS startTime, m.end_time AS endTime,
              m.price_end AS priceEnd, m.snapshot_count AS snapshotCount, m.dense
       FROM markets m CROSS JOIN synthetic_markets s ON s.market = m.id
       WHERE m.market_type = @type AND m.start_time > @since AND m.start_time <= @to AND m.end_time > @from`,
    ),
    lastT: db.prepare('SELECT max(t) FROM snapshots WHERE market = ?').pluck(),
    prune: db.prepare('DELETE FROM orderbooks WHERE market = ? AND t < ?'),
  };
}
