// What a file is by its first bytes, whatever its name: an SQLite store, a Parquet file.
import { closeSync, openSync, readSync } from 'node:fs';

/** The header of every SQLite database file. */
export const SQLITE_MAGIC = 'SQLite format 3\0';
/** The first four bytes of every Parquet file. */
export const PARQUET_MAGIC = 'PAR1';

/** True when `file` can be read and starts with `magic` (latin1); false for anything else. */
export function startsWith(file: string, magic: string): boolean {
  try {
    const fd = openSync(file, 'r');
    try {
      const head = Buffer.alloc(magic.length);
      return readSync(fd, head, 0, magic.length, 0) === magic.length && head.toString('latin1') === magic;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}
