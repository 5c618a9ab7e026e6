// A market as the markets table stores it, and how a stored row becomes the contract's Market.
import type Database from 'better-sqlite3';
import type { Coin, Market, MarketType } from '../../domain/market.js';

/** One row of the markets table, as every market read selects it (MARKET_COLUMNS). */
export interface MarketRow {
  id: number;
  market_id: string;
  coin: string;
  market_type: string;
  start_time: number;
  end_time: number;
  price_start: number | null;
  price_end: number | null;
  winner: string | null;
  snapshot_count: number;
  dense: number;
  /** The market's snapshot id pattern (see snapshot-ids.ts); id_base null = msnap's own ids. */
  id_base: number | null;
  id_step: number | null;
  id_exceptions: number;
}

/** The column list that fills a MarketRow on a migrated database: use in every SELECT of whole markets. */
export const MARKET_COLUMNS =
  'id, market_id, coin, market_type, start_time, end_time, price_start, price_end, winner, snapshot_count, dense, id_base, id_step, id_exceptions';

/** MARKET_COLUMNS for this connection: a read-only one to a database from before source ids reads msnap's own. */
export function marketColumns(db: Database.Database): string {
  const has = (db.prepare('PRAGMA table_info(markets)').all() as { name: string }[]).some((c) => c.name === 'id_base');
  return has ? MARKET_COLUMNS : MARKET_COLUMNS.replace('id_base, id_step, id_exceptions', 'NULL AS id_base, NULL AS id_step, 0 AS id_exceptions');
}

// A market the clock has resolved whose stored data stops before its final second (seed data
// ends at the seed's `now`) keeps price_end and winner null: unknown, never guessed from the last
// stored price. An import that brings the final second fills them in (BulkWriter.refreshMarkets).
/** Use to answer with a stored market: its status (and what an active market hides) at `now`. */
export function toMarket(r: MarketRow, now: number): Market {
  const active = r.start_time <= now && now < r.end_time;
  return {
    market_id: r.market_id,
    slug: r.market_id,
    coin: r.coin as Coin,
    market_type: r.market_type as MarketType,
    status: active ? 'active' : 'resolved',
    start_time: r.start_time,
    end_time: r.end_time,
    price_start: r.price_start,
    price_end: active ? null : r.price_end,
    winner: active ? null : (r.winner as 'Up' | 'Down' | null),
    snapshot_count: r.snapshot_count,
  };
}
