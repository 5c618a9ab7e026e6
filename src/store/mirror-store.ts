// The ports `msnap pull` and `serve` use beyond the server's Store: what a store holds of pulled
// markets, the writer a pull stores pages through, and what the backend can do, declared rather
// than probed. SQLite (sqlite/sqlite-store.ts) and PostgreSQL (postgres/pg-store.ts) implement them.
import type { Market, Snapshot } from '../domain/market.js';
import type { LocalMarketState, Origin, OriginSummary } from './core/mirror-state.js';
import type { Store } from './store.js';

export type { LocalMarketState, Origin, OriginSummary };

/** What a pull reads of a store: how much of a market it holds (read-only, so a dry run can ask). */
export interface MirrorStateReader {
  /** The market as stored now. */
  local(marketId: string): Promise<LocalMarketState>;
  /** Rows a pull need not fetch again: every stored one, or with depth asked for, those fetched with it. */
  held(marketId: string, withDepth: boolean): Promise<number>;
}

/** What a pull writes through: each call its own committed transaction. */
export interface MirrorWriterPort extends MirrorStateReader {
  /** Stores (or fills in) the market's metadata and origin; true when it was new. */
  market(m: Market): Promise<boolean>;
  /** Stores one page of the market's snapshots; returns rows new to the store. */
  page(m: Market, snapshots: readonly Snapshot[], depthThrough?: number): Promise<number>;
}

/** What a backend can do, for the commands that differ by it. */
export interface StoreCapabilities {
  /** Which backend this is. */
  backend: 'sqlite' | 'postgres';
  /** Seed, import and live write straight into it; false: they write a staging SQLite file that is then loaded. */
  directBulkWrite: boolean;
  /** Several `serve` instances may share it (so in-process rate limits are worth a note). */
  shared: boolean;
}

/** Use for pull and serve: the server's Store plus the mirror ports and declared capabilities. */
export interface MirrorStore extends Store {
  capabilities(): StoreCapabilities;
  mirrorState(): MirrorStateReader;
  mirrorWriter(origin: Origin): MirrorWriterPort;
}
