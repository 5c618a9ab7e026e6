// The SQLite implementation of Store (better-sqlite3): WAL, versioned schema, prepared statements
// only. Reads serve the HTTP handlers; the bulk-write methods below serve seed and import.
import Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import {
  COINS,
  MARKET_DETAIL_FIELDS,
  MARKET_DURATION_MS,
  MARKET_TYPES,
  SNAPSHOT_INTERVAL_MS,
  type Coin,
  type Market,
  type MarketDetails,
  type MarketType,
  type ServedMarket,
  type Snapshot,
} from '../../domain/market.js';
import type { DataWindow, PlanName } from '../../domain/plans.js';
import type { Account, ApiKeyRecord, MarketQuery, SnapshotQuery, Store } from '../store.js';
import { MIGRATIONS } from './migrations.js';
import { fromScaled, PRICE_SCALE, toScaled } from './price-scale.js';
import { SnapshotBatchWriter } from './snapshot-batch.js';
import { SIDE_BITS, writeDensePage } from './dense-page-writer.js';
import { BlockRuns, DenseBlocks, type BlockScan } from './dense-blocks.js';
import { snapshotId, snapshotRowsToJson, type RawSnapshotRow } from './snapshot-json.js';

/** Options for openSqliteStore. */
export interface SqliteStoreOptions {
  /** Open without writing (no migrations run; the schema must exist). */
  readonly?: boolean;
  /** Page cache in MiB (default 64); seed and import benefit from more. */
  cacheMiB?: number;
}

/** Market metadata as seed and import write it. */
export interface MarketWrite {
  marketId: string;
  coin: Coin;
  marketType: MarketType;
  startTime: number;
  endTime: number;
  priceStart: number | null;
  priceEnd: number | null;
  winner: 'Up' | 'Down' | null;
  /** The hosted service's descriptive fields, when known; null (or absent) ones keep what is stored. */
  details?: Partial<MarketDetails>;
}

/** Where a market lives in the snapshot table, for writers converting times to offsets. */
export interface MarketRef {
  rowid: number;
  startTime: number;
  endTime: number;
}

// The detail columns carry the fields' own names and types.
interface MarketRow extends MarketDetails {
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
}

interface AccountRow {
  id: number;
  name: string;
  plan: string;
  trial_ends_at: number | null;
  rpm: number | null;
  burst: number | null;
  created_at: number;
}

interface KeyRow {
  id: number;
  account_id: number;
  prefix: string;
  created_at: number;
  revoked_at: number | null;
  expires_at: number | null;
}

const BASE_COLUMNS = 'id, market_id, coin, market_type, start_time, end_time, price_start, price_end, winner, snapshot_count, dense';
const ORDER_NEWEST = 'ORDER BY start_time DESC, market_id DESC';
/** A cutoff below every real start_time: the series has fewer markets than its cap. */
const NO_CUTOFF = -8_640_000_000_000_000;
const MAX_MARKET_MS = Math.max(...Object.values(MARKET_DURATION_MS));

/** The store the server and the `serve` subcommands use; bulk writers are SQLite-specific extras. */
export class SqliteStore implements Store {
  readonly db: Database.Database;
  private readonly stmts: ReturnType<typeof prepareStatements>;
  private readonly marketColumns: string;
  private marketWrites: ReturnType<typeof prepareMarketWrites> | undefined;
  private readonly blocks: DenseBlocks;
  private readonly listStatements = new Map<string, { rows: Statement; count: Statement }>();
  private cutoffCache: { version: string; windowKey: string; cutoffs: Map<string, number> } | undefined;
  private countCache: { version: string; counts: Map<string, number> } = { version: '', counts: new Map() };
  /** Bumped on every write through this connection; PRAGMA data_version covers other connections. */
  private localWrites = 0;

  constructor(db: Database.Database) {
    this.db = db;
    this.marketColumns = marketColumns(db);
    this.stmts = prepareStatements(db, this.marketColumns);
    this.blocks = new DenseBlocks(db);
  }

  // ---- markets ------------------------------------------------------------------------------

  listMarkets(q: MarketQuery): { markets: ServedMarket[]; total: number } {
    const rowsPart = this.marketFilter(q, q.status);
    const rows = rowsPart.stmts.rows.all({ ...rowsPart.params, limit: q.limit, offset: q.offset }) as MarketRow[];
    let total: number;
    if (q.status === 'resolved') {
      // "Not active" cannot use the start_time index; all minus active can (both halves are cheap).
      total = this.cachedCount(q, undefined) - this.countOf(this.marketFilter(q, 'active'));
    } else if (q.status === 'active') {
      total = this.countOf(rowsPart);
    } else {
      total = this.cachedCount(q, undefined);
    }
    return { markets: rows.map((r) => toMarket(r, q.now)), total };
  }

  /** Counts without a status filter depend only on the data: cache them until it changes. */
  private cachedCount(q: MarketQuery, status: MarketQuery['status']): number {
    const filter = this.marketFilter(q, status);
    const version = this.dataVersion();
    if (this.countCache.version !== version) this.countCache = { version, counts: new Map() };
    const key = `${filter.shape}|${JSON.stringify(filter.params)}`;
    let n = this.countCache.counts.get(key);
    if (n === undefined) {
      n = this.countOf(filter);
      this.countCache.counts.set(key, n);
    }
    return n;
  }

  private countOf(filter: { stmts: { count: Statement }; params: Record<string, number | string> }): number {
    return filter.stmts.count.get(filter.params) as number;
  }

  /** The WHERE clause of a market query as a cached pair of prepared statements and its parameters. */
  private marketFilter(
    q: MarketQuery,
    status: MarketQuery['status'],
  ): { shape: string; params: Record<string, number | string>; stmts: { rows: Statement; count: Statement } } {
    const params: Record<string, number | string> = {};
    const where: string[] = [];
    let shape = '';
    if (q.coin !== undefined) {
      where.push('coin = @coin');
      params.coin = q.coin;
      shape += 'c';
    }
    if (q.marketType !== undefined) {
      where.push('market_type = @type');
      params.type = q.marketType;
      shape += 't';
    }
    if (q.startFrom !== undefined) {
      where.push('start_time >= @from');
      params.from = q.startFrom;
      shape += 'f';
    }
    if (q.startBefore !== undefined) {
      where.push('start_time < @before');
      params.before = q.startBefore;
      shape += 'b';
    }
    if (status !== undefined) {
      // No market lasts longer than a day: the extra bound lets the start_time index find active ones.
      const active = '(start_time > @nowLessDay AND start_time <= @now AND end_time > @now)';
      where.push(status === 'active' ? active : `NOT ${active}`);
      params.now = q.now;
      params.nowLessDay = q.now - MAX_MARKET_MS;
      shape += status === 'active' ? 'A' : 'R';
    }
    if (q.window !== null) {
      const cutoffs = this.windowCutoffs(q.window);
      if (q.coin !== undefined && q.marketType !== undefined) {
        where.push('start_time >= @cut');
        params.cut = cutoffs.get(seriesKey(q.coin, q.marketType)) ?? NO_CUTOFF;
        shape += 'w';
      } else {
        // One bound per series; the CASE keeps it a single prepared statement.
        const cases: string[] = [];
        let i = 0;
        for (const coin of COINS) {
          for (const type of MARKET_TYPES) {
            cases.push(`WHEN '${coin}/${type}' THEN @w${i}`);
            params[`w${i}`] = cutoffs.get(seriesKey(coin, type)) ?? NO_CUTOFF;
            i++;
          }
        }
        where.push(`start_time >= CASE coin || '/' || market_type ${cases.join(' ')} END`);
        shape += 'W';
      }
    }
    let stmts = this.listStatements.get(shape);
    if (!stmts) {
      const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      stmts = {
        rows: this.db.prepare(`SELECT ${this.marketColumns} FROM markets ${clause} ${ORDER_NEWEST} LIMIT @limit OFFSET @offset`),
        count: this.db.prepare(`SELECT count(*) FROM markets ${clause}`).pluck(),
      };
      this.listStatements.set(shape, stmts);
    }
    return { shape, params, stmts };
  }

  private dataVersion(): string {
    return `${this.stmts.dataVersion.get() as number}:${this.localWrites}`;
  }

  getMarket(id: string, now: number): ServedMarket | undefined {
    const row = this.stmts.marketById.get(id) as MarketRow | undefined;
    return row ? toMarket(row, now) : undefined;
  }

  marketRank(market: Pick<Market, 'coin' | 'market_type' | 'start_time'>): number {
    return this.stmts.rank.get(market.coin, market.market_type, market.start_time) as number;
  }

  // ---- snapshots ----------------------------------------------------------------------------

  snapshotPageJson(marketId: string, q: SnapshotQuery): { json: string; count: number; total: number } {
    const m = this.stmts.marketById.get(marketId) as MarketRow | undefined;
    if (!m) return { json: '[]', count: 0, total: 0 };
    const duration = m.end_time - m.start_time;
    // Offsets within the market; times outside [start, end) hold no snapshots.
    const lo = q.from === undefined ? 0 : Math.max(0, q.from - m.start_time);
    const hi = q.before === undefined ? duration : Math.min(duration, q.before - m.start_time);
    if (hi <= lo || m.snapshot_count === 0) return { json: '[]', count: 0, total: 0 };

    let rows: RawSnapshotRow[];
    let total: number;
    const stmt = q.includeOrderbook ? this.stmts.pageRangeOb : this.stmts.pageRange;
    if (m.dense === 1) {
      // Rows are exactly k * 125 for k < snapshot_count: the page is a key range, no OFFSET walk.
      const kLo = Math.ceil(lo / SNAPSHOT_INTERVAL_MS);
      const kHi = Math.min(m.snapshot_count, Math.ceil(hi / SNAPSHOT_INTERVAL_MS));
      total = Math.max(0, kHi - kLo);
      const first = kLo + q.offset;
      const last = Math.min(kHi, first + q.limit);
      if (last <= first) return { json: '[]', count: 0, total };
      const from = first * SNAPSHOT_INTERVAL_MS;
      const to = last * SNAPSHOT_INTERVAL_MS;
      if (!q.includeOrderbook) {
        // Each row's t follows from its position, so it is not fetched. Stored rows are never
        // updated or deleted, so the two reads agree whenever both hold every row of the range
        // (a writer elsewhere may have changed the market since it was read: general path then).
        // The market's blocks hold the same values one or two BLOBs per page; without them (not
        // built yet, or a value they cannot pack), two plucked columns.
        const n = last - first;
        const packed = this.blocks.read(m.id, first, last);
        if (packed) {
          const json = writeDensePage(packed.prices, packed.sides, from, m.id, m.market_id, m.start_time, q.format);
          if (json !== undefined) return { json, count: n, total };
        }
        const prices = this.stmts.densePrices.all(m.id, from, to) as number[];
        const sides = this.stmts.denseSides.all(m.id, from, to) as number[];
        const json =
          prices.length === n && sides.length === n
            ? writeDensePage(prices, sides, from, m.id, m.market_id, m.start_time, q.format)
            : undefined;
        if (json !== undefined) return { json, count: n, total };
      }
      rows = stmt.all(m.id, from, to, q.limit, 0) as RawSnapshotRow[];
    } else {
      total =
        q.from === undefined && q.before === undefined
          ? m.snapshot_count
          : (this.stmts.countRange.get(m.id, lo, hi) as number);
      rows = stmt.all(m.id, lo, hi, q.limit, q.offset) as RawSnapshotRow[];
    }
    const json = snapshotRowsToJson(rows, m.id, m.market_id, m.start_time, q.includeOrderbook, q.format);
    return { json, count: rows.length, total };
  }

  nearestSnapshot(marketId: string, ts: number, includeOrderbook = false): Snapshot | undefined {
    const m = this.stmts.marketById.get(marketId) as MarketRow | undefined;
    if (!m || m.snapshot_count === 0) return undefined;
    const t = ts - m.start_time;
    const before = this.stmts.atOrBefore.get(m.id, t) as RawSnapshotRow | undefined;
    const after = this.stmts.after.get(m.id, t) as RawSnapshotRow | undefined;
    let pick = before;
    // The earlier one wins a tie, so `after` needs to be strictly closer.
    if (after && (!before || after[0] - t < t - before[0])) pick = after;
    if (!pick) return undefined;
    const snapshot: Snapshot = {
      id: snapshotId(m.id, pick[0]),
      market_id: m.market_id,
      time: m.start_time + pick[0],
      price: fromScaled(pick[1]),
      price_up: fromScaled(pick[2]),
      price_down: fromScaled(pick[3]),
    };
    const depth = includeOrderbook ? (this.stmts.orderbookAt.get(m.id, pick[0]) as [string, string] | undefined) : undefined;
    if (depth) {
      snapshot.orderbook_up = JSON.parse(depth[0]) as Snapshot['orderbook_up'];
      snapshot.orderbook_down = JSON.parse(depth[1]) as Snapshot['orderbook_down'];
    }
    return snapshot;
  }

  // ---- accounts and keys --------------------------------------------------------------------

  getAccount(name: string): Account | undefined {
    const row = this.stmts.accountByName.get(name) as AccountRow | undefined;
    return row ? toAccount(row) : undefined;
  }

  getAccountById(id: number): Account | undefined {
    const row = this.stmts.accountById.get(id) as AccountRow | undefined;
    return row ? toAccount(row) : undefined;
  }

  createAccount(a: Omit<Account, 'id'>): Account {
    const info = this.stmts.insertAccount.run(
      a.name,
      a.plan,
      a.trialEndsAt,
      a.requestsPerMinute,
      a.burstPerSecond,
      a.createdAt,
    );
    this.localWrites++;
    return { ...a, id: Number(info.lastInsertRowid) };
  }

  createKey(accountId: number, keyHash: string, prefix: string, now: number): ApiKeyRecord {
    const info = this.stmts.insertKey.run(accountId, keyHash, prefix, now);
    this.localWrites++;
    return { id: Number(info.lastInsertRowid), accountId, prefix, createdAt: now, revokedAt: null, expiresAt: null };
  }

  findKeyByHash(keyHash: string): ApiKeyRecord | undefined {
    const row = this.stmts.keyByHash.get(keyHash) as KeyRow | undefined;
    return row ? toKey(row) : undefined;
  }

  listKeys(): (ApiKeyRecord & { account: Account })[] {
    type Joined = KeyRow & Omit<AccountRow, 'id' | 'created_at'> & { a_id: number; created_at_account: number };
    const rows = this.stmts.listKeys.all() as Joined[];
    return rows.map((r) => ({
      ...toKey(r),
      account: toAccount({
        id: r.a_id,
        name: r.name,
        plan: r.plan,
        trial_ends_at: r.trial_ends_at,
        rpm: r.rpm,
        burst: r.burst,
        created_at: r.created_at_account,
      }),
    }));
  }

  revokeKey(id: number, now: number): boolean {
    const changed = this.stmts.revokeKey.run(now, id).changes > 0;
    if (changed) this.localWrites++;
    return changed;
  }

  countActiveKeys(accountId: number, now: number): number {
    return this.stmts.countActiveKeys.get(accountId, now) as number;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  // ---- bulk writes (seed, import) -----------------------------------------------------------

  /** Runs fn in one transaction (synchronous); rolls back if it throws. */
  transaction<T>(fn: () => T): T {
    // IMMEDIATE takes the write lock first: a deferred transaction that reads and then writes
    // fails at once with "database is locked" when another process committed in between (WAL).
    return this.db.transaction(fn).immediate();
  }

  /** For writers that await between rows (import streams a file): BEGIN now, then commit or roll back. */
  begin(): void {
    this.stmts.begin.run();
  }

  /** Ends what begin() started. */
  commit(): void {
    this.stmts.commit.run();
    this.localWrites++;
  }

  /** Undoes everything since begin(); the database is exactly as before. */
  rollback(): void {
    if (this.db.inTransaction) this.stmts.rollback.run();
  }

  /** Insert a market, or fill its metadata; fields given as null keep what is stored. */
  upsertMarket(m: MarketWrite): { ref: MarketRef; created: boolean } {
    const existing = this.stmts.marketRef.get(m.marketId) as { id: number; start_time: number; end_time: number } | undefined;
    const writes = (this.marketWrites ??= prepareMarketWrites(this.db));
    const d = m.details ?? {};
    const detailValues = DETAIL_COLUMNS.map((c) => d[c] ?? null);
    if (existing) {
      writes.updateMarket.run(m.priceStart, m.priceEnd, m.winner, ...detailValues, existing.id);
      return { ref: { rowid: existing.id, startTime: existing.start_time, endTime: existing.end_time }, created: false };
    }
    const info = writes.insertMarket.run(
      m.marketId,
      m.coin,
      m.marketType,
      m.startTime,
      m.endTime,
      m.priceStart,
      m.priceEnd,
      m.winner,
      ...detailValues,
    );
    this.localWrites++;
    return { ref: { rowid: Number(info.lastInsertRowid), startTime: m.startTime, endTime: m.endTime }, created: true };
  }

  /** The market's row and bounds, or undefined when it is not stored. */
  marketRef(marketId: string): MarketRef | undefined {
    const r = this.stmts.marketRef.get(marketId) as { id: number; start_time: number; end_time: number } | undefined;
    return r ? { rowid: r.id, startTime: r.start_time, endTime: r.end_time } : undefined;
  }

  /** Stores one snapshot (values as decimals, t = time - start_time); false when it was already stored. */
  insertSnapshot(rowid: number, t: number, price: number, priceUp: number, priceDown: number): boolean {
    return this.stmts.insertSnapshot.run(rowid, t, toScaled(price), toScaled(priceUp), toScaled(priceDown)).changes > 0;
  }

  /** A buffered writer for many snapshots (scaled values) inside one transaction; flush() before commit. */
  snapshotWriter(): SnapshotBatchWriter {
    return new SnapshotBatchWriter(this.db, new BlockRuns(this.blocks));
  }

  /** Stores one snapshot's depth as ready JSON text per side; false when it was already stored. */
  insertOrderbook(rowid: number, t: number, upJson: string, downJson: string): boolean {
    return this.stmts.insertOrderbook.run(rowid, t, upJson, downJson).changes > 0;
  }

  /**
   * Recomputes what depends on a market's stored snapshots: snapshot_count, the dense flag, and
   * price_start / price_end / winner where they are still unknown (first snapshot; last snapshot
   * when the data reaches the final second of the market), and the market's blocks. Pass the
   * writer that added the rows (flushed) so only its markets' blocks are rebuilt, and cheaply;
   * without it every given market's blocks are rebuilt from its rows.
   */
  refreshMarkets(rowids: Iterable<number>, writer?: SnapshotBatchWriter): void {
    for (const id of rowids) {
      const s = this.stmts.snapshotStats.get(id) as { n: number; lo: number | null; hi: number | null; off: number | null };
      const m = this.stmts.marketRowById.get(id) as MarketRow | undefined;
      if (!m) continue;
      const n = s.n;
      const dense = n > 0 && s.lo === 0 && s.off === 0 && s.hi === (n - 1) * SNAPSHOT_INTERVAL_MS ? 1 : 0;
      let priceStart = m.price_start;
      let priceEnd = m.price_end;
      if (n > 0 && priceStart === null) {
        const first = this.stmts.firstSnapshot.get(id) as RawSnapshotRow;
        if (first[0] < 1000) priceStart = fromScaled(first[1]);
      }
      if (n > 0 && priceEnd === null) {
        const last = this.stmts.lastSnapshot.get(id) as RawSnapshotRow;
        if (last[0] >= m.end_time - m.start_time - 1000) priceEnd = fromScaled(last[1]);
      }
      let winner = m.winner;
      if (winner === null && priceStart !== null && priceEnd !== null) winner = priceEnd >= priceStart ? 'Up' : 'Down';
      this.stmts.refreshMarket.run(n, dense, priceStart, priceEnd, winner, id);
      if (!writer) this.blocks.sync(id, dense === 1, n, undefined, this.scanBlock);
    }
    if (writer) this.syncBlocks(writer);
    this.localWrites++;
  }

  /**
   * Call after writer.flush() and after the markets' summaries are stored (refreshMarkets or
   * setMarketSummary), in the same transaction: makes the blocks of every market the writer added
   * rows to match those rows.
   */
  syncBlocks(writer: SnapshotBatchWriter): void {
    if (!writer.runs) return;
    for (const [id, run] of writer.runs.entries()) {
      const m = this.stmts.marketRowById.get(id) as MarketRow | undefined;
      if (!m) continue;
      // Nothing stored and nothing inserted: the blocks still describe the rows.
      if (run.stored === 0 && !writer.touched.has(id)) continue;
      this.blocks.sync(id, m.dense === 1, m.snapshot_count, run, this.scanBlock);
    }
    this.localWrites++;
  }

  /** Builds every dense market's blocks from its rows (one ordered read of them), in one transaction. */
  rebuildBlocks(): void {
    this.transaction(() => {
      const dense = this.db.prepare('SELECT id, snapshot_count FROM markets WHERE dense = 1').raw(true).all() as [number, number][];
      for (const [id, n] of dense) this.blocks.sync(id, true, n, undefined, this.scanBlock);
    });
    this.localWrites++;
  }

  /** Rows [lo, hi) of a dense market as block values, read back from the table. */
  private readonly scanBlock: BlockScan = (market, lo, hi) => {
    const prices = this.stmts.densePrices.all(market, lo, hi) as number[];
    const sides = this.stmts.denseSides.all(market, lo, hi) as number[];
    const n = (hi - lo) / SNAPSHOT_INTERVAL_MS;
    if (prices.length !== n || sides.length !== n) return undefined;
    for (let i = 0; i < n; i++) if (prices[i]! >>> 0 !== prices[i] || sides[i]! < 0) return undefined;
    return { prices: Uint32Array.from(prices), sides: Uint32Array.from(sides) };
  };

  /** Writes one market's computed summary directly (seed knows it already; saves re-reading rows). */
  setMarketSummary(rowid: number, snapshotCount: number, dense: boolean): void {
    this.stmts.setSummary.run(snapshotCount, dense ? 1 : 0, rowid);
  }

  /** Counts for reports and tests. */
  counts(): { markets: number; snapshots: number; orderbooks: number; accounts: number; keys: number } {
    return this.stmts.counts.get() as { markets: number; snapshots: number; orderbooks: number; accounts: number; keys: number };
  }

  /** The schema version (number of migrations applied). */
  schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  /** start_time of the cap-th newest market of every series, cached until the data changes. */
  private windowCutoffs(window: Exclude<DataWindow, null>): Map<string, number> {
    const version = this.dataVersion();
    const windowKey = MARKET_TYPES.map((t) => window[t]).join(',');
    const cached = this.cutoffCache;
    if (cached && cached.version === version && cached.windowKey === windowKey) return cached.cutoffs;
    const cutoffs = new Map<string, number>();
    for (const coin of COINS) {
      for (const type of MARKET_TYPES) {
        const cap = window[type];
        const cut = cap <= 0 ? Number.MAX_SAFE_INTEGER : (this.stmts.nthNewestStart.get(coin, type, cap - 1) as number | undefined);
        if (cut !== undefined) cutoffs.set(seriesKey(coin, type), cut);
      }
    }
    this.cutoffCache = { version, windowKey, cutoffs };
    return cutoffs;
  }
}

/** Use to open (and create or migrate) the database the server and the subcommands share. */
export function openSqliteStore(path: string, opts: SqliteStoreOptions = {}): SqliteStore {
  const db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  db.pragma(`cache_size = -${Math.round((opts.cacheMiB ?? 64) * 1024)}`);
  db.pragma('busy_timeout = 5000');
  const before = db.pragma('user_version', { simple: true }) as number;
  if (!opts.readonly) migrate(db);
  const store = new SqliteStore(db);
  // A database from before the blocks migration holds dense markets without blocks: build them once.
  if (!opts.readonly && before >= 1 && before < BLOCKS_VERSION) store.rebuildBlocks();
  return store;
}

/** The migration that added snapshot_blocks. */
const BLOCKS_VERSION = 2;

/** Applies every migration the database has not seen, each in its own transaction. */
export function migrate(db: Database.Database): number {
  let version = db.pragma('user_version', { simple: true }) as number;
  const latest = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
  if (version > latest) {
    throw new Error(`database schema version ${version} is newer than this msnap understands (${latest})`);
  }
  for (const m of MIGRATIONS) {
    if (m.version <= version) continue;
    // Re-read the version under the write lock: another process may have opened the same new
    // database at the same moment and applied this migration first.
    version = db.transaction(() => {
      const current = db.pragma('user_version', { simple: true }) as number;
      if (current >= m.version) return current;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
      return m.version;
    }).immediate();
  }
  return version;
}

// A database opened read-only before the details migration has no detail columns: they read as null.
function marketColumns(db: Database.Database): string {
  const has = db.prepare("SELECT 1 FROM pragma_table_info('markets') WHERE name = 'event_id'").get() !== undefined;
  const details = DETAIL_COLUMNS.map((c) => (has ? c : `NULL AS ${c}`));
  return `${BASE_COLUMNS}, ${details.join(', ')}`;
}

// Prepared on first write: a read-only connection to a database from before the details
// migration could not prepare them.
function prepareMarketWrites(db: Database.Database) {
  return {
    insertMarket: db.prepare(
      `INSERT INTO markets (market_id, coin, market_type, start_time, end_time, price_start, price_end, winner,
       ${DETAIL_COLUMNS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${DETAIL_COLUMNS.map(() => '?').join(', ')})`,
    ),
    updateMarket: db.prepare(
      `UPDATE markets SET price_start = coalesce(?, price_start), price_end = coalesce(?, price_end),
       winner = coalesce(?, winner), ${DETAIL_COLUMNS.map((c) => `${c} = coalesce(?, ${c})`).join(', ')} WHERE id = ?`,
    ),
  };
}

function prepareStatements(db: Database.Database, columns: string) {
  const pageSql = (ob: boolean) =>
    ob
      ? `SELECT s.t, s.price, s.price_up, s.price_down, o.up, o.down FROM snapshots s
         LEFT JOIN orderbooks o ON o.market = s.market AND o.t = s.t
         WHERE s.market = ? AND s.t >= ? AND s.t < ? ORDER BY s.t LIMIT ? OFFSET ?`
      : `SELECT t, price, price_up, price_down FROM snapshots
         WHERE market = ? AND t >= ? AND t < ? ORDER BY t LIMIT ? OFFSET ?`;
  return {
    marketById: db.prepare(`SELECT ${columns} FROM markets WHERE market_id = ?`),
    marketRowById: db.prepare(`SELECT ${columns} FROM markets WHERE id = ?`),
    marketRef: db.prepare('SELECT id, start_time, end_time FROM markets WHERE market_id = ?'),
    rank: db.prepare('SELECT count(*) FROM markets WHERE coin = ? AND market_type = ? AND start_time > ?').pluck(),
    nthNewestStart: db
      .prepare('SELECT start_time FROM markets WHERE coin = ? AND market_type = ? ORDER BY start_time DESC LIMIT 1 OFFSET ?')
      .pluck(),
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    pageRange: db.prepare(pageSql(false)).raw(true),
    pageRangeOb: db.prepare(pageSql(true)).raw(true),
    densePrices: db.prepare('SELECT price FROM snapshots WHERE market = ? AND t >= ? AND t < ? ORDER BY t').pluck(),
    denseSides: db
      .prepare(
        `SELECT CASE WHEN price_up BETWEEN 0 AND ${PRICE_SCALE} AND price_down BETWEEN 0 AND ${PRICE_SCALE}
         THEN price_up * ${1 << SIDE_BITS} + price_down ELSE -1 END
         FROM snapshots WHERE market = ? AND t >= ? AND t < ? ORDER BY t`,
      )
      .pluck(),
    countRange: db.prepare('SELECT count(*) FROM snapshots WHERE market = ? AND t >= ? AND t < ?').pluck(),
    atOrBefore: db
      .prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? AND t <= ? ORDER BY t DESC LIMIT 1')
      .raw(true),
    after: db
      .prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? AND t > ? ORDER BY t ASC LIMIT 1')
      .raw(true),
    firstSnapshot: db
      .prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? ORDER BY t ASC LIMIT 1')
      .raw(true),
    lastSnapshot: db
      .prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? ORDER BY t DESC LIMIT 1')
      .raw(true),
    snapshotStats: db.prepare(
      `SELECT count(*) AS n, min(t) AS lo, max(t) AS hi, sum(t % ${SNAPSHOT_INTERVAL_MS} != 0) AS off
       FROM snapshots WHERE market = ?`,
    ),
    orderbookAt: db.prepare('SELECT up, down FROM orderbooks WHERE market = ? AND t = ?').raw(true),
    refreshMarket: db.prepare(
      'UPDATE markets SET snapshot_count = ?, dense = ?, price_start = ?, price_end = ?, winner = ? WHERE id = ?',
    ),
    setSummary: db.prepare('UPDATE markets SET snapshot_count = ?, dense = ? WHERE id = ?'),
    insertSnapshot: db.prepare(
      'INSERT OR IGNORE INTO snapshots (market, t, price, price_up, price_down) VALUES (?, ?, ?, ?, ?)',
    ),
    insertOrderbook: db.prepare('INSERT OR IGNORE INTO orderbooks (market, t, up, down) VALUES (?, ?, ?, ?)'),
    accountByName: db.prepare('SELECT * FROM accounts WHERE name = ?'),
    accountById: db.prepare('SELECT * FROM accounts WHERE id = ?'),
    insertAccount: db.prepare(
      'INSERT INTO accounts (name, plan, trial_ends_at, rpm, burst, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    insertKey: db.prepare('INSERT INTO api_keys (account_id, key_hash, prefix, created_at) VALUES (?, ?, ?, ?)'),
    keyByHash: db.prepare(
      'SELECT id, account_id, prefix, created_at, revoked_at, expires_at FROM api_keys WHERE key_hash = ?',
    ),
    listKeys: db.prepare(
      `SELECT k.id, k.account_id, k.prefix, k.created_at, k.revoked_at, k.expires_at,
              a.id AS a_id, a.name, a.plan, a.trial_ends_at, a.rpm, a.burst, a.created_at AS created_at_account
       FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.id`,
    ),
    revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    countActiveKeys: db
      .prepare(
        `SELECT count(*) FROM api_keys WHERE account_id = ? AND revoked_at IS NULL
         AND (expires_at IS NULL OR expires_at > ?)`,
      )
      .pluck(),
    counts: db.prepare(
      `SELECT (SELECT count(*) FROM markets) AS markets, (SELECT count(*) FROM snapshots) AS snapshots,
              (SELECT count(*) FROM orderbooks) AS orderbooks, (SELECT count(*) FROM accounts) AS accounts,
              (SELECT count(*) FROM api_keys) AS keys`,
    ),
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
  };
}

/** The descriptive columns (migration 3), named as the fields they hold. */
const DETAIL_COLUMNS = MARKET_DETAIL_FIELDS;

function seriesKey(coin: string, type: string): string {
  return `${coin}/${type}`;
}

// A market the clock has resolved whose stored data stops before its final second (seed data
// ends at the seed's `now`) keeps price_end and winner null: unknown, never guessed from the last
// stored price. An import that brings the final second fills them in (refreshMarkets).
function toMarket(r: MarketRow, now: number): ServedMarket {
  const active = r.start_time <= now && now < r.end_time;
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
    resolved_at: active ? null : r.resolved_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

function toAccount(r: AccountRow): Account {
  return {
    id: r.id,
    name: r.name,
    plan: r.plan as PlanName,
    trialEndsAt: r.trial_ends_at,
    requestsPerMinute: r.rpm,
    burstPerSecond: r.burst,
    createdAt: r.created_at,
  };
}

function toKey(r: KeyRow): ApiKeyRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    prefix: r.prefix,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    expiresAt: r.expires_at,
  };
}

/** Exposed for the bench and tests: how long a market of each type is, in snapshot slots. */
export function fullSnapshotCount(type: MarketType): number {
  return MARKET_DURATION_MS[type] / SNAPSHOT_INTERVAL_MS;
}
