// When cached reads must be recomputed: PRAGMA data_version moves when another connection commits,
// and a counter moves on every write through this one (which data_version does not see).
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';

/** Use to key caches of data-derived values (counts, window cutoffs) so a write invalidates them. */
export class DataVersion {
  private readonly pragma: Statement;
  private localWrites = 0;

  constructor(db: Database.Database) {
    this.pragma = db.prepare('PRAGMA data_version').pluck();
  }

  /** The one invalidation point: every writer on this connection calls it after writing. */
  bump(): void {
    this.localWrites++;
  }

  /** A value that differs whenever the data may have changed since it was last read. */
  current(): string {
    return `${this.pragma.get() as number}:${this.localWrites}`;
  }
}
