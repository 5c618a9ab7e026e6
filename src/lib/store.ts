// `import … from 'msnap/store'`: a local store (an SQLite file from `msnap pull` or `serve seed`, or
// a PostgreSQL store) opened read-only and read at disk speed, through the same reader as the
// service client. The CLI's `--db` opens stores through here.
import { openLocalApi } from '../local/local-api.js';
import { MsnapReader } from './reader.js';

export { MsnapReader, type MarketSelection, type SnapshotRange, type Time } from './reader.js';
export type { Coin, Market, MarketStatus, MarketType, Snapshot } from '../domain/market.js';

/** How to open a store. */
export interface StoreOptions {
  /** Epoch ms clock: which markets are active, relative TIMEs; default the real one. */
  now?: () => number;
  /** Notes about a selection (the CLI's `msnap: note:`). */
  onNote?: (message: string) => void;
}

/**
 * Use to read a local store: an SQLite file path or a postgres:// URL, opened read-only (a missing
 * file, or one that is no msnap store, is a UsageError). No key, no limits, no data window.
 */
export async function openStore(source: string, options: StoreOptions = {}): Promise<MsnapReader> {
  const now = options.now ?? (() => Date.now());
  return new MsnapReader(await openLocalApi(source, now), { now, ...(options.onNote ? { onNote: options.onNote } : {}) });
}
