// Reading a response's headers and body the way every request does.
import { toNumber } from '../../domain/numeric-field.js';
import type { RateHeaders } from '../pacing/pacer.js';

/** A response header's first value. */
export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The rate-limit headers of a response, and its Date, for the pacer. */
export function rateHeaders(headers: Record<string, string | string[] | undefined>): RateHeaders {
  const date = header(headers, 'date');
  const parsedDate = date ? Date.parse(date) : NaN;
  return {
    limit: toNumber(header(headers, 'x-ratelimit-limit')),
    remaining: toNumber(header(headers, 'x-ratelimit-remaining')),
    reset: toNumber(header(headers, 'x-ratelimit-reset')),
    serverDate: Number.isNaN(parsedDate) ? undefined : parsedDate,
  };
}

/** A body's text as undici's body.text() gives it: UTF-8 with a byte order mark dropped. */
export function bodyText(bytes: Buffer): string {
  const bom = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString('utf8', bom ? 3 : 0);
}

/** A body parsed as JSON; a short non-JSON text (a proxy's page) is kept for the message; else undefined. */
export function parseBody(text: string, headers: Record<string, string | string[] | undefined>): unknown {
  if (text === '') return undefined;
  const type = header(headers, 'content-type') ?? '';
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Not JSON (a proxy's HTML page, a plain-text error): keep short text for the message.
    return type.includes('json') ? undefined : text.length <= 300 ? text : undefined;
  }
}
