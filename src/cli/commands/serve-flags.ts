// The flags of `msnap serve`, checked: where the data and the limits live, where to listen, and
// the abuse settings (sign-ups, proxy trust). Commander hands over raw strings; this file turns
// them into the service's options (src/service/start-service.ts) or a one-line UsageError.
import { isIP } from 'node:net';
import { UsageError } from '../../errors.js';
import { isPostgresUrl, resolveDbPath } from '../../store/db-path.js';
import type { ProxySettings } from '../../server/proxy.js';
import { DEFAULT_SIGNUPS_PER_DAY } from '../../dashboard/signup-default.js';
import { parseReplayFlags, type RawReplayFlags } from '../../service/replay-clock.js';
import type { ServiceOptions } from '../../service/start-service.js';
import { parsePaperFlags, type RawPaperFlags } from './serve-paper.js';
import { parseRecordPairs, recordUrls } from '../../service/record-settings.js';

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Use to check --port: an integer 0..65535 (0 = any free port). */
function parsePort(value: string): number {
  const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 0 && n <= 65535)) throw new UsageError(`--port must be an integer from 0 to 65535 (0 picks a free port); got "${value.slice(0, 40)}"`);
  return n;
}

/** Use to check --host: an IP address or a host name. */
function parseHost(value: string): string {
  if (isIP(value) || HOSTNAME.test(value)) return value;
  throw new UsageError(`--host must be an IP address or a host name, e.g. 127.0.0.1; got "${value.slice(0, 40)}"`);
}

/** Raw flag values of `msnap serve` as commander hands them over. */
export interface ServeFlags extends RawReplayFlags, RawPaperFlags {
  db?: string;
  store?: string;
  limiter?: string;
  host: string;
  port: string;
  demo: boolean;
  signup: boolean;
  live?: boolean;
  signupsPerDay?: string;
  trustProxy?: string;
  publicUrl?: string;
  allowedHosts?: string;
  /** serve --record COIN:TYPE,… and the recorder's sources. */
  record?: string;
  clobUrl?: string;
  rtdsUrl?: string;
  gammaUrl?: string;
  raw?: string;
}

/** Use to check the flags of `msnap serve` (`now` reads --replay's TIMEs); the timeouts come from MSNAP_HEADERS_TIMEOUT_MS / MSNAP_REQUEST_TIMEOUT_MS. */
export function parseServeFlags(raw: ServeFlags, env: NodeJS.ProcessEnv, now = Date.now()): ServiceOptions {
  if (raw.db !== undefined && raw.store !== undefined) throw new UsageError('give --db or --store, not both (--store is --db for a postgres:// URL)');
  if (raw.store !== undefined && !isPostgresUrl(raw.store)) {
    throw new UsageError(`--store takes a PostgreSQL URL such as postgres://user@host:5432/msnap; got "${raw.store.slice(0, 40)}" (an SQLite file goes to --db)`);
  }
  const db = resolveDbPath(raw.store ?? raw.db, env);
  const limiter = raw.limiter ?? (env.MSNAP_REDIS_URL || undefined);
  if (isPostgresUrl(db) && raw.live === true) {
    throw new UsageError('--live runs the synthetic world in one process over an SQLite file; it is not available with a PostgreSQL store');
  }
  const replay = parseReplayFlags(raw, now);
  const host = parseHost(raw.host);
  const record = parseRecord(raw, env, replay !== undefined);
  return {
    db,
    limiter,
    host,
    proxy: parseProxy(raw, env),
    port: parsePort(raw.port),
    demo: raw.demo,
    signup: raw.signup,
    live: raw.live ?? (raw.demo && !isPostgresUrl(db) && !replay),
    ...(record ? { record } : {}),
    replay,
    paper: parsePaperFlags(raw),
    signupsPerDay: raw.signupsPerDay === undefined ? DEFAULT_SIGNUPS_PER_DAY : parseSignupsPerDay(raw.signupsPerDay),
    responseLimits: { totalBytes: mib(envMs(env, 'MSNAP_RESPONSE_BUDGET_MB')), stallMs: envMs(env, 'MSNAP_WRITE_STALL_MS') },
    streamLimits: { totalBytes: mib(envMs(env, 'MSNAP_STREAM_BUDGET_MB')) },
    headersTimeoutMs: envMs(env, 'MSNAP_HEADERS_TIMEOUT_MS'),
    requestTimeoutMs: envMs(env, 'MSNAP_REQUEST_TIMEOUT_MS'),
  };
}

/** serve --record's settings, or undefined without the flag; the source flags alone are a mistake said so. */
function parseRecord(raw: ServeFlags, env: NodeJS.ProcessEnv, replay: boolean): ServiceOptions['record'] {
  if (raw.record === undefined) {
    const stray = (['clobUrl', 'rtdsUrl', 'gammaUrl', 'raw'] as const).find((k) => raw[k] !== undefined);
    if (stray) throw new UsageError(`--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} only goes with --record COIN:TYPE,…`);
    return undefined;
  }
  if (replay || raw.live === true || raw.demo) throw new UsageError('--record serves the real markets it records: it goes with neither --replay, --live nor --demo');
  return { pairs: parseRecordPairs(raw.record), ...recordUrls(raw, env), ...(raw.raw !== undefined ? { raw: raw.raw } : {}) };
}

function mib(n: number | undefined): number | undefined {
  return n === undefined ? undefined : n * 2 ** 20;
}

/** A positive integer (of milliseconds, of MB) from the environment (tests shorten the timeouts), else undefined. */
function envMs(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  return value !== undefined && /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
}


/** Use to check --signups-per-day: an integer 1..100000 (--no-signup closes sign-up altogether). */
function parseSignupsPerDay(value: string): number {
  const n = /^\d{1,6}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 100_000)) throw new UsageError(`--signups-per-day must be an integer from 1 to 100000 (--no-signup closes sign-up); got "${value.slice(0, 40)}"`);
  return n;
}

/** Use to check --trust-proxy, --public-url and --allowed-hosts (flags first, then MSNAP_TRUST_PROXY, MSNAP_PUBLIC_URL, MSNAP_ALLOWED_HOSTS). */
function parseProxy(raw: ServeFlags, env: NodeJS.ProcessEnv): ProxySettings {
  const list = (v: string | undefined) => (v ?? '').split(',').map((x) => x.trim()).filter((x) => x !== '');
  const trusted = list(raw.trustProxy ?? env.MSNAP_TRUST_PROXY);
  for (const t of trusted) {
    if (t !== 'loopback' && !isIP(t)) throw new UsageError(`--trust-proxy takes proxy IP addresses or "loopback", comma-separated; got "${t.slice(0, 40)}"`);
  }
  const publicText = raw.publicUrl ?? (env.MSNAP_PUBLIC_URL || undefined);
  let publicUrl: URL | undefined;
  if (publicText !== undefined) {
    try {
      publicUrl = new URL(publicText);
    } catch {
      publicUrl = undefined;
    }
    if (!publicUrl || !/^https?:$/.test(publicUrl.protocol) || publicUrl.pathname !== '/' || publicUrl.search !== '') {
      throw new UsageError(`--public-url takes the origin browsers use, e.g. https://data.example.com; got "${publicText.slice(0, 60)}"`);
    }
  }
  const named = list(raw.allowedHosts ?? env.MSNAP_ALLOWED_HOSTS).map((h) => h.toLowerCase());
  for (const h of named) {
    if (h !== '*' && !HOSTNAME.test(h) && !isIP(h) && !/^\[[0-9a-f:.]+\]$/.test(h)) throw new UsageError(`--allowed-hosts takes host names (no port) or "*"; got "${h.slice(0, 40)}"`);
  }
  // The listener adds the local names (on loopback) and the public URL's host to these.
  return { trusted, publicUrl, allowedHosts: named };
}
