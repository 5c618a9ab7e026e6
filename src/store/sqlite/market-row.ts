// A market as the markets table stores it, and how a stored row becomes the contract's Market.
import type Database from 'better-sqlite3';
import { MARKET_DETAIL_FIELDS, type Coin, type MarketDetails, type MarketType, type ServedMarket } from '../../domain/market.js';

/** One row of the markets table, as every market read selects it (marketColumns); the detail columns carry the fields' own names. */
export interface MarketRow extends MarketDetails {
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

const BASE_COLUMNS =
  'id, market_id, coin, market_type, start_time, end_time, price_start, price_end, winner, snapshot_count, dense';
const ID_COLUMNS = ['id_base', 'id_step', 'id_exceptions'];

/**
 * The column list that fills a MarketRow: use in every SELECT of whole markets. A database opened
 * read-only before the details or the source-ids migration lacks those columns: details read as
 * null there, ids as msnap's own.
 */
export function marketColumns(db: Database.Database): string {
  const names = new Set((db.prepare('PRAGMA table_info(markets)').all() as { name: string }[]).map((c) => c.name));
  const details = MARKET_DETAIL_FIELDS.map((c) => (names.has(c) ? c : `NULL AS ${c}`));
  const ids = names.has('id_base') ? ID_COLUMNS : ['NULL AS id_base', 'NULL AS id_step', '0 AS id_exceptions'];
  return [BASE_COLUMNS, ...details, ...ids].join(', ');
}

// A market the clock has resolved whose stored data stops before its final second (seed data
// ends at the seed's `now`) keeps price_end and winner null: unknown, never guessed from the last
// stored price. An import that brings the final second fills them in (BulkWriter.refreshMarkets).
/** Use to answer with a stored market: its status (and what an active market hides) at `now`. */
export function toMarket(r: MarketRow, now: number): ServedMarket {
  const active = r.start_time <= now && now < r.end_time;
  // The seed and the live world draw a resolution up to 10 minutes after the end: a market that
  // has just ended reports no resolution (and no update) from the future of the server's clock.
  // Until then resolved_at stays null and updated_at is the last fixed instant passed, so an
  // answer changes once, when the time comes, not with every request.
  const resolvedAt = r.resolved_at !== null && r.resolved_at > now ? null : r.resolved_at;
  const updatedAt = r.updated_at !== null && r.updated_at > now ? (r.end_time <= now ? r.end_time : r.start_time <= now ? r.start_time : r.created_at) : r.updated_at;
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
    event_id: r.event_id,
    condition_id: r.condition_id,
    clob_token_up: r.clob_token_up,
    clob_token_down: r.clob_token_down,
    // What is only known once a market has ended stays null while the clock says it is active.
    final_volume: active ? null : r.final_volume,
    final_liquidity: active ? null : r.final_liquidity,
    resolved_at: active ? null : resolvedAt,
    created_at: r.created_at,
    updated_at: updatedAt,
  };
}
