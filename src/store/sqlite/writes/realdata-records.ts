// What an import or a recording of real Polymarket data keeps beside the snapshots (migrations 12
// and 14): each market's slug, fee schedule and price source, which archive hours were written,
// the reconstruction state carried to the next hour or run, and a recording's Chainlink prices and
// the spans its source covered.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { RealdataWrites, RealMarketSource } from '../../record-writes.js';

export type { RealMarketSource };

/** Use inside a bulk writer's transaction (the import's one per archive file). */
export class RealdataRecords implements RealdataWrites {
  private readonly hourDone: Statement;
  private readonly markHour: Statement;
  private readonly stateOf: Statement;
  private readonly putState: Statement;
  private readonly setSourceStmt: Statement;
  private readonly setOutcomeStmt: Statement;
  private readonly putPrice: Statement;
  private readonly pricesFrom: Statement;
  private readonly putSpan: Statement;
  private readonly spansOf: Statement;
  private readonly unresolvedStmt: Statement;

  constructor(db: Database.Database) {
    this.hourDone = db.prepare('SELECT 1 FROM realdata_hours WHERE market_id = ? AND hour = ?').pluck();
    this.markHour = db.prepare('INSERT OR IGNORE INTO realdata_hours (market_id, hour) VALUES (?, ?)');
    this.stateOf = db.prepare('SELECT state FROM realdata_state WHERE market_id = ?').pluck();
    this.putState = db.prepare('INSERT INTO realdata_state (market_id, state) VALUES (?, ?) ON CONFLICT (market_id) DO UPDATE SET state = excluded.state');
    this.setSourceStmt = db.prepare('UPDATE markets SET slug = ?, fee_schedule = coalesce(?, fee_schedule), price_source = ? WHERE id = ?');
    this.setOutcomeStmt = db.prepare('UPDATE markets SET price_start = ?, price_end = ?, winner = ? WHERE id = ?');
    this.putPrice = db.prepare('INSERT OR IGNORE INTO realdata_prices (coin, ts, price) VALUES (?, ?, ?)');
    this.pricesFrom = db.prepare('SELECT ts, price FROM realdata_prices WHERE coin = ? AND ts >= ? ORDER BY ts').raw(true);
    this.putSpan = db.prepare(
      'INSERT INTO realdata_spans (source, from_ms, to_ms) VALUES (?, ?, ?) ON CONFLICT (source, from_ms) DO UPDATE SET to_ms = max(to_ms, excluded.to_ms)',
    );
    this.spansOf = db.prepare('SELECT from_ms, to_ms FROM realdata_spans WHERE source = ? ORDER BY from_ms').raw(true);
    this.unresolvedStmt = db.prepare(
      'SELECT market_id, slug, start_time FROM markets WHERE price_source = ? AND winner IS NULL AND slug IS NOT NULL AND end_time <= ? ORDER BY end_time',
    ).raw(true);
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

  /** Keeps one recorded price (units of 0.0001) of a coin at ts; a second one for the same time is ignored. */
  addPrice(coin: string, ts: number, price: number): void {
    this.putPrice.run(coin, ts, price);
  }

  /** A coin's recorded prices from `from` (epoch ms) on, in time order. */
  prices(coin: string, from: number): [ts: number, price: number][] {
    return this.pricesFrom.all(coin, from) as [number, number][];
  }

  /** Records that a source was connected over [from, to) (extending the span begun at `from`). */
  coverSpan(source: string, from: number, to: number): void {
    this.putSpan.run(source, from, to);
  }

  /** The spans a source was connected, in time order. */
  spans(source: string): { from: number; to: number }[] {
    return (this.spansOf.all(source) as [number, number][]).map(([from, to]) => ({ from, to }));
  }

  /** Markets of a price source that ended by `now` with no winner yet: their ids, slugs and starts. */
  unresolved(priceSource: 'binance' | 'chainlink', now: number): { marketId: string; slug: string; startTime: number }[] {
    return (this.unresolvedStmt.all(priceSource, now) as [string, string, number][]).map(([marketId, slug, startTime]) => ({ marketId, slug, startTime }));
  }
}
