// What a copy between backends reads: every table of a store as batches of raw rows, values as
// stored (prices scaled, times as offsets), so the copy serves the very same bytes. SQLite's
// StoreDump produces it; PostgreSQL's load consumes it, and neither knows the other.
import type { MarketRow } from './market-row.js';

/** A raw row as the dump yields it: the table's columns in the order `columns` names them. */
export type DumpRow = (string | number | null)[];

/** One table of the dump: its columns and its rows in batches. */
export interface DumpTable {
  columns: readonly string[];
  /** Rows in the database (for progress). */
  count(): number;
  batches(): AsyncIterable<DumpRow[]>;
}

/** Tables whose rows belong to one market, in (market, t) order. */
export interface MarketDumpTable {
  columns: readonly string[];
  /** Rows of these markets (all when omitted). */
  count(markets?: readonly number[]): number;
  /** Batches of the rows of these markets (all when omitted), market by market. */
  batches(markets?: readonly number[]): AsyncIterable<DumpRow[]>;
}

/** Use as the source of a load into another backend: markets (id = the source's row id, which rows refer to; with slug and price_source) and tables. */
export interface StoreDumpSource {
  markets(): MarketRow[];
  readonly snapshots: MarketDumpTable;
  readonly orderbooks: MarketDumpTable;
  readonly snapshotIds: MarketDumpTable;
  readonly origins: DumpTable;
  readonly accounts: DumpTable;
  readonly keys: DumpTable;
  readonly passwords: DumpTable;
  readonly sessions: DumpTable;
  /** What real-data imports and recordings keep beside the snapshots (the realdata_* tables, named without the prefix). */
  readonly realdata: Readonly<Record<RealdataTable, DumpTable>>;
}

/** The realdata tables: archive hours read per market, tape states, recorded prices, covered spans. */
export type RealdataTable = 'hours' | 'state' | 'prices' | 'spans';
