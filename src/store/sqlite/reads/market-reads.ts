// Market reads for the server: filtered lists with their totals, one market, a market's rank in
// its series. Totals and data-window cutoffs are cached until DataVersion says the data changed.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { MARKET_TYPES, type Market, type ServedMarket } from '../../../domain/market.js';
import type { DataWindow } from '../../../domain/plans.js';
import type { MarketQuery } from '../../store.js';
import type { DataVersion } from '../data-version.js';
import { CLOSED_SERIES, marketWhere, ORDER_NEWEST, windowSeries } from '../../core/market-filter.js';
import { toMarket, type MarketRow } from '../../core/market-row.js';
import { marketColumns } from './market-columns.js';

/** How many market counts are kept between data changes. */
const MAX_CACHED_COUNTS = 4096;

/** A market query's WHERE clause as a cached pair of prepared statements and its parameters. */
interface MarketFilter {
  shape: string;
  params: Record<string, number | string>;
  stmts: { rows: Statement; count: Statement };
}

/** Use for the Store's market methods over one SQLite connection. */
export class MarketReads {
  private readonly columns: string;
  private readonly marketById: Statement;
  private readonly rank: Statement;
  private readonly nthNewestStart: Statement;
  /** One pair of statements per filter shape (which of coin, type, bounds, status, window are set). */
  private readonly listStatements = new Map<string, { rows: Statement; count: Statement }>();
  private cutoffCache: { version: string; windowKey: string; cutoffs: Map<string, number> } | undefined;
  private countCache: { version: string; counts: Map<string, number> } = { version: '', counts: new Map() };

  constructor(
    private readonly db: Database.Database,
    private readonly version: DataVersion,
  ) {
    this.columns = marketColumns(db);
    this.marketById = db.prepare(`SELECT ${this.columns} FROM markets WHERE market_id = ?`);
    this.rank = db.prepare('SELECT count(*) FROM markets WHERE coin = ? AND market_type = ? AND start_time > ?').pluck();
    this.nthNewestStart = db
      .prepare('SELECT start_time FROM markets WHERE coin = ? AND market_type = ? ORDER BY start_time DESC LIMIT 1 OFFSET ?')
      .pluck();
  }

  /** See Store.listMarkets. */
  listMarkets(q: MarketQuery): { markets: ServedMarket[]; total: number } {
    const rowsPart = this.marketFilter(q, q.status);
    const rows = rowsPart.stmts.rows.all({ ...rowsPart.params, limit: q.limit, offset: q.offset }) as MarketRow[];
    let total: number;
    if (q.status === 'resolved') {
      // "Not active" cannot use the start_time index; all minus active can (both halves are cheap).
      total = this.cachedCount(q) - countOf(this.marketFilter(q, 'active'));
    } else if (q.status === 'active') {
      total = countOf(rowsPart);
    } else {
      total = this.cachedCount(q);
    }
    return { markets: rows.map((r) => toMarket(r, q.now)), total };
  }

  /** See Store.getMarket. */
  getMarket(id: string, now: number): ServedMarket | undefined {
    const row = this.marketById.get(id) as MarketRow | undefined;
    return row ? toMarket(row, now) : undefined;
  }

  /** See Store.marketRank. */
  marketRank(market: Pick<Market, 'coin' | 'market_type' | 'start_time'>): number {
    return this.rank.get(market.coin, market.market_type, market.start_time) as number;
  }

  /** Counts without a status filter depend only on the data: cache them until it changes. */
  private cachedCount(q: MarketQuery): number {
    const filter = this.marketFilter(q, undefined);
    const version = this.version.current();
    // A replay (or a client walking start_time bounds) asks new bounds on every request: start over
    // past a bound rather than hold every count ever asked until the data changes.
    if (this.countCache.version !== version || this.countCache.counts.size >= MAX_CACHED_COUNTS) this.countCache = { version, counts: new Map() };
    const key = `${filter.shape}|${JSON.stringify(filter.params)}`;
    let n = this.countCache.counts.get(key);
    if (n === undefined) {
      n = countOf(filter);
      this.countCache.counts.set(key, n);
    }
    return n;
  }

  private marketFilter(q: MarketQuery, status: MarketQuery['status']): MarketFilter {
    const params: Record<string, number | string> = {};
    const cutoffs = q.window === null ? undefined : this.windowCutoffs(q.window);
    // The clause names its parameters, so it is the statement's cache key as it stands.
    const shape = marketWhere(q, status, cutoffs, (name, v) => {
      params[name] = v;
      return `@${name}`;
    });
    let stmts = this.listStatements.get(shape);
    if (!stmts) {
      stmts = {
        rows: this.db.prepare(`SELECT ${this.columns} FROM markets ${shape} ${ORDER_NEWEST} LIMIT @limit OFFSET @offset`),
        count: this.db.prepare(`SELECT count(*) FROM markets ${shape}`).pluck(),
      };
      this.listStatements.set(shape, stmts);
    }
    return { shape, params, stmts };
  }

  /** start_time of the cap-th newest market of every series, cached until the data changes. */
  private windowCutoffs(window: Exclude<DataWindow, null>): Map<string, number> {
    const version = this.version.current();
    const windowKey = MARKET_TYPES.map((t) => window[t]).join(',');
    const cached = this.cutoffCache;
    if (cached && cached.version === version && cached.windowKey === windowKey) return cached.cutoffs;
    const cutoffs = new Map<string, number>();
    for (const s of windowSeries(window)) {
      const cut = s.offset === undefined ? CLOSED_SERIES : (this.nthNewestStart.get(s.coin, s.type, s.offset) as number | undefined);
      if (cut !== undefined) cutoffs.set(s.key, cut);
    }
    this.cutoffCache = { version, windowKey, cutoffs };
    return cutoffs;
  }
}

function countOf(filter: MarketFilter): number {
  return filter.stmts.count.get(filter.params) as number;
}
