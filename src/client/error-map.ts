// One place that turns a service failure into the MsnapError the CLI prints and exits with.
import { AuthError, HttpError, MsnapError, NotFoundError, RateLimitedError, UnreachableError, UsageError, WindowError } from '../errors.js';
import { redactKey } from './mask-key.js';
import { normalizeErrorBody } from './normalize.js';

/** The message for a request made without any key. */
export const NO_KEY_MESSAGE = 'no API key: set MSNAP_API_KEY, pass --api-key or run msnap keys add';

/** Use for a final non-2xx answer (after retries); `key` is only used to scrub it from the text. */
export function errorForStatus(status: number, body: unknown, url: string, key: string | undefined): MsnapError {
  const b = normalizeErrorBody(body);
  const said = redactKey(b.message ?? b.error ?? '', key);
  const safeBody = scrubBody(body, key);
  switch (status) {
    case 400:
      return new UsageError(said || 'the service rejected the request (400 Bad Request)');
    case 401:
      return new AuthError(
        said ? `authentication failed: ${said}` : 'authentication failed (401)',
        'check the key: `msnap keys list`, MSNAP_API_KEY or --api-key',
      );
    case 403: {
      const tier = b.tier ?? undefined;
      const hint = tier && tier !== 'pro' && tier !== 'enterprise'
        ? `your plan is ${tier}: upgrade to Pro for the full history`
        : 'upgrade to Pro for the full history';
      return new WindowError(said || 'outside your plan\'s data window (403 Forbidden)', tier, hint);
    }
    case 404:
      return new NotFoundError(said || `not found: ${url}`);
    case 429:
      return new RateLimitedError(
        `still rate-limited after retries (429)${said ? `: ${said}` : ''}`,
        'another process may be using the same key; wait a minute or use a separate key',
      );
    default:
      return new HttpError(`${url} answered ${status}${said ? `: ${said}` : ''}`, status, url, safeBody);
  }
}

/** Use when nothing answered (refused, reset, timeouts) after the retries. */
export function unreachableError(baseUrl: string, cause: string): UnreachableError {
  if (isLoopback(baseUrl)) {
    return new UnreachableError(
      `no msnap service at ${baseUrl}: start one with \`msnap serve --demo\` or set --base-url / MSNAP_BASE_URL`,
      `cause: ${cause}`,
    );
  }
  return new UnreachableError(`cannot reach the msnap service at ${baseUrl} (${cause})`, 'check --base-url / MSNAP_BASE_URL and your network');
}

/** Use when the service accepted the connection but did not answer in time, after the retry. */
export function timeoutError(baseUrl: string, reason: string): UnreachableError {
  return new UnreachableError(
    `timed out: ${baseUrl} ${reason.startsWith('could not') ? reason : `accepted the connection, but ${reason}`}`,
    'the service may be overloaded or hung; wait longer with --timeout SECONDS (or MSNAP_TIMEOUT)',
  );
}

/** Use when the TLS handshake fails: usually an https:// URL for a plain-http server such as `msnap serve`. */
export function tlsError(baseUrl: string): UnreachableError {
  const plain = baseUrl.replace(/^https:/, 'http:');
  return new UnreachableError(
    `TLS handshake with ${baseUrl} failed: the server does not speak https there`,
    baseUrl.startsWith('https:') ? `a local msnap serve speaks plain http: try ${plain}` : 'check --base-url / MSNAP_BASE_URL',
  );
}

/** True for 127.0.0.0/8, ::1 and localhost. */
function isLoopback(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    return false;
  }
  host = host.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function scrubBody(body: unknown, key: string | undefined): unknown {
  if (!key || body === undefined) return body;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (!text.includes(key)) return body;
  const clean = redactKey(text, key);
  return typeof body === 'string' ? clean : (JSON.parse(clean) as unknown);
}
