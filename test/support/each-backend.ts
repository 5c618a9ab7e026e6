// Runs a route or dialect suite once per backend (memory, SQLite, PostgreSQL) over the stores of
// src/server/test-support/backends.ts, and owns the file's throwaway PostgreSQL server.
import { afterAll, beforeAll, describe } from 'vitest';
import { BACKENDS, removeBackendFiles, setPostgresUrl, type Backend } from '../../src/server/test-support/backends.js';
import { skipWithoutPostgres, startThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres.js';

let server: ThrowawayPostgres | undefined;

/** Use in a describe that opens postgres stores: one throwaway server for it, started before its tests. */
export function usePostgres(): void {
  beforeAll(async () => {
    server = await startThrowawayPostgres();
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
