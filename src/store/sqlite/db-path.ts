// Where the server's database lives when --db is not given; shared by `serve` and its subcommands.
import path from 'node:path';

/** File name used in the current directory when neither --db nor MSNAP_DB is set. */
export const DEFAULT_DB_PATH = 'msnap.db';

/** Use for every `--db` default: the flag, else env MSNAP_DB, else ./msnap.db. */
export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): string {
  const chosen = flag ?? (env.MSNAP_DB !== undefined && env.MSNAP_DB !== '' ? env.MSNAP_DB : DEFAULT_DB_PATH);
  return path.resolve(cwd, chosen);
}

/** The default path as a string for help texts: ./msnap.db or $MSNAP_DB. */
export const DEFAULT_DB_PATH_HELP = `${DEFAULT_DB_PATH} in the current directory, or $MSNAP_DB`;
