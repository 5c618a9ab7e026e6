// Snapshot reads over PostgreSQL: a page as ready JSON text, written by the same renderers as the
// SQLite store's (core/) from the same values, and the snapshot nearest a time with the same tie
// rule (core/page-plan.ts). Markets in blocks read through pg-block-reads.ts; a market an older
// msnap stored as rows (until serve compact-books moves it) reads its rows here, dense ones by
// key range.
import type { Snapshot } from '../../domain/market.js';
import { densePageRange, nearestRecord, offsetRange, pickNearest } from '../core/page-plan.js';
import { patternOf, type PageIds } from '../core/snapshot-ids.js';
import { snapshotRowsToJson, type RawSnapshotRow } from '../core/snapshot-json.js';
import type { SnapshotQuery } from '../store.js';
import type { Pg } from './pg-connection.js';
import type { PgMarketReads } from './pg-market-reads.js';
import { PgBlockReads } from './pg-block-reads.js';

const PAGE = 'SELECT t, price, price_up, price_down FROM snapshots WHERE market = $1 AND t >= $2 AND t < $3 ORDER BY t LIMIT $4 OFFSET $5';
const PAGE_OB = `SELECT s.t, s.price, s.price_up, s.price_down, o.up, o.down FROM snapshots s
  LEFT JOIN orderbooks o ON o.market = s.market AND o.t = s.t
  WHERE s.market = $1 AND s.t >= $2 AND s.t < $3 ORDER BY s.t LIMIT $4 OFFSET $5`;
// The two candidates of a nearest read in one round trip, each with its stored id (when it is an
// exception to the pattern) and its depth. The asked offset may lie far outside int4: bigint.
const NEAREST = `SELECT c.t, c.price, c.price_up, c.price_down, x.id, o.up, o.down FROM (
    (SELECT t, price, price_up, price_down FROM snapshots WHERE market = $1 AND t <= $2::bigint ORDER BY t DESC LIMIT 1)
    UNION ALL
    (SELECT t, price, price_up, price_down FROM snapshots WHERE market = $1 AND t > $2::bigint ORDER BY t ASC LIMIT 1)
  ) c
  LEFT JOIN snapshot_ids x ON x.market = $1 AND x.t = c.t
  LEFT JOIN orderbooks o ON $3 AND o.market = $1 AND o.t = c.t`;

type NearestRow = [number, number, number, number, number | null, string | null, string | null];

/** Use for the Store's snapshot methods over a pool or a transaction. */
export class PgSnapshotReads {
  private readonly blocks: PgBlockReads;

  constructor(
    private readonly sql: Pg,
    private readonly markets: PgMarketReads,
  ) {
    this.blocks = new PgBlockReads(sql);
  }

  /** See Store.snapshotPageJson. */
  async snapshotPageJson(marketId: string, q: SnapshotQuery): Promise<{ json: string; count: number; total: number }> {
    return this.settled((moved) => this.pageJson(marketId, q, moved));
  }

  /** See Store.nearestSnapshot. */
  async nearestSnapshot(marketId: string, ts: number, includeOrderbook = false): Promise<Snapshot | undefined> {
    return this.settled((moved) => this.nearest(marketId, ts, includeOrderbook, moved));
  }

  /**
   * A read of a market still in rows may race serve compact-books moving it into blocks (its rows
   * then read as gone): such a read checks afterwards that the market is still in rows, and is
   * done again otherwise (from its blocks).
   */
  private async settled<T>(read: (moved: (market: number) => Promise<boolean>) => Promise<T>): Promise<T> {
    let raced = false;
    const moved = async (market: number) => {
      const [row] = await this.sql<{ in_rows: boolean }[]>`SELECT in_rows FROM markets WHERE id = ${market}`;
      raced = row?.in_rows !== true;
      return raced;
    };
    const first = await read(moved);
    return raced ? read(async () => false) : first;
  }

  private async pageJson(marketId: string, q: SnapshotQuery, moved: (market: number) => Promise<boolean>): Promise<{ json: string; count: number; total: number }> {
    // A page without from / before: the market and the blocks its page would need if dense, in one round trip.
    const whole = q.from === undefined && q.before === undefined;
    const pre = whole ? await this.blocks.marketWithBlocks(marketId, q) : undefined;
    const m = pre ? pre.market : await this.markets.snapshotMarket(marketId);
    if (!m) return { json: '[]', count: 0, total: 0 };
    const range = offsetRange(m, q);
    if (!range) return { json: '[]', count: 0, total: 0 };
    const { lo, hi } = range;
    const page = q.includeOrderbook ? PAGE_OB : PAGE;
    const ids: PageIds = { pattern: patternOf(m) };
    if (!m.in_rows) {
      const exceptions = m.id_exceptions > 0 ? this.exceptionsIn(m.id, lo, hi) : Promise.resolve(undefined);
      return m.dense === 1 ? this.blocks.densePage(m, range, q, ids, exceptions, pre?.blocks) : this.blocks.page(m, range, q, ids, exceptions);
    }
    let rows: RawSnapshotRow[];
    let total: number;
    let exceptions: Promise<Map<number, number> | undefined> = Promise.resolve(undefined);
    if (m.dense === 1) {
      const { total: inRange, first, last, from, to } = densePageRange(m, range, q);
      total = inRange;
      if (last <= first) return { json: '[]', count: 0, total };
      if (m.id_exceptions > 0) exceptions = this.exceptionsIn(m.id, lo, hi);
      [rows, ids.exceptions] = await Promise.all([this.rows(page, [m.id, from, to, q.limit, 0]), exceptions]);
    } else {
      const whole = q.from === undefined && q.before === undefined;
      if (m.id_exceptions > 0) exceptions = this.exceptionsIn(m.id, lo, hi);
      let count: Promise<number> = Promise.resolve(m.snapshot_count);
      if (!whole) count = this.sql<{ n: number }[]>`SELECT count(*) AS n FROM snapshots WHERE market = ${m.id} AND t >= ${lo} AND t < ${hi}`.then((r) => r[0]!.n);
      [rows, total, ids.exceptions] = await Promise.all([this.rows(page, [m.id, lo, hi, q.limit, q.offset]), count, exceptions]);
    }
    if (ids.exceptions === undefined) delete ids.exceptions;
    if (await moved(m.id)) return { json: '[]', count: 0, total: 0 };
    return { json: snapshotRowsToJson(rows, ids, m.market_id, m.start_time, q.includeOrderbook, q.format), count: rows.length, total };
  }

  private async nearest(marketId: string, ts: number, includeOrderbook: boolean, moved: (market: number) => Promise<boolean>): Promise<Snapshot | undefined> {
    const m = await this.markets.snapshotMarket(marketId);
    if (!m || m.snapshot_count === 0) return undefined;
    const t = ts - m.start_time;
    if (!m.in_rows) return this.blocks.nearest(m, t, includeOrderbook);
    const found = (await this.sql.unsafe(NEAREST, [m.id, t, includeOrderbook], { prepare: true }).values()) as unknown as NearestRow[];
    if (await moved(m.id)) return undefined;
    const pick = pickNearest(
      found.find((r) => r[0] <= t),
      found.find((r) => r[0] > t),
      t,
    );
    if (!pick) return undefined;
    const depth = includeOrderbook && pick[5] !== null && pick[6] !== null ? ([pick[5], pick[6]] as const) : undefined;
    return nearestRecord(m, pick, pick[4], depth);
  }

  private async rows(text: string, params: number[]): Promise<RawSnapshotRow[]> {
    return (await this.sql.unsafe(text, params, { prepare: true }).values()) as unknown as RawSnapshotRow[];
  }

  private async exceptionsIn(market: number, lo: number, hi: number): Promise<Map<number, number> | undefined> {
    const rows = (await this.sql`SELECT t, id FROM snapshot_ids WHERE market = ${market} AND t >= ${lo} AND t < ${hi}`.values()) as unknown as [
      number,
      number,
    ][];
    return rows.length === 0 ? undefined : new Map(rows);
  }
}
