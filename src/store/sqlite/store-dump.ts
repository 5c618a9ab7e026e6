// Everything an SQLite store holds, read out as batches of raw rows for a copy into another
// backend (postgres/pg-load.ts): markets with their id patterns, snapshot rows, orderbooks, id
// exceptions, origins, accounts, keys, passwords, sessions and what real-data imports keep. Values stay as stored (prices
// scaled, times as offsets), so the copy serves the very same bytes. The dense block cache and the
// synthetic world are SQLite's own and are not part of a dump.
import type Database from 'better-sqlite3';
import { type MarketRow } from '../core/market-row.js';
import type { DumpRow, DumpTable, MarketDumpTable, RealdataTable, StoreDumpSource } from '../core/store-dump.js';
import { BookReader, isPacked } from './books/book-reader.js';
import { marketColumns } from './reads/market-columns.js';

/** Rows per batch: big enough to amortise a write, small enough to keep memory flat. */
const DUMP_BATCH_ROWS = 10_000;

/** Use with a (read-only) connection to an msnap SQLite database; tables an older schema lacks read as empty. */
export class StoreDump implements StoreDumpSource {
  readonly snapshots: MarketDumpTable;
  readonly orderbooks: MarketDumpTable;
  readonly snapshotIds: MarketDumpTable;
  readonly origins: DumpTable;
  readonly accounts: DumpTable;
  readonly keys: DumpTable;
  readonly passwords: DumpTable;
  readonly sessions: DumpTable;
  readonly realdata: Readonly<Record<RealdataTable, DumpTable>>;
  private readonly tables: Set<string>;

  constructor(
    private readonly db: Database.Database,
    private readonly batchRows = DUMP_BATCH_ROWS,
  ) {
    this.tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]));
    this.snapshots = this.marketTable('snapshots', ['market', 't', 'price', 'price_up', 'price_down']);
    // Packed books go out as the JSON text they are served as: another backend stores text.
    const books = new BookReader(db);
    this.orderbooks = this.marketTable('orderbooks', ['market', 't', 'up', 'down'], (row) => {
      if (isPacked(row[2])) [row[2], row[3]] = books.texts(row[0] as number, row[1] as number, row[2], null);
      return row;
    });
    this.snapshotIds = this.marketTable('snapshot_ids', ['market', 't', 'id']);
    this.origins = this.table('market_origin', ['market', 'origin_base_url', 'origin_dialect', 'origin_pulled_at']);
    this.accounts = this.table('accounts', ['id', 'name', 'plan', 'trial_ends_at', 'rpm', 'burst', 'created_at']);
    this.keys = this.table('api_keys', ['id', 'account_id', 'key_hash', 'prefix', 'created_at', 'revoked_at', 'expires_at', 'name', 'last_used_at']);
    this.passwords = this.table('account_passwords', ['account_id', 'hash', 'updated_at']);
    this.sessions = this.table('sessions', ['token_hash', 'account_id', 'csrf', 'created_at', 'expires_at']);
    this.realdata = {
      hours: this.table('realdata_hours', ['market_id', 'hour']),
      state: this.table('realdata_state', ['market_id', 'state']),
      prices: this.table('realdata_prices', ['coin', 'ts', 'price']),
      spans: this.table('realdata_spans', ['source', 'from_ms', 'to_ms']),
    };
  }

  /** Every market row (id = its rowid, which snapshot rows refer to), oldest first. Markets are few: one array. */
  markets(): MarketRow[] {
    if (!this.tables.has('markets')) return [];
    const names = new Set((this.db.prepare('PRAGMA table_info(markets)').all() as { name: string }[]).map((c) => c.name));
    // A real market's provenance goes with it (a store from before migration 12 has none).
    const real = names.has('price_source') ? ', slug, price_source' : ', NULL AS slug, NULL AS price_source';
    return this.db.prepare(`SELECT ${marketColumns(this.db)}${real} FROM markets ORDER BY start_time, market_id`).all() as MarketRow[];
  }

  private table(name: string, columns: readonly string[]): DumpTable {
    const present = this.tables.has(name);
    const select = `SELECT ${columns.join(', ')} FROM ${name} ORDER BY ${columns[0]}`;
    return {
      columns,
      count: () => (present ? (this.db.prepare(`SELECT count(*) FROM ${name}`).pluck().get() as number) : 0),
      batches: () => (present ? this.batched(this.db.prepare(select).raw(true).iterate()) : empty()),
    };
  }

  private marketTable(name: string, columns: readonly string[], map?: (row: DumpRow) => DumpRow): MarketDumpTable {
    const present = this.tables.has(name);
    const list = columns.join(', ');
    return {
      columns,
      count: (markets) => {
        if (!present) return 0;
        if (!markets) return this.db.prepare(`SELECT count(*) FROM ${name}`).pluck().get() as number;
        const one = this.db.prepare(`SELECT count(*) FROM ${name} WHERE market = ?`).pluck();
        return markets.reduce((n, m) => n + (one.get(m) as number), 0);
      },
      batches: (markets) => {
        if (!present) return empty();
        if (!markets) return this.batched(this.db.prepare(`SELECT ${list} FROM ${name} ORDER BY market, t`).raw(true).iterate(), map);
        const one = this.db.prepare(`SELECT ${list} FROM ${name} WHERE market = ? ORDER BY t`).raw(true);
        return this.batched(eachMarket(markets, (m) => one.iterate(m)), map);
      },
    };
  }

  private async *batched(rows: Iterable<unknown>, map?: (row: DumpRow) => DumpRow): AsyncIterable<DumpRow[]> {
    let batch: DumpRow[] = [];
    for (const row of rows) {
      batch.push(map ? map(row as DumpRow) : (row as DumpRow));
      if (batch.length === this.batchRows) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
}

function* eachMarket(markets: readonly number[], rowsOf: (market: number) => Iterable<unknown>): Iterable<unknown> {
  for (const m of markets) yield* rowsOf(m);
}

async function* empty(): AsyncIterable<DumpRow[]> {}
