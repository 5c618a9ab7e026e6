// The pool the PostgreSQL store runs on, and how its failures read: a connection that cannot be
// made or was cut (the server restarting) becomes StoreUnavailableError, so the server answers 503
// and the next request simply tries again on a fresh connection; the password never shows.
import { createConnection, type Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import postgres from 'postgres';
import { UsageError } from '../../errors.js';
import { StoreUnavailableError } from '../store.js';

/** A pooled client or one bound to a transaction: the store's classes run on either. */
export type Pg = postgres.Sql | postgres.ReservedSql;

/** Options for openPgStore. */
export interface PgStoreOptions {
  /** Pool size per process (default 10; serve: servePoolSize()). */
  max?: number;
  /** Seconds a new connection may take before the call fails as unavailable (default 5). */
  connectTimeoutSec?: number;
  /** Schema holding msnap's tables (default "msnap"), so a shared database stays tidy. */
  schema?: string;
  /** Every transaction read-only (the library's openStore): the store is read, never migrated or written. */
  readOnly?: boolean;
  /** The server cancels any statement running longer (serve sets it; bulk loads do not). */
  statementTimeoutMs?: number;
  /** A store call not answered within this many ms fails as unavailable, whatever the driver does (serve sets it). */
  callTimeoutMs?: number;
}

/** The timeouts `msnap serve` runs its PostgreSQL store with: no request waits on the database for long. */
export const SERVE_PG_TIMEOUTS = { statementTimeoutMs: 15_000, callTimeoutMs: 20_000 } as const;

/**
 * The pool `msnap serve` runs with: two connections per core, 4 to 10. More only take turns on
 * the same cores (the driver pipelines queries on a busy connection instead): on 2 cores a pool of
 * 4 served bench figure 18's pages faster than one of 10, with less PostgreSQL CPU per request.
 */
export function servePoolSize(cores = availableParallelism()): number {
  return Math.min(10, Math.max(4, 2 * cores));
}

/** Node's own socket errors and the driver's, for a connection that could not be made or was lost. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  // SQLSTATE: shutdown (admin, crash), starting up, too many connections.
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** True for an error that says the database cannot be reached now (SQLSTATE class 08 included). */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return CONNECTION_CODES.has(code) || code.startsWith('08');
}

/** Use around every database call: connection failures become StoreUnavailableError, others pass. */
export function unavailableOr(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isConnectionError(err)) return err;
  const e = err as { code: string; message?: string };
  return new StoreUnavailableError(`PostgreSQL unavailable (${e.code}): ${redact(e.message ?? '')}`);
}

/** Use around a call that must not hang: past `ms` it fails as unavailable (the call itself is left to finish or fail unseen). */
export function withDeadline<T>(call: Promise<T>, ms: number | undefined): Promise<T> {
  if (!ms) return call;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`PostgreSQL did not answer within ${ms} ms`)), ms);
  });
  call.catch(() => undefined);
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}

/** Use to run one store call: its connection failures become StoreUnavailableError. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw unavailableOr(err);
  }
}

/** host:port/database of a store URL, for messages; never the user's password. */
export function describePgUrl(url: string): string {
  const u = parsePgUrl(url);
  return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
}

/** Checks the URL's shape; a UsageError in one line (without the password) when it is not one. */
function parsePgUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`not a valid PostgreSQL URL: ${redact(url)} (expected postgres://user:password@host:port/database)`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new UsageError(`not a PostgreSQL URL: ${redact(url)} (expected postgres://…)`);
  }
  return u;
}

/**
 * Use once per store: the pool. int8 columns (epoch ms, ids, scaled prices, counts) arrive as JS
 * numbers, statements are prepared per connection, notices are not printed.
 */
export function connectPg(url: string, opts: PgStoreOptions = {}): postgres.Sql {
  parsePgUrl(url);
  return postgres(url, {
    max: opts.max ?? 10,
    connect_timeout: opts.connectTimeoutSec ?? 5,
    // Idle connections go, so a pool that lived through a restart holds no dead sockets for long.
    idle_timeout: 60,
    prepare: true,
    onnotice: () => undefined,
    // fetch_types stays on: with it off, reserve() on a fresh connection never resolves (3.4.9).
    types: {
      int8: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) },
    },
    connection: {
      application_name: 'msnap',
      search_path: opts.schema ?? 'msnap',
      ...(opts.readOnly ? { default_transaction_read_only: true } : {}),
      ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
    },
    // The driver's default waits up to 20 s between reconnects after many failures (3^n / 100 s):
    // a server back after a restart would go unused that long. Retry within half a second.
    backoff: (attempt: number) => Math.min(0.05 * attempt, 0.5),
    // Not in the driver's types, but a documented option (3.4): a function resolving to a socket.
    ...({ socket: (o: SocketOptions) => openSocket(o) } as object),
  });
}

/** What the driver hands its `socket` option: its parsed hosts, ports and unix socket path. */
interface SocketOptions {
  host: string[];
  port: number[];
  path?: string | false;
}

/**
 * The driver's own socket leaves Nagle's algorithm on: a COPY's small last write then waits for
 * the server's delayed ACK, once per COPY whatever its size (every page of `pull --db`
 * postgres://…; docs/testing.md, "Measured choices"). This one is the same TCP socket with no delay. It is handed over while still
 * connecting (writes wait for the connection): a failed connect must reach the driver as the
 * socket's 'error' and 'close', which put the connection back in the pool. A rejected promise
 * instead (postgres 3.4.9) leaves the connection in its connecting state for good: after a few
 * refused connects while the server restarts, every pooled connection was stuck and every query
 * hung. The driver's connect_timeout bounds the connect.
 */
function openSocket(o: SocketOptions): Socket {
  return o.path ? createConnection(o.path) : createConnection({ host: o.host[0], port: o.port[0] ?? 5432, noDelay: true });
}

/** Passwords in URLs and in driver messages are replaced by ***. */
export function redact(text: string): string {
  return text.replace(/(postgres(?:ql)?:\/\/[^:/@\s]*:)[^@\s]*@/gi, '$1***@');
}
