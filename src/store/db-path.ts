// Where the server's store lives when --db is not given; shared by `serve` and its subcommands.
// A store is an SQLite file, or a PostgreSQL database named by URL (a scaled-out serve).
import path from 'node:path';

/** File name used in the current directory when neither --db nor MSNAP_DB is set. */
const DEFAULT_DB_PATH = 'msnap.db';

const PG_URL = /^postgres(?:ql)?:\/\//i;

/** True when a --db / --store value names a PostgreSQL database rather than an SQLite file. */
export function isPostgresUrl(value: string): boolean {
  return PG_URL.test(value);
}

/**
 * Use for every `--db` default: the flag, else env MSNAP_DATABASE_URL (PostgreSQL), else env
 * MSNAP_DB, else ./msnap.db. A file path is made absolute; a PostgreSQL URL is kept as given.
 */
export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): string {
  const chosen = flag ?? nonEmpty(env.MSNAP_DATABASE_URL) ?? nonEmpty(env.MSNAP_DB) ?? DEFAULT_DB_PATH;
  return isPostgresUrl(chosen) ? chosen : path.resolve(cwd, chosen);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** A store named for messages: the file path, or the URL without its password. */
export function storeName(db: string): string {
  if (!isPostgresUrl(db)) return db;
  try {
    const u = new URL(db);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return db.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  }
}

/** The default path as a string for help texts: ./msnap.db or $MSNAP_DB. */
export const DEFAULT_DB_PATH_HELP = `${DEFAULT_DB_PATH} in the current directory, or $MSNAP_DB; a postgres:// URL (or $MSNAP_DATABASE_URL) names a PostgreSQL store`;
