// A throwaway database with a unique name on the PostgreSQL server already running at
// 127.0.0.1:5432 (trust, user postgres), dropped afterwards; where none answers, a throwaway server
// of its own (throwaway-postgres.ts). Cheaper than initdb when a server is there.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { postgresAvailable, startThrowawayPostgres } from './throwaway-postgres.js';

const LOCAL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** One database: its URL, and how to drop it. */
export interface ThrowawayDatabase {
  url: string;
  destroy(): Promise<void>;
}

/** True when a suite can get a database (a local server answers, or PostgreSQL's binaries are installed). */
export async function databaseAvailable(): Promise<boolean> {
  return (await localServer()) || postgresAvailable();
}

async function localServer(): Promise<boolean> {
  const sql = postgres(LOCAL, { max: 1, connect_timeout: 2, onnotice: () => undefined });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => undefined);
  }
}

/** Use in beforeAll: a fresh, empty database named msnap_test_<pid>_<random>. */
export async function throwawayDatabase(): Promise<ThrowawayDatabase> {
  if (!(await localServer())) {
    const server = await startThrowawayPostgres();
    return { url: server.url, destroy: () => server.destroy() };
  }
  const name = `msnap_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(LOCAL, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  // As the throwaway server runs (fsync off): a commit does not wait for the disk. Tests never
  // need durability across a crash, and a shared server's fsyncs cost ~10 ms a commit under load.
  await admin.unsafe(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    async destroy() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end({ timeout: 1 });
    },
  };
}
