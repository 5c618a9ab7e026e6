// The stores the route and dialect suites run over: the MemoryStore, a real SQLite file, and a
// real (throwaway) PostgreSQL, all holding the same data set (fixture.ts). Per test file: one temp
// directory, one SQLite template per data set (copied per test), one PostgreSQL server; per
// store: a fresh SQLite copy or a fresh PostgreSQL schema, closed when the test finishes. The
// server's lifecycle lives in test/support/each-backend.ts (src may not import test/).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { loadSqliteIntoPostgres } from '../../store/postgres/pg-load.js';
import { openPgStore } from '../../store/postgres/pg-store.js';
import { openSqliteStore } from '../../store/sqlite/open.js';
import type { Store } from '../../store/store.js';
import { fixtureStore, type MarketSeries } from './fixture.js';
import { copyIntoSqlite } from './sqlite-copy.js';

/** Where a suite's data lives. */
export type Backend = 'memory' | 'sqlite' | 'postgres';
/** Every backend, in the order the suites run them. */
export const BACKENDS: readonly Backend[] = ['memory', 'sqlite', 'postgres'];

// Per test file (each file runs in its own module instance).
let dir: string | undefined;
let pgUrl: string | undefined;
let made = 0;
const templates = new Map<string, Promise<string>>();

function tempDir(): string {
  dir ??= mkdtempSync(path.join(tmpdir(), 'msnap-backends-'));
  return dir;
}

/** The SQLite file holding the data set plus `more`, built once per file. */
function sqliteTemplate(more: readonly MarketSeries[]): Promise<string> {
  const key = JSON.stringify(more);
  let file = templates.get(key);
  if (!file) {
    const n = templates.size;
    const target = path.join(tempDir(), `template-${n}.db`);
    file = copyIntoSqlite(fixtureStore(more), target, path.join(tempDir(), `template-${n}.ndjson`)).then(() => target);
    templates.set(key, file);
  }
  return file;
}

/**
 * Use inside a test: a fresh store of `backend` holding the data set plus `more`; it is closed
 * when the test finishes. PostgreSQL needs usePostgres() (each-backend.ts) in the enclosing suite.
 */
export async function openBackendStore(backend: Backend, more: readonly MarketSeries[] = []): Promise<Store> {
  if (backend === 'memory') return fixtureStore(more);
  const template = await sqliteTemplate(more);
  const n = ++made;
  if (backend === 'sqlite') {
    const file = path.join(tempDir(), `copy-${n}.db`);
    copyFileSync(template, file);
    const store = openSqliteStore(file);
    onTestFinished(() => {
      store.closeSync();
      rmSync(file, { force: true });
      rmSync(`${file}-wal`, { force: true });
      rmSync(`${file}-shm`, { force: true });
    });
    return store;
  }
  if (!pgUrl) throw new Error('the postgres backend needs usePostgres() (test/support/each-backend.ts) in the enclosing describe');
  // A schema per store: tests stay independent on one server.
  const store = await openPgStore(pgUrl, { schema: `t${n}`, max: 2 });
  onTestFinished(() => store.close());
  await loadSqliteIntoPostgres(template, store);
  return store;
}

/** Use from the suite's hooks (test/support/each-backend.ts): the PostgreSQL server postgres stores open schemas on, or none. */
export function setPostgresUrl(url: string | undefined): void {
  pgUrl = url;
}

/** Use in the file's afterAll: deletes the temp directory (templates and copies). */
export function removeBackendFiles(): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  templates.clear();
}
