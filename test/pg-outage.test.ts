// What the PostgreSQL store does when its database is not there: while a throwaway server is
// stopped every call rejects with StoreUnavailableError (at once, never hanging), and once it is
// back the same store object answers again. Opening reports a bad URL, an unreachable server and a
// silent one in one line without the password; several instances starting at once migrate once.
// It lives in test/ (the end-to-end tier), not next to the store: it stops and restarts a
// PostgreSQL server of its own, an integration test by nature, not a unit of the inner loop.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnreachableError, UsageError } from '../src/errors.js';
import { until } from './support/until.js';
import { skipWithoutPostgres, startThrowawayPostgres, type ThrowawayPostgres } from './support/throwaway-postgres.js';
import { StoreUnavailableError } from '../src/store/store.js';
import { PG_MIGRATIONS } from '../src/store/postgres/pg-migrations.js';
import { openPgStore, type PgStore } from '../src/store/postgres/pg-store.js';

const NOW = Date.UTC(2025, 10, 22, 12, 0, 0);
/** Far above what a refused connection takes (milliseconds), far below a hang. */
const PROMPT_MS = 15_000;

async function rejection(p: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = Date.now();
  try {
    await p;
  } catch (err) {
    return { err, ms: Date.now() - started };
  }
  throw new Error('expected the call to fail');
}

describe.skipIf(skipWithoutPostgres('PostgreSQL outage and open'))('PostgreSQL outage and open', () => {
  let server: ThrowawayPostgres;
  let store: PgStore;

  beforeAll(async () => {
    server = await startThrowawayPostgres();
    store = await openPgStore(server.url, { connectTimeoutSec: 2 });
    await store.createAccount({ name: 'acme', plan: 'pro', trialEndsAt: null, requestsPerMinute: null, burstPerSecond: null, createdAt: NOW });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await server?.destroy();
  });

  it('rejects every kind of call with StoreUnavailableError while the server is down, then answers again', async () => {
    // A query in flight when the server shuts down is cut (57P01), not left hanging.
    const inFlight = rejection(store.transaction(async (tx) => (tx as PgStore).sql`SELECT pg_sleep(30)`));
    // Stop the server once the query runs there (not before it was sent), watched over a
    // connection of its own: one left idle in the store's pool would be cut by the stop too.
    const watcher = await openPgStore(server.url);
    try {
      const running = async () =>
        (await watcher.sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()`)[0]!.n > 0;
      await until(running, 'the query to run');
    } finally {
      await watcher.close();
    }
    await server.stop();
    const cut = await inFlight;
    expect(cut.err).toBeInstanceOf(StoreUnavailableError);

    const calls: [string, () => Promise<unknown>][] = [
      ['listMarkets', () => store.listMarkets({ limit: 10, offset: 0, window: null, now: NOW })],
      ['snapshotPageJson', () => store.snapshotPageJson('btc-updown-5m-1763769600', { limit: 10, offset: 0, includeOrderbook: false })],
      ['findKeyByHash', () => store.findKeyByHash('x')],
      ['findKeyWithAccount', () => store.findKeyWithAccount('x')],
      ['accountAuth.findSession', () => store.accountAuth.findSession('x', NOW)],
      ['transaction', () => store.transaction(async (tx) => tx.getAccount('acme'))],
    ];
    for (const [name, call] of calls) {
      const { err, ms } = await rejection(call());
      expect(err, name).toBeInstanceOf(StoreUnavailableError);
      expect((err as Error).message, name).toMatch(/^PostgreSQL unavailable \(/);
      expect(ms, name).toBeLessThan(PROMPT_MS);
    }

    await server.restart();
    expect((await store.getAccount('acme'))?.plan).toBe('pro');
    expect((await store.listMarkets({ limit: 10, offset: 0, window: null, now: NOW })).total).toBe(0);
    expect(await store.transaction(async (tx) => (await tx.getAccount('acme'))?.name)).toBe('acme');
  });

  it('opening: a bad URL and an unreachable server fail in one line that hides the password', async () => {
    await expect(openPgStore('postgres://[nope')).rejects.toBeInstanceOf(UsageError);
    await expect(openPgStore('mysql://a:b@localhost/x')).rejects.toBeInstanceOf(UsageError);
    const down = `postgres://msnap:s3cret-pw@127.0.0.1:${await closedPort()}/postgres`;
    const { err, ms } = await rejection(openPgStore(down));
    expect(err).toBeInstanceOf(UnreachableError);
    const message = (err as Error).message;
    expect(message).toMatch(/^cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/postgres: /);
    expect(message).not.toContain('s3cret-pw');
    expect(message).not.toContain('\n');
    expect(ms).toBeLessThan(PROMPT_MS);
  });

  it('opening: a server that accepts but never answers times out instead of hanging', async () => {
    const silent = await silentServer();
    try {
      const { err, ms } = await rejection(openPgStore(`postgres://u:pw@127.0.0.1:${silent.port}/db`, { connectTimeoutSec: 1 }));
      expect(err).toBeInstanceOf(UnreachableError);
      expect((err as Error).message).toContain('CONNECT_TIMEOUT');
      expect(ms).toBeLessThan(PROMPT_MS);
    } finally {
      silent.close();
    }
  });

  it('several instances opening a fresh schema at once apply each migration once', async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPgStore(server.url, { schema: 'race' })));
    try {
      const rows = await stores[0]!.sql<{ version: number }[]>`SELECT version FROM race.schema_migrations ORDER BY version`;
      expect(rows.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((m) => m.version));
      for (const s of stores) expect(await s.schemaVersion()).toBe(PG_MIGRATIONS.at(-1)!.version);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = await silentServer();
  s.close();
  return s.port;
}

/** A TCP server that accepts connections and never says a word. */
async function silentServer(): Promise<{ port: number; close(): void }> {
  const sockets: Socket[] = [];
  const srv: Server = createServer((sock) => sockets.push(sock));
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  return {
    port,
    close() {
      for (const s of sockets) s.destroy();
      srv.close();
    },
  };
}
