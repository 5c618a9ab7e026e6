// The RecordWrites port (store/record-writes.ts) over PostgreSQL: what `msnap record` and serve
// --record write, batch by batch. A batch is one transaction on one reserved connection under the
// schema's bulk-write lock (as pull's pages and loads): markets upserted, the tape states, prices
// and spans written as they come, and the batch's snapshots with their books buffered and merged
// into the markets' blocks at flush (pg-blocks.ts, the layout every PostgreSQL read serves), then
// the summaries refreshed as a load refreshes them. A rolled-back batch leaves nothing. A lost
// connection surfaces as StoreUnavailableError, which the recorder retries (recording.ts); as in
// pg-transaction.ts, a batch whose connection was lost sends nothing more on it and never hands it
// back to the pool (the driver would write to its null socket and end the process).
import { MARKET_DETAIL_FIELDS } from '../../../domain/market.js';
import type { BookPair } from '../../core/book-codec.js';
import type { MarketWrite } from '../../core/write-records.js';
import type { MarketRef, RealdataWrites, RealMarketSource, RecordRows, RecordWrites } from '../../record-writes.js';
import { emptyRows, type BlockRows } from '../pg-block-codec.js';
import { mergeIntoBlocks, moveMarketToBlocks } from '../pg-blocks.js';
import { isConnectionError, unavailableOr, type Pg } from '../pg-connection.js';
import type { ConnectionState } from '../pg-transaction.js';
import { StoreUnavailableError } from '../../store.js';
import { refreshSql } from '../pg-load-sql.js';
import type postgres from 'postgres';

/** One snapshot of a batch, with its books when they came. */
interface PendingRow {
  t: number;
  price: number;
  up: number;
  down: number;
  books?: BookPair;
}

/** A batch's snapshots per market, merged into blocks at flush. */
class PgRecordRows implements RecordRows {
  skipped = 0;
  readonly rows = new Map<number, Map<number, PendingRow>>();

  constructor(
    private readonly tx: () => Pg,
    private readonly state: () => ConnectionState,
  ) {}

  add(market: number, t: number, price: number, priceUp: number, priceDown: number): void {
    const m = this.market(market);
    // The first row of a (market, t) wins, as INSERT OR IGNORE does.
    if (m.has(t)) this.skipped++;
    else m.set(t, { t, price, up: priceUp, down: priceDown });
  }

  /** The row's books; false when the row is not in this batch or already has books. */
  books(market: number, t: number, pair: BookPair): boolean {
    const row = this.rows.get(market)?.get(t);
    if (!row || row.books) return false;
    row.books = pair;
    return true;
  }

  async flush(): Promise<void> {
    return watched(this.state(), async () => {
      const tx = this.tx();
      for (const [market, byT] of this.rows) {
        const rows: BlockRows = emptyRows();
        for (const r of [...byT.values()].sort((a, b) => a.t - b.t)) {
          rows.t.push(r.t);
          rows.price.push(r.price);
          rows.up.push(r.up);
          rows.down.push(r.down);
          rows.books.push(r.books);
        }
        await moveMarketToBlocks(tx, market);
        const merged = await mergeIntoBlocks(tx, market, rows);
        this.skipped += rows.t.length - merged.added;
      }
      this.rows.clear();
    });
  }

  private market(id: number): Map<number, PendingRow> {
    let m = this.rows.get(id);
    if (!m) this.rows.set(id, (m = new Map()));
    return m;
  }
}

/** Use through PgStore.recordWrites(): one writer per recording run. */
export class PgRecordWriter implements RecordWrites {
  readonly realdata: RealdataWrites;
  private tx: postgres.ReservedSql | undefined;
  private rows: PgRecordRows | undefined;
  /** The open batch's connection: lost once a call on it failed for want of the server. */
  private state: ConnectionState = { lost: false };

  constructor(
    private readonly pool: postgres.Sql,
    private readonly schema: string,
  ) {
    this.realdata = new PgRealdata(() => this.tx ?? this.pool, () => this.state);
  }

  async begin(): Promise<void> {
    if (this.tx) throw new Error('a record batch is already open');
    const state: ConnectionState = { lost: false };
    const tx = await watched(state, () => this.pool.reserve());
    await watched(state, async () => {
      try {
        await tx`BEGIN`;
        await tx`SELECT pg_advisory_xact_lock(hashtext(${`msnap:bulk:${this.schema}`}))`;
      } catch (err) {
        if (!isConnectionError(err)) {
          await tx`ROLLBACK`.catch(() => undefined);
          tx.release();
        }
        throw err;
      }
    });
    this.state = state;
    this.tx = tx;
  }

  async commit(): Promise<void> {
    const tx = this.open();
    const state = this.state;
    this.tx = undefined;
    this.rows = undefined;
    try {
      await watched(state, async () => void (await tx`COMMIT`));
    } finally {
      if (!state.lost) tx.release();
    }
  }

  async rollback(): Promise<void> {
    const tx = this.tx;
    const state = this.state;
    this.tx = undefined;
    this.rows = undefined;
    if (!tx) return;
    // A lost connection was rolled back by the server: nothing more is sent on it, and it is not
    // handed back (the pool opens a new one).
    if (state.lost) return;
    await tx`ROLLBACK`.catch((err: unknown) => {
      if (isConnectionError(err)) state.lost = true;
    });
    if (!state.lost) tx.release();
  }

  async upsertMarket(m: MarketWrite): Promise<{ ref: MarketRef; created: boolean }> {
    return watched(this.state, async () => {
      const tx = this.open();
      const details = MARKET_DETAIL_FIELDS.map((c) => m.details?.[c] ?? null);
      // Update first, insert only a new market: an INSERT ... ON CONFLICT would use up an id every time.
      let [row] = await tx.unsafe<RefRow[]>(
        `UPDATE markets SET price_start = coalesce($1, price_start), price_end = coalesce($2, price_end), winner = coalesce($3, winner),
           ${MARKET_DETAIL_FIELDS.map((c, i) => `${c} = coalesce($${i + 5}, ${c})`).join(', ')}
         WHERE market_id = $4 RETURNING id, start_time, end_time, false AS created`,
        [m.priceStart, m.priceEnd, m.winner, m.marketId, ...details],
      );
      row ??= (
        await tx.unsafe<RefRow[]>(
          `INSERT INTO markets (market_id, coin, market_type, start_time, end_time, price_start, price_end, winner, ${MARKET_DETAIL_FIELDS.join(', ')})
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${MARKET_DETAIL_FIELDS.map((_, i) => `$${i + 9}`).join(', ')})
           RETURNING id, start_time, end_time, true AS created`,
          [m.marketId, m.coin, m.marketType, m.startTime, m.endTime, m.priceStart, m.priceEnd, m.winner, ...details],
        )
      )[0];
      return { ref: toRef(row!), created: row!.created };
    });
  }

  async marketRef(marketId: string): Promise<MarketRef | undefined> {
    return watched(this.state, async () => {
      const [row] = await (this.tx ?? this.pool)<RefRow[]>`SELECT id, start_time, end_time FROM markets WHERE market_id = ${marketId}`;
      return row ? toRef(row) : undefined;
    });
  }

  snapshotWriter(): RecordRows {
    this.open();
    return (this.rows = new PgRecordRows(() => this.open(), () => this.state));
  }

  insertOrderbookPair(rowid: number, t: number, pair: BookPair): boolean {
    return this.rows?.books(rowid, t, pair) ?? false;
  }

  async refreshMarkets(rowids: Iterable<number>): Promise<void> {
    return watched(this.state, async () => {
      const ids = [...new Set(rowids)].filter((id) => Number.isSafeInteger(id));
      if (ids.length === 0) return;
      const tx = this.open();
      for (const statement of refreshSql(ids.join(', '))) await tx.unsafe(statement);
    });
  }

  private open(): postgres.ReservedSql {
    if (!this.tx) throw new Error('no record batch is open (begin() first)');
    // Nothing more goes on a connection the batch has lost (see the top of the file).
    if (this.state.lost) throw new StoreUnavailableError('PostgreSQL unavailable: the batch lost its connection');
    return this.tx;
  }
}

interface RefRow {
  id: number;
  start_time: number;
  end_time: number;
  created: boolean;
}

function toRef(r: RefRow): MarketRef {
  return { rowid: r.id, startTime: r.start_time, endTime: r.end_time };
}

/** The realdata tables (migration 9), as SQLite's RealdataRecords keeps them. */
class PgRealdata implements RealdataWrites {
  constructor(
    private readonly sql: () => Pg,
    private readonly batch: () => ConnectionState,
  ) {}

  async hasHour(marketId: string, hour: number): Promise<boolean> {
    return watched(this.batch(), async () => {
      return (await this.sql()`SELECT 1 FROM realdata_hours WHERE market_id = ${marketId} AND hour = ${hour}`).length > 0;
    });
  }

  async addHour(marketId: string, hour: number): Promise<void> {
    return watched(this.batch(), async () => {
      await this.sql()`INSERT INTO realdata_hours (market_id, hour) VALUES (${marketId}, ${hour}) ON CONFLICT DO NOTHING`;
    });
  }

  async state(marketId: string): Promise<string | undefined> {
    return watched(this.batch(), async () => {
      const [row] = await this.sql()<{ state: string }[]>`SELECT state FROM realdata_state WHERE market_id = ${marketId}`;
      return row?.state;
    });
  }

  async saveState(marketId: string, state: string): Promise<void> {
    return watched(this.batch(), async () => {
      await this.sql()`INSERT INTO realdata_state (market_id, state) VALUES (${marketId}, ${state})
        ON CONFLICT (market_id) DO UPDATE SET state = excluded.state`;
    });
  }

  async setSource(rowid: number, s: RealMarketSource): Promise<void> {
    return watched(this.batch(), async () => {
      await this.sql()`UPDATE markets SET slug = ${s.slug}, fee_schedule = coalesce(${s.feeSchedule}, fee_schedule), price_source = ${s.priceSource} WHERE id = ${rowid}`;
    });
  }

  async setOutcome(rowid: number, priceStart: number | null, priceEnd: number | null, winner: 'Up' | 'Down' | null): Promise<void> {
    return watched(this.batch(), async () => {
      await this.sql()`UPDATE markets SET price_start = ${priceStart}, price_end = ${priceEnd}, winner = ${winner} WHERE id = ${rowid}`;
    });
  }

  async addPrice(coin: string, ts: number, price: number): Promise<void> {
    return watched(this.batch(), async () => {
      await this.sql()`INSERT INTO realdata_prices (coin, ts, price) VALUES (${coin}, ${ts}, ${price}) ON CONFLICT DO NOTHING`;
    });
  }

  async prices(coin: string, from: number): Promise<[ts: number, price: number][]> {
    return watched(this.batch(), async () => {
      const rows = await this.sql()<{ ts: number; price: number }[]>`SELECT ts, price FROM realdata_prices WHERE coin = ${coin} AND ts >= ${from} ORDER BY ts`;
      return rows.map((r) => [r.ts, r.price]);
    });
  }

  async coverSpan(source: string, from: number, to: number): Promise<void> {
    return watched(this.batch(), async () => {
      await this.sql()`INSERT INTO realdata_spans (source, from_ms, to_ms) VALUES (${source}, ${from}, ${to})
        ON CONFLICT (source, from_ms) DO UPDATE SET to_ms = greatest(realdata_spans.to_ms, excluded.to_ms)`;
    });
  }

  async unresolved(priceSource: 'binance' | 'chainlink', now: number): Promise<{ marketId: string; slug: string; startTime: number }[]> {
    return watched(this.batch(), async () => {
      return this.sql()<{ marketId: string; slug: string; startTime: number }[]>`
        SELECT market_id AS "marketId", slug, start_time AS "startTime" FROM markets
        WHERE price_source = ${priceSource} AND winner IS NULL AND slug IS NOT NULL AND end_time <= ${now} ORDER BY end_time`;
    });
  }
}

/** How far a recording has written: the end of the last span a source was covered (serve's stream follows it). */
export async function pgRecordedThrough(sql: Pg): Promise<number | undefined> {
  const [row] = await sql<{ t: number | null }[]>`SELECT max(to_ms) AS t FROM realdata_spans`;
  return row?.t ?? undefined;
}

/** As guarded (connection failures become StoreUnavailableError), noting a lost connection in `state`. */
async function watched<T>(state: ConnectionState, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isConnectionError(err)) state.lost = true;
    throw unavailableOr(err);
  }
}
