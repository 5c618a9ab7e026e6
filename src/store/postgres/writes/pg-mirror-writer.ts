// The write side of `msnap pull --db postgres://…`: the MirrorWriterPort (store/mirror-store.ts)
// the SQLite MirrorWriter implements too. Each page is its own transaction, so an interrupted
// pull keeps every page it finished and nothing half; the source's snapshot ids are kept as a
// pattern plus exceptions, decided exactly as SourceIds does.
import type { Market, Snapshot } from '../../../domain/market.js';
import type { LocalMarketState, Origin, OriginSummary } from '../../core/mirror-state.js';
import { heldByState, toLocalState, type MarketStateRow } from '../../core/mirror-state.js';
import { toScaled } from '../../core/price-scale.js';
import { idAt, inferPattern, patternOf, type IdPattern } from '../../core/snapshot-ids.js';
import { guarded, type Pg } from '../pg-connection.js';
import { refreshSql } from '../pg-load-sql.js';
import { BlockVals, emptyRows, type BlockRows } from '../pg-block-codec.js';
import { mergeIntoBlocks, moveMarketToBlocks, storedBooks } from '../pg-blocks.js';
import type postgres from 'postgres';

/** What the mirror needs of a PgStore: its pool and its one-writer transactions (declared here, so the store can hand itself in without a cycle). */
export interface PgWriteAccess {
  readonly sql: Pg;
  bulkTransaction<T>(fn: (tx: postgres.ReservedSql) => Promise<T>): Promise<T>;
}

/** A market as the upsert leaves it: its id and bounds, and what it held before this write. */
interface UpsertedMarket {
  id: number;
  start_time: number;
  end_time: number;
  created: boolean;
  snapshot_count: number;
  id_base: number | null;
  id_step: number | null;
}

/** What a PostgreSQL store holds of the markets a pull copies (as MirrorState for SQLite); reads only. */
export class PgMirrorState {
  constructor(private readonly store: PgWriteAccess) {}

  /** The market as stored now. */
  async local(marketId: string): Promise<LocalMarketState> {
    const [r] = await guarded(
      () => this.store.sql<MarketStateRow[]>`
        SELECT m.snapshot_count AS count,
               CASE WHEN m.in_rows THEN (SELECT max(t) FROM snapshots s WHERE s.market = m.id)
                    ELSE (SELECT max(t_last) FROM snapshot_blocks b WHERE b.market = m.id) END AS last_t, m.start_time,
               o.origin_depth_through AS depth_through
        FROM markets m LEFT JOIN market_origin o ON o.market = m.id WHERE m.market_id = ${marketId}`,
    );
    return toLocalState(r);
  }

  /** Rows a pull need not fetch again: every stored one, or with depth asked for, those fetched with it (as MirrorState.held). */
  async held(marketId: string, withDepth: boolean): Promise<number> {
    const held = heldByState(await this.local(marketId), withDepth);
    if (typeof held === 'number') return held;
    return guarded(() => rowsBefore(this.store.sql, marketId, held.rowsBefore));
  }
}

/** Rows of a market stored at times before `through` (epoch ms), in rows or in blocks. */
async function rowsBefore(sql: Pg, marketId: string, through: number): Promise<number> {
  const [m] = await sql<{ id: number; start_time: number; in_rows: boolean }[]>`SELECT id, start_time, in_rows FROM markets WHERE market_id = ${marketId}`;
  if (!m) return 0;
  const t = Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, through - m.start_time));
  if (m.in_rows) return (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM snapshots WHERE market = ${m.id} AND t < ${t}`)[0]!.n;
  const [full] = await sql<{ n: number }[]>`SELECT coalesce(sum(n), 0)::int AS n FROM snapshot_blocks WHERE market = ${m.id} AND t_last < ${t}`;
  const edge = await sql<{ vals: Buffer }[]>`SELECT vals FROM snapshot_blocks WHERE market = ${m.id} AND t_first < ${t} AND t_last >= ${t}`;
  return full!.n + edge.reduce((n, b) => n + new BlockVals(b.vals).lowerBound(t), 0);
}

/** Use in `msnap pull` against a PostgreSQL store (one per run), through PgStore.mirrorWriter. */
export class PgMirrorWriter {
  /** What the store holds of a market now. */
  readonly state: PgMirrorState;

  constructor(
    private readonly store: PgWriteAccess,
    private readonly origin: Origin,
  ) {
    this.state = new PgMirrorState(store);
  }

  /** The market as stored now. */
  local(marketId: string): Promise<LocalMarketState> {
    return this.state.local(marketId);
  }

  /** Rows a pull need not fetch again (see heldByState). */
  held(marketId: string, withDepth: boolean): Promise<number> {
    return this.state.held(marketId, withDepth);
  }

  /** Stores (or fills in) the market's metadata and origin; true when it was new. */
  async market(m: Market): Promise<boolean> {
    return this.store.bulkTransaction(async (tx) => (await this.upsert(tx, m)).created);
  }

  /** Stores one page of the market's snapshots (orderbooks too when they came) in one transaction; returns rows new to the store. */
  async page(m: Market, snapshots: readonly Snapshot[], depthThrough?: number): Promise<number> {
    return this.store.bulkTransaction(async (tx) => {
      const market = await this.upsert(tx, m);
      // A snapshot outside its market cannot be stored under it; the service never sends one.
      const inside = snapshots.filter((s) => s.time >= market.start_time && s.time < market.end_time);
      const ts = inside.map((s) => s.time - market.start_time);
      await moveMarketToBlocks(tx, market.id);
      const added = await mergeIntoBlocks(tx, market.id, pageRows(inside, ts));
      await this.keepSourceIds(tx, market, inside.flatMap((s, i) => (Number.isSafeInteger(s.id) ? [[ts[i]!, s.id] as [number, number]] : [])));
      for (const statement of refreshSql(String(market.id))) await tx.unsafe(statement);
      if (depthThrough !== undefined) {
        await tx`UPDATE market_origin SET origin_depth_through = greatest(coalesce(origin_depth_through, 0), ${depthThrough}) WHERE market = ${market.id}`;
      }
      return added.added;
    });
  }

  /**
   * SourceIds within one page: a market that holds rows or a pattern keeps it, else the page's first
   * two rows decide it; every id the pattern does not give is stored as an exception.
   */
  private async keepSourceIds(tx: Pg, market: UpsertedMarket, ids: [number, number][]): Promise<void> {
    if (ids.length === 0) return;
    const known = market.id_base !== null || market.snapshot_count > 0;
    let pattern: IdPattern;
    if (known) {
      pattern = patternOf(market);
    } else {
      pattern = inferPattern(ids[0]![0], ids[0]![1], ids[1]?.[0], ids[1]?.[1]);
      await tx`UPDATE markets SET id_base = ${pattern.base}, id_step = ${pattern.step} WHERE id = ${market.id}`;
    }
    const off = ids.filter(([t, id]) => idAt(pattern, t) !== id);
    if (off.length === 0) return;
    const stored = await tx`
      INSERT INTO snapshot_ids (market, t, id)
      SELECT ${market.id}, * FROM unnest(${tx.array(off.map((x) => x[0]), 20)}::bigint[], ${tx.array(off.map((x) => x[1]), 20)}::bigint[])
      ON CONFLICT DO NOTHING`;
    if (stored.count > 0) await tx`UPDATE markets SET id_exceptions = id_exceptions + ${stored.count} WHERE id = ${market.id}`;
  }

  private async upsert(tx: Pg, m: Market): Promise<UpsertedMarket> {
    // Values the service sent replace what is stored; nulls keep it (as BulkWriter.upsertMarket).
    // Update first, insert only a new market: an INSERT ... ON CONFLICT would use up an id of the
    // sequence every time, and a market without source ids is served under ids made of its own.
    let [row] = await tx<UpsertedMarket[]>`
      UPDATE markets SET price_start = coalesce(${m.price_start}, price_start), price_end = coalesce(${m.price_end}, price_end),
        winner = coalesce(${m.winner}, winner)
      WHERE market_id = ${m.market_id}
      RETURNING id, start_time, end_time, false AS created, snapshot_count, id_base, id_step`;
    row ??= (
      await tx<UpsertedMarket[]>`
        INSERT INTO markets (market_id, coin, market_type, start_time, end_time, price_start, price_end, winner)
        VALUES (${m.market_id}, ${m.coin}, ${m.market_type}, ${m.start_time}, ${m.end_time}, ${m.price_start}, ${m.price_end}, ${m.winner})
        RETURNING id, start_time, end_time, true AS created, snapshot_count, id_base, id_step`
    )[0];
    await tx`
      INSERT INTO market_origin (market, origin_base_url, origin_dialect, origin_pulled_at)
      VALUES (${row!.id}, ${this.origin.baseUrl}, ${this.origin.dialect}, ${this.origin.pulledAt})
      ON CONFLICT (market) DO UPDATE SET origin_base_url = excluded.origin_base_url,
        origin_dialect = excluded.origin_dialect, origin_pulled_at = excluded.origin_pulled_at`;
    return row!;
  }
}

/** A page's snapshots as block rows in t order, one per t (the first of a repeated t wins, as the rows' INSERT did). */
function pageRows(snapshots: readonly Snapshot[], ts: readonly number[]): BlockRows {
  const order = ts.map((_, i) => i).sort((a, b) => ts[a]! - ts[b]! || a - b);
  const rows = emptyRows();
  for (const i of order) {
    const t = ts[i]!;
    if (rows.t.length > 0 && rows.t[rows.t.length - 1] === t) continue;
    const s = snapshots[i]!;
    rows.t.push(t);
    rows.price.push(toScaled(s.price));
    rows.up.push(toScaled(s.price_up));
    rows.down.push(toScaled(s.price_down));
    rows.books.push(s.orderbook_up && s.orderbook_down ? storedBooks(JSON.stringify(s.orderbook_up), JSON.stringify(s.orderbook_down)) : undefined);
  }
  return rows;
}

/** Use to show what a PostgreSQL store mirrors (serve prints it); empty when nothing was pulled. */
export async function pgOriginSummary(sql: Pg): Promise<OriginSummary[]> {
  return sql<OriginSummary[]>`
    SELECT origin_base_url AS "baseUrl", origin_dialect AS dialect, count(*)::int AS markets, max(origin_pulled_at) AS "lastPulledAt"
    FROM market_origin GROUP BY origin_base_url, origin_dialect ORDER BY "lastPulledAt" DESC`;
}
