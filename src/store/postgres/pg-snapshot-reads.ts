// Snapshot reads over PostgreSQL: a page as ready JSON text, written by the same renderer as the
// SQLite store's (sqlite/snapshot-json.ts) from the same raw rows, and the snapshot nearest a time
// with the same tie rule. Dense markets page by key range, as in SQLite, so deep pages cost no
// OFFSET walk.
import { SNAPSHOT_INTERVAL_MS, type Snapshot } from '../../domain/market.js';
import type { MarketRow } from '../core/market-row.js';
import { fromScaled } from '../core/price-scale.js';
import { idAt, patternOf, type PageIds } from '../core/snapshot-ids.js';
import { snapshotRowsToJson, type RawSnapshotRow } from '../core/snapshot-json.js';
import type { SnapshotQuery } from '../store.js';
import type { Pg } from './pg-connection.js';
import type { PgMarketReads } from './pg-market-reads.js';

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
  constructor(
    private readonly sql: Pg,
    private readonly markets: PgMarketReads,
  ) {}

  /** See Store.snapshotPageJson. */
  async snapshotPageJson(marketId: string, q: SnapshotQuery): Promise<{ json: string; count: number; total: number }> {
    const m = await this.markets.marketRow(marketId);
    if (!m) return { json: '[]', count: 0, total: 0 };
    const duration = m.end_time - m.start_time;
    // Offsets within the market; times outside [start, end) hold no snapshots.
    const lo = q.from === undefined ? 0 : Math.max(0, q.from - m.start_time);
    const hi = q.before === undefined ? duration : Math.min(duration, q.before - m.start_time);
    if (hi <= lo || m.snapshot_count === 0) return { json: '[]', count: 0, total: 0 };
    const page = q.includeOrderbook ? PAGE_OB : PAGE;
    const ids: PageIds = { pattern: patternOf(m) };
    let rows: RawSnapshotRow[];
    let total: number;
    let exceptions: Promise<Map<number, number> | undefined> = Promise.resolve(undefined);
    if (m.dense === 1) {
      // Rows are exactly k * 125 for k < snapshot_count: the page is a key range.
      const kLo = Math.ceil(lo / SNAPSHOT_INTERVAL_MS);
      const kHi = Math.min(m.snapshot_count, Math.ceil(hi / SNAPSHOT_INTERVAL_MS));
      total = Math.max(0, kHi - kLo);
      const first = kLo + q.offset;
      const last = Math.min(kHi, first + q.limit);
      if (last <= first) return { json: '[]', count: 0, total };
      const from = first * SNAPSHOT_INTERVAL_MS;
      const to = last * SNAPSHOT_INTERVAL_MS;
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
    return { json: snapshotRowsToJson(rows, ids, m.market_id, m.start_time, q.includeOrderbook, q.format), count: rows.length, total };
  }

  /** See Store.nearestSnapshot. */
  async nearestSnapshot(marketId: string, ts: number, includeOrderbook = false): Promise<Snapshot | undefined> {
    const m = await this.markets.marketRow(marketId);
    if (!m || m.snapshot_count === 0) return undefined;
    const t = ts - m.start_time;
    const found = (await this.sql.unsafe(NEAREST, [m.id, t, includeOrderbook], { prepare: true }).values()) as unknown as NearestRow[];
    const before = found.find((r) => r[0] <= t);
    const after = found.find((r) => r[0] > t);
    let pick = before;
    // The earlier one wins a tie, so `after` needs to be strictly closer.
    if (after && (!before || after[0] - t < t - before[0])) pick = after;
    if (!pick) return undefined;
    const snapshot: Snapshot = {
      id: pick[4] ?? idAt(patternOf(m), pick[0]),
      market_id: m.market_id,
      time: m.start_time + pick[0],
      price: fromScaled(pick[1]),
      price_up: fromScaled(pick[2]),
      price_down: fromScaled(pick[3]),
    };
    if (includeOrderbook && pick[5] !== null && pick[6] !== null) {
      snapshot.orderbook_up = JSON.parse(pick[5]) as Snapshot['orderbook_up'];
      snapshot.orderbook_down = JSON.parse(pick[6]) as Snapshot['orderbook_down'];
    }
    return snapshot;
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
