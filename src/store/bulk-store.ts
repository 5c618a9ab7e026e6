// The port to a store's bulk writer: what seed, import (and PostgreSQL's staging file), live and
// compact-books need beyond the Store port. Only an SQLite file offers it (`directBulkWrite`);
// SqliteStore implements it, and the CLI reaches it through this type, never the SQLite class.
import type { BulkWriter } from './sqlite/writes/bulk-writer.js';
import type { MirrorStore, OriginSummary } from './mirror-store.js';

export { COMPACT_BATCH_ROWS, type CompactProgress } from './sqlite/books/book-compaction.js';

/** A store written through its bulk writer (one transaction per load), with the mirror ports. */
export interface BulkLoadStore extends MirrorStore {
  /** The writer seed, import, live and compact-books write through. */
  readonly bulk: BulkWriter;
  /** Where pulled markets came from (serve's startup notes). */
  origins(): OriginSummary[];
  /** Closes at once (the bulk writer's loads are synchronous). */
  closeSync(): void;
}
