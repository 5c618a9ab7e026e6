// A market as the markets table stores it, and how a stored row becomes the contract's Market.
import { parseFeeSchedule } from '../../domain/fee-schedule.js';
import { type Coin, type MarketDetails, type MarketType, type ServedMarket } from '../../domain/market.js';

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
  /** The stored fee schedule's JSON (SQLite's markets.fee_schedule); absent where the store has no such column. */
  fee_schedule?: string | null;
  /** A real market's Polymarket slug and price source (docs/real-data.md), where a dump reads them; null on seeded and pulled markets. */
  slug?: string | null;
  price_source?: string | null;
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
    ...feeScheduleOf(r),
  };
}

/** The row's stored fee schedule as the record's optional field (none: the era's). */
function feeScheduleOf(r: MarketRow): Pick<ServedMarket, 'fee_schedule'> {
  const s = parseFeeSchedule(r.fee_schedule);
  return s ? { fee_schedule: s } : {};
}
