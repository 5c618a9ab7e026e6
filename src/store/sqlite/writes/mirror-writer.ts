// The write side of `msnap pull`: markets and pages of snapshots as a service sent them, each page
// in its own transaction (so an interrupted pull keeps every page it finished and nothing half),
// with the source's snapshot ids, each market's origin and how far its depth was fetched.
import type { Market, Snapshot } from '../../../domain/market.js';
import type { BulkWriter, MarketRef } from './bulk-writer.js';
import { toScaled } from '../../core/price-scale.js';
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { LocalMarketState, Origin, OriginSummary } from '../../core/mirror-state.js';
import type { MirrorWriterPort } from '../../mirror-store.js';
import { MirrorState } from '../reads/mirror-state.js';

/** Use in `msnap pull` (one per run): every write is a committed transaction of its own. */
export class MirrorWriter implements MirrorWriterPort {
  /** What the store holds of a market now. */
  readonly state: MirrorState;
  private readonly setOrigin: Statement;
  private readonly setDepth: Statement;

  constructor(
    db: Database.Database,
    private readonly bulk: BulkWriter,
    private readonly origin: Origin,
  ) {
    this.state = new MirrorState(db);
    this.setDepth = db.prepare(
      'UPDATE market_origin SET origin_depth_through = max(coalesce(origin_depth_through, 0), ?) WHERE market = ?',
    );
    this.setOrigin = db.prepare(
      `INSERT INTO market_origin (market, origin_base_url, origin_dialect, origin_pulled_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (market) DO UPDATE SET origin_base_url = excluded.origin_base_url,
         origin_dialect = excluded.origin_dialect, origin_pulled_at = excluded.origin_pulled_at`,
    );
  }

  /** The market as stored now. */
  local(marketId: string): Promise<LocalMarketState> {
    return this.state.local(marketId);
  }

  /** Rows a pull need not fetch again (see MirrorState.held). */
  held(marketId: string, withDepth: boolean): Promise<number> {
    return this.state.held(marketId, withDepth);
  }

  /** Stores (or fills in) the market's metadata and origin; true when it was new. */
  async market(m: Market): Promise<boolean> {
    return this.bulk.transaction(() => this.upsert(m).created);
  }

  /**
   * Stores one page of the market's snapshots (orderbooks too when they came) in one transaction;
   * returns rows new to the store. `depthThrough`: the market's rows before this time have now
   * been fetched with depth (a pull with --orderbook reading on from where depth stopped).
   */
  async page(m: Market, snapshots: readonly Snapshot[], depthThrough?: number): Promise<number> {
    return this.bulk.transaction(() => {
      const { ref } = this.upsert(m);
      const writer = this.bulk.snapshotWriter();
      const ids = this.bulk.sourceIds();
      for (const s of snapshots) {
        const t = s.time - ref.startTime;
        // A snapshot outside its market cannot be stored under it; the service never sends one.
        if (t < 0 || s.time >= ref.endTime) continue;
        writer.add(ref.rowid, t, toScaled(s.price), toScaled(s.price_up), toScaled(s.price_down));
        if (Number.isSafeInteger(s.id)) ids.note(ref.rowid, t, s.id);
        if (s.orderbook_up && s.orderbook_down) {
          this.bulk.insertOrderbook(ref.rowid, t, JSON.stringify(s.orderbook_up), JSON.stringify(s.orderbook_down));
        }
      }
      writer.flush();
      ids.finish();
      this.bulk.refreshMarkets([ref.rowid], writer);
      if (depthThrough !== undefined) this.setDepth.run(depthThrough, ref.rowid);
      return writer.added;
    });
  }

  private upsert(m: Market): { ref: MarketRef; created: boolean } {
    const out = this.bulk.upsertMarket({
      marketId: m.market_id,
      coin: m.coin,
      marketType: m.market_type,
      startTime: m.start_time,
      endTime: m.end_time,
      priceStart: m.price_start,
      priceEnd: m.price_end,
      winner: m.winner,
    });
    this.setOrigin.run(out.ref.rowid, this.origin.baseUrl, this.origin.dialect, this.origin.pulledAt);
    return out;
  }
}

/** Use to show what a store mirrors (serve prints it); empty when nothing was pulled or the schema predates pull. */
export function originSummary(db: Database.Database): OriginSummary[] {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'market_origin'").get() !== undefined;
  if (!has) return [];
  return db
    .prepare(
      `SELECT origin_base_url AS baseUrl, origin_dialect AS dialect, count(*) AS markets, max(origin_pulled_at) AS lastPulledAt
       FROM market_origin GROUP BY origin_base_url, origin_dialect ORDER BY lastPulledAt DESC`,
    )
    .all() as OriginSummary[];
}
