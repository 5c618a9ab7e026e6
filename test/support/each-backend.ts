// Runs a route or dialect suite once per backend (memory, SQLite, PostgreSQL) over the stores of
// src/server/test-support/backends.ts, and owns the file's throwaway PostgreSQL database.
import { afterAll, beforeAll, describe } from 'vitest';
import { BACKENDS, removeBackendFiles, setPostgresUrl, type Backend } from '../../src/server/test-support/backends.js';
import { throwawayDatabase, type ThrowawayDatabase } from './throwaway-database.js';
import { skipWithoutPostgres } from './throwaway-postgres.js';

let server: ThrowawayDatabase | undefined;

/**
 * Use in a describe that opens postgres stores: one throwaway database for it, made before its
 * tests (on the local server when one answers: ~0.1 s where initdb costs 1-3 s).
 */
export function usePostgres(): void {
  beforeAll(async () => {
    server = await throwawayDatabase();
    await setPostgresUrl(server.url);
  }, 120_000);
  afterAll(async () => {
    await setPostgresUrl(undefined);
    await server?.destroy();
    server = undefined;
  });
}

/** The backends this machine can run, after printing one line for each it cannot (never a silent skip). */
export function availableBackends(suite: string): Backend[] {
  return BACKENDS.filter((b) => b !== 'postgres' || !skipWithoutPostgres(`${suite} on postgres`));
}

/**
 * Use at the top of a suite file: fn's tests once per backend, each in a describe named after it.
 * Without PostgreSQL binaries the postgres describe is skipped, after one line saying so.
 */
export function eachBackend(suite: string, fn: (backend: Backend) => void): void {
  afterAll(removeBackendFiles);
  const available = availableBackends(suite);
  for (const backend of BACKENDS) {
    describe.skipIf(!available.includes(backend))(backend, () => {
      if (backend === 'postgres') usePostgres();
      fn(backend);
    });
  }
}
