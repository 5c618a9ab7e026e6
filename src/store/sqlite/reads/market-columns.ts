// The column list of SQLite's whole-market reads, which adapts to a database opened read-only
// before the details or source-ids migrations.
import type Database from 'better-sqlite3';
import { MARKET_DETAIL_FIELDS } from '../../../domain/market.js';

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
  const fees = names.has('fee_schedule') ? 'fee_schedule' : 'NULL AS fee_schedule';
  return [BASE_COLUMNS, ...details, ...ids, fees].join(', ');
}
