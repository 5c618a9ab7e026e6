// The pool the PostgreSQL store runs on, and how its failures read: a connection that cannot be
// made or was cut (the server restarting) becomes StoreUnavailableError, so the server answers 503
// and the next request simply tries again on a fresh connection; the password never shows.
import postgres from 'postgres';
import { UsageError } from '../../errors.js';
import { StoreUnavailableError } from '../store.js';

/** A pooled client or one bound to a transaction: the store's classes run on either. */
export type Pg = postgres.Sql | postgres.ReservedSql;

/** Options for openPgStore. */
export interface PgStoreOptions {
  /** Pool size per process (default 10). */
  max?: number;
  /** Seconds a new connection may take before the call fails as unavailable (default 5). */
  connectTimeoutSec?: number;
  /** Schema holding msnap's tables (default "msnap"), so a shared database stays tidy. */
  schema?: string;
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

/** True for a value that names a PostgreSQL store (postgres:// or postgresql://). */
export function isPgUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** Checks the URL's shape; a UsageError in one line (without the password) when it is not one. */
export function parsePgUrl(url: string): URL {
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
    connection: { application_name: 'msnap', search_path: opts.schema ?? 'msnap' },
  });
}

/** Passwords in URLs and in driver messages are replaced by ***. */
export function redact(text: string): string {
  return text.replace(/(postgres(?:ql)?:\/\/[^:/@\s]*:)[^@\s]*@/gi, '$1***@');
}
