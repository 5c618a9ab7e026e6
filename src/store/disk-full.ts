// A store write that found no space: SQLite's SQLITE_FULL (or a bare I/O error on a full disk)
// and PostgreSQL's disk_full (SQLSTATE 53100) said as the one line every full disk gets.
import { statfsSync } from 'node:fs';
import path from 'node:path';
import { OutputError } from '../errors.js';
import { isPostgresUrl, storeName } from './db-path.js';

// SQLite reports some writes that found no space (its shared-memory file, say) as a bare I/O error.
function diskFull(location: string): boolean {
  if (isPostgresUrl(location)) return false;
  try {
    return statfsSync(path.dirname(path.resolve(location))).bavail === 0;
  } catch {
    return false;
  }
}

/** Use on a store error: the OutputError (exit 10) a full disk means, else undefined. */
export function diskFullError(err: unknown, location: string): OutputError | undefined {
  const code = (err as { code?: string } | null)?.code;
  if (code === 'SQLITE_FULL' || code === '53100' || (code?.startsWith('SQLITE_IOERR') && diskFull(location))) {
    // SQLite rolled back the transaction it could not write: what was committed before stays.
    return new OutputError(`cannot write ${storeName(location)}: no space left on device`, 'free some space and run it again (what was written stays; pull continues where it stopped)');
  }
  return undefined;
}
