// Market reads over PostgreSQL: the filters, order and builder window of core/market-filter.ts
// rendered with $n parameters, computed per call (SQLite caches them): several instances share
// the database, so a cache here could not know another one's writes.
import { MARKET_DETAIL_FIELDS, type Market, type ServedMarket } from '../../domain/market.js';
import type { DataWindow } from '../../domain/plans.js';
import { CLOSED_SERIES, marketWhere, ORDER_NEWEST, windowSeries, type WindowCutoffs } from '../core/market-filter.js';
import { toMarket, type MarketRow } from '../core/market-row.js';
import type { MarketQuery } from '../store.js';
import type { Pg } from './pg-connection.js';

/** Every column of a MarketRow, in the order market-row.ts reads them. */
export const MARKET_COLUMNS = [
  'id',
  'market_id',
  'coin',
  'market_type',
  'start_time',
  'end_time',
  'price_start',
  'price_end',
  'winner',
  'snapshot_count',
  'dense::int AS dense',
  ...MARKET_DETAIL_FIELDS,
  'id_base',
  'id_step',
  'id_exceptions',
  'fee_schedule',
].join(', ');

/** Use for the Store's market methods over a pool or a transaction. */
export class PgMarketReads {
  constructor(private readonly sql: Pg) {}

  /** See Store.listMarkets. */
  async listMarkets(q: MarketQuery): Promise<{ markets: ServedMarket[]; total: number }> {
    const cutoffs = q.window === null ? undefined : await this.windowCutoffs(q.window);
    const { clause, params } = whereOf(q, cutoffs);
    const n = params.length;
    const [rows, count] = await Promise.all([
      this.sql.unsafe<MarketRow[]>(`SELECT ${MARKET_COLUMNS} FROM markets ${clause} ${ORDER_NEWEST} LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, q.limit, q.offset], {
        prepare: true,
      }),
      this.sql.unsafe<{ n: number }[]>(`SELECT count(*) AS n FROM markets ${clause}`, params, { prepare: true }),
    ]);
    return { markets: rows.map((r) => toMarket(r, q.now)), total: count[0]!.n };
  }

  /** See Store.getMarket. */
  async getMarket(id: string, now: number): Promise<ServedMarket | undefined> {
    const row = await this.marketRow(id);
    return row ? toMarket(row, now) : undefined;
  }

  /** The stored row of a market, or undefined. */
  async marketRow(id: string): Promise<MarketRow | undefined> {
    const rows = await this.sql.unsafe<MarketRow[]>(`SELECT ${MARKET_COLUMNS} FROM markets WHERE market_id = $1`, [id], { prepare: true });
    return rows[0];
  }

  /** The stored row of a market and whether its snapshots still sit in the legacy row tables. */
  async snapshotMarket(id: string): Promise<(MarketRow & { in_rows: boolean }) | undefined> {
    const rows = await this.sql.unsafe<(MarketRow & { in_rows: boolean })[]>(`SELECT ${MARKET_COLUMNS}, in_rows FROM markets WHERE market_id = $1`, [id], {
      prepare: true,
    });
    return rows[0];
  }

  /** See Store.marketRank. */
  async marketRank(market: Pick<Market, 'coin' | 'market_type' | 'start_time'>): Promise<number> {
    const [row] = await this.sql<{ n: number }[]>`
      SELECT count(*) AS n FROM markets WHERE coin = ${market.coin} AND market_type = ${market.market_type} AND start_time > ${market.start_time}`;
    return row!.n;
  }

  /** start_time of the cap-th newest market of every series (absent: the series is shorter than its cap). */
  private async windowCutoffs(window: Exclude<DataWindow, null>): Promise<Map<string, number>> {
    const cutoffs = new Map<string, number>();
    const parts: string[] = [];
    const params: (string | number)[] = [];
    for (const s of windowSeries(window)) {
      if (s.offset === undefined) {
        cutoffs.set(s.key, CLOSED_SERIES);
        continue;
      }
      params.push(s.coin, s.type, s.offset);
      const k = params.length;
      parts.push(`(SELECT start_time FROM markets WHERE coin = $${k - 2} AND market_type = $${k - 1}
        ORDER BY start_time DESC LIMIT 1 OFFSET $${k}) AS "${s.key}"`);
    }
    if (parts.length === 0) return cutoffs;
    const [row] = await this.sql.unsafe<Record<string, number | null>[]>(`SELECT ${parts.join(', ')}`, params, { prepare: true });
    for (const [key, cut] of Object.entries(row!)) if (cut !== null) cutoffs.set(key, cut);
    return cutoffs;
  }
}

/** The WHERE clause of a market query and its parameters ($1...). */
function whereOf(q: MarketQuery, cutoffs: WindowCutoffs | undefined): { clause: string; params: (string | number)[] } {
  const params: (string | number)[] = [];
  const clause = marketWhere(q, q.status, cutoffs, (_name, v) => `$${params.push(v)}`, '::bigint');
  return { clause, params };
}
