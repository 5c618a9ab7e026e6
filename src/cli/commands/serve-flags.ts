// The flags of `msnap serve`, checked: where the data and the limits live, where to listen, and
// the abuse settings (sign-ups, proxy trust). Commander hands over raw strings; this file turns
// them into ServeOptions or a one-line UsageError.
import { isIP } from 'node:net';
import { UsageError } from '../../errors.js';
import { isPostgresUrl, resolveDbPath } from '../../store/sqlite/db-path.js';
import { DEFAULT_RESPONSE_LIMITS, type ResponseLimits } from '../../server/response-writer.js';
import { DEFAULT_SIGNUPS_PER_DAY } from '../../dashboard/dashboard-limits.js';

/** Flag values of `msnap serve`, checked. */
export interface ServeOptions {
  /** An SQLite file, or a postgres:// URL (several instances may share it). */
  db: string;
  /** A redis:// URL: the rate limits every instance on it shares; undefined = in this process. */
  limiter?: string;
  host: string;
  port: number;
  demo: boolean;
  /** false with --no-signup: the dashboard takes no sign-ups (`serve accounts` makes accounts). */
  signup: boolean;
  /** Keep the seeded synthetic world running (serve --live; on with --demo unless --no-live). */
  live: boolean;
  /** Node's header and whole-request timeouts; undefined keeps the listener's defaults (10 s, 30 s). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Bytes held for slow readers and the stall timeout (MSNAP_RESPONSE_BUDGET_MB, MSNAP_WRITE_STALL_MS). */
  responseLimits: ResponseLimits;
  /** Dashboard sign-ups one client address may make per day (--signups-per-day). */
  signupsPerDay: number;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Use to check --port: an integer 0..65535 (0 = any free port). */
export function parsePort(value: string): number {
  const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 0 && n <= 65535)) throw new UsageError(`--port must be an integer from 0 to 65535 (0 picks a free port); got "${value.slice(0, 40)}"`);
  return n;
}

/** Use to check --host: an IP address or a host name. */
export function parseHost(value: string): string {
  if (isIP(value) || HOSTNAME.test(value)) return value;
  throw new UsageError(`--host must be an IP address or a host name, e.g. 127.0.0.1; got "${value.slice(0, 40)}"`);
}

/** Raw flag values of `msnap serve` as commander hands them over. */
export interface ServeFlags {
  db?: string;
  store?: string;
  limiter?: string;
  host: string;
  port: string;
  demo: boolean;
  signup: boolean;
  live?: boolean;
  signupsPerDay?: string;
}

/** Use to check the flags of `msnap serve`; the timeouts come from MSNAP_HEADERS_TIMEOUT_MS / MSNAP_REQUEST_TIMEOUT_MS. */
export function parseServeFlags(raw: ServeFlags, env: NodeJS.ProcessEnv): ServeOptions {
  if (raw.db !== undefined && raw.store !== undefined) throw new UsageError('give --db or --store, not both (--store is --db for a postgres:// URL)');
  if (raw.store !== undefined && !isPostgresUrl(raw.store)) {
    throw new UsageError(`--store takes a PostgreSQL URL such as postgres://user@host:5432/msnap; got "${raw.store.slice(0, 40)}" (an SQLite file goes to --db)`);
  }
  const db = resolveDbPath(raw.store ?? raw.db, env);
  const limiter = raw.limiter ?? (env.MSNAP_REDIS_URL || undefined);
  if (isPostgresUrl(db) && raw.live === true) {
    throw new UsageError('--live runs the synthetic world in one process over an SQLite file; it is not available with a PostgreSQL store');
  }
  return {
    db,
    limiter,
    host: parseHost(raw.host),
    port: parsePort(raw.port),
    demo: raw.demo,
    signup: raw.signup,
    live: raw.live ?? (raw.demo && !isPostgresUrl(db)),
    signupsPerDay: raw.signupsPerDay === undefined ? DEFAULT_SIGNUPS_PER_DAY : parseSignupsPerDay(raw.signupsPerDay),
    responseLimits: {
      ...DEFAULT_RESPONSE_LIMITS,
      totalBytes: (envMs(env, 'MSNAP_RESPONSE_BUDGET_MB') ?? DEFAULT_RESPONSE_LIMITS.totalBytes / 2 ** 20) * 2 ** 20,
      stallMs: envMs(env, 'MSNAP_WRITE_STALL_MS') ?? DEFAULT_RESPONSE_LIMITS.stallMs,
    },
    headersTimeoutMs: envMs(env, 'MSNAP_HEADERS_TIMEOUT_MS'),
    requestTimeoutMs: envMs(env, 'MSNAP_REQUEST_TIMEOUT_MS'),
  };
}

/** A positive integer (of milliseconds, of MB) from the environment (tests shorten the timeouts), else undefined. */
function envMs(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  return value !== undefined && /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
}


/** Use to check --signups-per-day: an integer 1..100000 (--no-signup closes sign-up altogether). */
export function parseSignupsPerDay(value: string): number {
  const n = /^\d{1,6}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 100_000)) throw new UsageError(`--signups-per-day must be an integer from 1 to 100000 (--no-signup closes sign-up); got "${value.slice(0, 40)}"`);
  return n;
}
