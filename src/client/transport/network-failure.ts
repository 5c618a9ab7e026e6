// What a failed request's network error means: whether it is one to retry, its code, and the
// words the CLI shows for it.

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
/** Codes that mean nothing is listening there (no point waiting long). */
export const NO_LISTENER_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
/** A server that accepted and then said nothing: waiting the whole budget again rarely helps. */
export const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
/** Retries after a timeout (each costs a whole timeout). */
export const TIMEOUT_RETRIES = 1;

/** What a network failure code means, in words. */
export function reasonOf(code: string, timeoutMs: number): string {
  const secs = `${Math.round(timeoutMs / 100) / 10} s`;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `could not connect within ${secs}`;
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'ETIMEDOUT':
      return `no answer within ${secs}`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `the answer stalled for ${secs}`;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
    case 'EPIPE':
      return 'connection reset';
    default:
      return code;
  }
}

/** An https:// URL to a plain-http server (or any TLS failure): OpenSSL's text means nothing to most users. */
export function tlsFailure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('ERR_SSL_') || code === 'EPROTO' || code.startsWith('ERR_TLS_'))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The network error code of `err` (undici wraps causes; happy-eyeballs aggregates them), if it is one we retry. */
export function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    const inner = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(inner)) {
      for (const x of inner) {
        const c = (x as { code?: unknown }).code;
        if (typeof c === 'string' && NETWORK_CODES.has(c)) return c;
      }
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
