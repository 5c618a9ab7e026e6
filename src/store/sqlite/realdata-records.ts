// What an import of real Polymarket data keeps beside the snapshots (migration 12): each
// market's slug, fee schedule and price source, which archive hours were written, and the
// reconstruction state carried to the next hour or run.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';

/** A real market's provenance, as `msnap import polymarket` writes it. */
export interface RealMarketSource {
  slug: string;
  /** JSON text of the fee schedule, or null when the source gave none. */
  feeSchedule: string | null;
  priceSource: 'binance' | 'chainlink';
}

/** Use inside a bulk writer's transaction (the import's one per archive file). */
export class RealdataRecords {
  private readonly hourDone: Statement;
  private readonly markHour: Statement;
  private readonly stateOf: Statement;
  private readonly putState: Statement;
  private readonly setSourceStmt: Statement;
  private readonly setOutcomeStmt: Statement;

  constructor(db: Database.Database) {
    this.hourDone = db.prepare('SELECT 1 FROM realdata_hours WHERE market_id = ? AND hour = ?').pluck();
    this.markHour = db.prepare('INSERT OR IGNORE INTO realdata_hours (market_id, hour) VALUES (?, ?)');
    this.stateOf = db.prepare('SELECT state FROM realdata_state WHERE market_id = ?').pluck();
    this.putState = db.prepare('INSERT INTO realdata_state (market_id, state) VALUES (?, ?) ON CONFLICT (market_id) DO UPDATE SET state = excluded.state');
    this.setSourceStmt = db.prepare('UPDATE markets SET slug = ?, fee_schedule = coalesce(?, fee_schedule), price_source = ? WHERE id = ?');
    this.setOutcomeStmt = db.prepare('UPDATE markets SET price_start = ?, price_end = ?, winner = ? WHERE id = ?');
  }

  /** True when this archive hour (epoch ms) was already written for the market. */
  hasHour(marketId: string, hour: number): boolean {
    return this.hourDone.get(marketId, hour) !== undefined;
  }

  /** Records that the hour was written for the market. */
  addHour(marketId: string, hour: number): void {
    this.markHour.run(marketId, hour);
  }

  /** The reconstruction state saved for the market, or undefined. */
  state(marketId: string): string | undefined {
    return this.stateOf.get(marketId) as string | undefined;
  }

  /** Saves the market's reconstruction state. */
  saveState(marketId: string, state: string): void {
    this.putState.run(marketId, state);
  }

  /** Marks a market as real: its slug, fee schedule and price source. */
  setSource(rowid: number, s: RealMarketSource): void {
    this.setSourceStmt.run(s.slug, s.feeSchedule, s.priceSource, rowid);
  }

  /** Sets start and end prices and the winner as given (null included: a real winner is only ever Gamma's). */
  setOutcome(rowid: number, priceStart: number | null, priceEnd: number | null, winner: 'Up' | 'Down' | null): void {
    this.setOutcomeStmt.run(priceStart, priceEnd, winner, rowid);
  }
}
