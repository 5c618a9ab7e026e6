// The set-based steps of a load (pg-load.ts), as SQL over its temp tables. They repeat what the
// SQLite bulk writer does row by row: upsert markets filling in unknown fields, keep each row's
// source id (an exception where it breaks the market's pattern), recompute a market's summary.
import { MARKET_DETAIL_FIELDS, SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';
import { PRICE_SCALE } from '../core/price-scale.js';
import { SNAPSHOT_ID_STRIDE } from '../core/snapshot-ids.js';

const DETAILS = MARKET_DETAIL_FIELDS.join(', ');
/** A real market's provenance (migration 9), copied as the details are. */
const REAL_FIELDS = ['slug', 'fee_schedule', 'price_source'] as const;
const REAL = REAL_FIELDS.join(', ');

/** The markets of the SQLite file; src is its rowid, id_base already explicit. */
export const TEMP_MARKETS_SQL = `CREATE TEMP TABLE load_markets (
  src bigint, market_id text COLLATE "C", coin text, market_type text, start_time bigint, end_time bigint,
  price_start double precision, price_end double precision, winner text, snapshot_count bigint, dense boolean,
  event_id text, condition_id text, clob_token_up text, clob_token_down text, final_volume double precision,
  final_liquidity double precision, resolved_at bigint, created_at bigint, updated_at bigint,
  id_base bigint, id_step bigint, id_exceptions bigint, slug text, fee_schedule text, price_source text) ON COMMIT DROP`;

/**
 * Inserts new markets whole; for known ones, values the file has replace, nulls keep what is
 * stored (as BulkWriter.upsertMarket). Returns each file market's new id, whether it was inserted,
 * and whether PostgreSQL held no rows and no id pattern for it (fresh: it takes the file's as they are).
 */
export const UPSERT_MARKETS_SQL = `WITH up AS (
    INSERT INTO markets (market_id, coin, market_type, start_time, end_time, price_start, price_end, winner,
      snapshot_count, dense, ${DETAILS}, id_base, id_step, id_exceptions, ${REAL})
    SELECT market_id, coin, market_type, start_time, end_time, price_start, price_end, winner,
      snapshot_count, dense, ${DETAILS}, id_base, id_step, id_exceptions, ${REAL}
    FROM load_markets ORDER BY start_time, market_id
    ON CONFLICT (market_id) DO UPDATE SET
      price_start = coalesce(excluded.price_start, markets.price_start),
      price_end = coalesce(excluded.price_end, markets.price_end),
      winner = coalesce(excluded.winner, markets.winner),
      ${[...MARKET_DETAIL_FIELDS, ...REAL_FIELDS].map((c) => `${c} = coalesce(excluded.${c}, markets.${c})`).join(',\n      ')}
    RETURNING id, market_id, xmax = 0 AS inserted, snapshot_count, id_base)
  SELECT lm.src, up.id AS dst, up.inserted, (up.inserted OR (up.snapshot_count = 0 AND up.id_base IS NULL)) AS fresh
  FROM up JOIN load_markets lm ON lm.market_id = up.market_id`;

/** A known market with no rows and no pattern takes the file's summary and pattern with its rows. */
export const ADOPT_MARKETS_SQL = `UPDATE markets m SET snapshot_count = lm.snapshot_count, dense = lm.dense,
    id_base = lm.id_base, id_step = lm.id_step, id_exceptions = lm.id_exceptions
  FROM load_markets lm WHERE lm.market_id = m.market_id AND m.snapshot_count = 0 AND m.id_base IS NULL`;

/** The id a pattern (columns prefix.id_base, prefix.id_step) gives offset `t`, as numeric (see snapshot-ids.ts idAt). */
function idAt(prefix: string, t: string, ownIdsOf?: string): string {
  const base = ownIdsOf ? `coalesce(${prefix}.id_base, ${ownIdsOf} * ${SNAPSHOT_ID_STRIDE})` : `${prefix}.id_base`;
  return `CASE WHEN ${prefix}.id_step IS NULL THEN ${base} + ${t}
    ELSE ${base} + (${t}::numeric / ${SNAPSHOT_INTERVAL_MS}) * ${prefix}.id_step END`;
}

/**
 * Rows just added to a known market keep the id the file gave them: where it differs from the
 * market's own pattern it is stored as an exception (as SourceIds does), and counted.
 */
export const MERGE_IDS_SQL = `WITH ex AS (
    INSERT INTO snapshot_ids (market, t, id)
    SELECT a.market, a.t, v.src_id::bigint FROM load_added a
      JOIN markets m ON m.id = a.market
      JOIN load_markets lm ON lm.market_id = m.market_id
      LEFT JOIN load_ids x ON x.market = a.market AND x.t = a.t
      CROSS JOIN LATERAL (SELECT coalesce(x.id::numeric, ${idAt('lm', 'a.t')}) AS src_id, ${idAt('m', 'a.t', 'm.id')} AS own_id) v
    WHERE v.src_id <> v.own_id
    ON CONFLICT DO NOTHING RETURNING market)
  UPDATE markets m SET id_exceptions = m.id_exceptions + c.n
  FROM (SELECT market, count(*) AS n FROM ex GROUP BY market) c WHERE m.id = c.market`;

/**
 * BulkWriter.refreshMarkets for the markets `marketsIn` selects (a subquery or a list of ids), from
 * their blocks' summaries: snapshot_count, the dense flag, price_start / price_end from the first /
 * last row where still unknown and the rows reach the market's first / final second, then the
 * winner where both are known; a real market's (price_source set) prices and winner are left as
 * set. Two statements, run in this order.
 */
export function refreshSql(marketsIn: string): [string, string] {
  return [
    `WITH st AS (
      SELECT b.market, sum(b.n) AS n, min(b.t_first) AS lo, max(b.t_last) AS hi, sum(b.off_grid) AS off
      FROM snapshot_blocks b WHERE b.market IN (${marketsIn}) GROUP BY b.market),
    edge AS (SELECT st.*, f.t_first AS ft, f.p_first AS fp, l.t_last AS lt, l.p_last AS lp FROM st
      CROSS JOIN LATERAL (SELECT t_first, p_first FROM snapshot_blocks WHERE market = st.market ORDER BY bucket ASC LIMIT 1) f
      CROSS JOIN LATERAL (SELECT t_last, p_last FROM snapshot_blocks WHERE market = st.market ORDER BY bucket DESC LIMIT 1) l)
    UPDATE markets m SET snapshot_count = e.n,
      dense = (e.lo = 0 AND e.off = 0 AND e.hi = (e.n - 1) * ${SNAPSHOT_INTERVAL_MS}),
      price_start = CASE WHEN m.price_source IS NOT NULL THEN m.price_start
        ELSE coalesce(m.price_start, CASE WHEN e.ft < 1000 THEN e.fp::float8 / ${PRICE_SCALE} END) END,
      price_end = CASE WHEN m.price_source IS NOT NULL THEN m.price_end
        ELSE coalesce(m.price_end, CASE WHEN e.lt >= m.end_time - m.start_time - 1000 THEN e.lp::float8 / ${PRICE_SCALE} END) END
    FROM edge e WHERE m.id = e.market`,
    `UPDATE markets m SET winner = CASE WHEN m.price_end >= m.price_start THEN 'Up' ELSE 'Down' END
    WHERE m.winner IS NULL AND m.price_source IS NULL AND m.price_start IS NOT NULL AND m.price_end IS NOT NULL AND m.id IN (${marketsIn})`,
  ];
}

/** The refresh of every known market a load added rows to. */
export const REFRESH_SQL = refreshSql('SELECT DISTINCT market FROM load_added').join(';\n');
