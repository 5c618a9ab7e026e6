// `redis://[user:password@]host[:port][/db]` (or `rediss://` for TLS) into connection options,
// with a display form that never carries the password: the URL comes from a flag or env var,
// and whatever msnap prints about it may end up in logs.
import { UsageError } from '../errors.js';

/** Where a Redis is and how to log in; `display` is safe to print. */
export interface RedisTarget {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls: boolean;
  /** The URL without its credentials, e.g. `redis://***@10.0.0.5:6379/0`. */
  display: string;
}

const SHAPE = 'expected redis://[user:password@]host[:port][/db]';

/** Use to check a --limiter / MSNAP_REDIS_URL value; throws UsageError with a one-line message. */
export function parseRedisUrl(raw: string): RedisTarget {
  const bad = (why: string): UsageError => new UsageError(`invalid Redis URL ${JSON.stringify(redactUrl(raw))}: ${why}`, SHAPE);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('not a URL (a port must be 0-65535)');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw bad(`the scheme must be redis:// or rediss://, not ${url.protocol}//`);
  // Brackets of an IPv6 literal belong to the URL, not to the address.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw bad('no host');
  const port = url.port === '' ? 6379 : Number(url.port);
  if (port === 0) throw bad('port 0 is not a port');
  const dbText = url.pathname.replace(/^\//, '');
  if (!/^\d{0,5}$/.test(dbText)) throw bad(`the database must be a number such as /0, not /${dbText}`);
  if (url.search !== '' || url.hash !== '') throw bad('query strings and fragments are not supported');
  const db = dbText === '' ? 0 : Number(dbText);
  const username = url.username === '' ? undefined : decodeURIComponent(url.username);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const creds = username !== undefined || password !== undefined ? '***@' : '';
  return {
    host,
    port,
    db,
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    tls: url.protocol === 'rediss:',
    display: `${url.protocol}//${creds}${hostPart}:${port}/${db}`,
  };
}

/** `raw` with everything between `//` and the last `@` masked, even when it does not parse (a `/` in a password). */
export function redactUrl(raw: string): string {
  return raw.replace(/^([^/]*\/\/)?.*@/s, (_, scheme: string | undefined) => `${scheme ?? ''}***@`);
}
