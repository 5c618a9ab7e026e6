// The stores the route and dialect suites run over: the MemoryStore, a real SQLite file, and a
// real (throwaway) PostgreSQL, all holding the same data set (fixture.ts). Per test file: one temp
// directory, one SQLite template file per data set, one PostgreSQL database with one template
// schema per data set (that file loaded by the store's loader); per store: a copy of the file, or
// a schema of its own emptied and then filled with the template's rows; the file is deleted and
// the schema handed to the next test when the test finishes. The database's lifecycle lives in
// test/support/each-backend.ts (src may not import test/).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { onTestFinished } from 'vitest';
import { loadSqliteIntoPostgres } from '../../store/copy/sqlite-to-postgres.js';
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
let admin: postgres.Sql | undefined;
const pgTemplates = new Map<string, Promise<string>>();
/** Migrated schemas a finished test handed back, for the next test to empty and refill. */
const freeSchemas: string[] = [];
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
  const n = ++made;
  if (backend === 'sqlite') {
    const file = path.join(tempDir(), `copy-${n}.db`);
    copyFileSync(await sqliteTemplate(more), file);
    const store = openSqliteStore(file);
    onTestFinished(() => {
      store.closeSync();
      rmSync(file, { force: true });
      rmSync(`${file}-wal`, { force: true });
      rmSync(`${file}-shm`, { force: true });
    });
    return store;
  }
  const url = pgUrl;
  if (!url) throw new Error('the postgres backend needs usePostgres() (test/support/each-backend.ts) in the enclosing describe');
  // A schema per store, made by the store's migrations and filled from the data set's template
  // schema: tests stay independent on one server. Emptying and refilling a finished test's schema costs
  // less than migrating a fresh one and dropping the old (docs/testing.md), so it is reused.
  const template = await pgTemplate(url, more);
  const store = await openPgStore(url, { schema: freeSchemas.pop() ?? `store_${n}`, max: 2 });
  onTestFinished(async () => {
    await store.close();
    freeSchemas.push(store.schema);
  });
  await copySchemaRows(adminConnection(url), template, store.schema);
  return store;
}

/** A PostgreSQL schema holding the data set plus `more`, loaded from its SQLite template once per file. */
function pgTemplate(url: string, more: readonly MarketSeries[]): Promise<string> {
  const key = JSON.stringify(more);
  let name = pgTemplates.get(key);
  if (!name) {
    const schema = `template_${pgTemplates.size}`;
    name = (async () => {
      // Loaded by the store's own loader, as `serve import STORE.db` does.
      const store = await openPgStore(url, { schema, max: 1 });
      try {
        await loadSqliteIntoPostgres(await sqliteTemplate(more), store);
      } finally {
        await store.close();
      }
      return schema;
    })();
    pgTemplates.set(key, name);
  }
  return name;
}

/** The store's tables in an order their foreign keys accept. */
const PG_TABLES = ['markets', 'snapshots', 'orderbooks', 'snapshot_blocks', 'snapshot_ids', 'market_origin', 'accounts', 'api_keys', 'account_passwords', 'sessions', 'paper_accounts', 'paper_positions', 'paper_orders', 'paper_resting', 'paper_rebates', 'realdata_hours', 'realdata_state', 'realdata_prices', 'realdata_spans'];

/**
 * Empties the migrated schema `to`, copies every row of `from` into it (the same migrations made
 * both, so the columns line up), and sets the identity sequences past the copied ids, as in a
 * fresh copy: a fraction of what the loader's ten COPYs would cost a test (docs/testing.md).
 */
async function copySchemaRows(sql: postgres.Sql, from: string, to: string): Promise<void> {
  const identities = await identityColumns(sql, from);
  await sql.begin(async (tx) => {
    // DELETE, not TRUNCATE: the tables are small, and TRUNCATE makes new files for each of them.
    const empty = [...PG_TABLES].reverse().map((t) => `DELETE FROM ${to}.${t}`);
    const fill = PG_TABLES.map((t) => `INSERT INTO ${to}.${t} SELECT * FROM ${from}.${t}`);
    const sequences = identities.map(({ t, c }) => `SELECT setval(pg_get_serial_sequence('${to}.${t}', '${c}'), coalesce(max(${c}), 0) + 1, false) FROM ${to}.${t}`);
    await tx.unsafe([...empty, ...fill, ...sequences].join(';\n')).simple();
  });
}

const identityCache = new Map<string, Promise<{ t: string; c: string }[]>>();

/**
 * The identity columns of the template schema `from` (the same migrations made every schema, so
 * they are every store's), read once per template; its tables must all be in PG_TABLES.
 */
function identityColumns(sql: postgres.Sql, from: string): Promise<{ t: string; c: string }[]> {
  let found = identityCache.get(from);
  if (!found) {
    found = (async () => {
      const tables = await sql<{ name: string }[]>`SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = ${from} AND table_name <> 'schema_migrations'`;
      const unknown = tables.map((t) => t.name).filter((t) => !PG_TABLES.includes(t));
      if (unknown.length > 0) throw new Error(`copySchemaRows does not know the tables ${unknown.join(', ')}: add them to PG_TABLES`);
      return sql<{ t: string; c: string }[]>`SELECT table_name AS t, column_name AS c FROM information_schema.columns
        WHERE table_schema = ${from} AND is_identity = 'YES'`;
    })();
    identityCache.set(from, found);
  }
  return found;
}

function adminConnection(url: string): postgres.Sql {
  admin ??= postgres(url, { max: 1, onnotice: () => undefined });
  return admin;
}

/** Use from the suite's hooks (test/support/each-backend.ts): the PostgreSQL server postgres stores live on, or none. */
export async function setPostgresUrl(url: string | undefined): Promise<void> {
  await admin?.end({ timeout: 1 });
  admin = undefined;
  pgTemplates.clear();
  identityCache.clear();
  freeSchemas.length = 0;
  pgUrl = url;
}

/** The PostgreSQL server set by setPostgresUrl (a test opening a second store on a schema, as a second instance would). */
export function postgresUrl(): string | undefined {
  return pgUrl;
}

/** Use in the file's afterAll: deletes the temp directory (templates and copies). */
export function removeBackendFiles(): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  templates.clear();
}
