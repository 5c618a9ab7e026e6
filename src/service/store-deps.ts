// The stores a command or the service may open, as lazy dependencies: the `serve` admin commands
// (and the library's seedStore, createKey) ask for one by the location the user gave and speak to
// it through the ports of src/store (Store, MirrorStore, BulkLoadStore), never a backend's class.
// Tests pass their own opener.
import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { BulkLoadStore } from '../store/bulk-store.js';
import { isPostgresUrl } from '../store/db-path.js';
import { openBulkStore, openStore, type OpenedStore } from '../store/open-store.js';

/** How a command opens the store `location` names. */
export interface StoreDeps {
  /** SQLite file or postgres:// URL, through the Store port; `mustExist`: a missing file is a UsageError, never a new database. */
  openStore(location: string, opts?: { mustExist?: boolean }): Promise<OpenedStore>;
  /** An SQLite file with its bulk writer (seed, import, compact-books); a PostgreSQL URL is a UsageError. */
  openBulkStore(location: string, opts?: { mustExist?: boolean; cacheMiB?: number }): Promise<BulkLoadStore>;
}

/** Use before a command that only reads or changes what is there: a typo must not create a database. */
function requireExisting(db: string): void {
  if (isPostgresUrl(db)) return;
  if (!existsSync(db)) {
    throw new UsageError(`no database at ${db}`, 'check --db (or MSNAP_DB); msnap serve seed or msnap serve --demo creates one');
  }
}

/** The real openers: the backends load on the first open, not when the CLI starts. */
export function storeDeps(): StoreDeps {
  return {
    async openStore(location, opts = {}) {
      if (opts.mustExist) requireExisting(location);
      return openStore(location);
    },
    async openBulkStore(location, opts = {}) {
      if (opts.mustExist) requireExisting(location);
      return openBulkStore(location, opts.cacheMiB === undefined ? {} : { cacheMiB: opts.cacheMiB });
    },
  };
}
