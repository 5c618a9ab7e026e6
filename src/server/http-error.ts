// The one error type of the server and the one writer of every error body, Hono-style:
// handlers and middleware throw `HttpException`; `errorBody` turns it into the contract's JSON.
import { STATUS_CODES } from 'node:http';
import type { ErrorInfo } from './error-kind.js';

/** Throw from any handler or middleware to answer with `status` and the contract's error body. */
export class HttpException extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra body fields (`tier` for 403, `retry_after` for 429). */
    readonly extra: Record<string, unknown> = {},
    /** Extra response headers (`Allow`, `Retry-After`, `WWW-Authenticate`). */
    readonly headers: Record<string, string> = {},
    /** The case behind it, for dialects that answer it differently from v1. */
    readonly info: ErrorInfo = { kind: 'request' },
  ) {
    super(message);
    this.name = 'HttpException';
  }
}

/** The reason phrase the contract puts in `error` (Node's table; `Error` for unknown codes). */
export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

/** The JSON body of every error response: `{ error, message, ...extra }`. */
export function errorBody(status: number, message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ error: reasonPhrase(status), message, ...extra });
}

/** Quote a user-supplied value inside a message without echoing kilobytes back. */
export function quote(value: string, max = 64): string {
  const cut = value.length > max ? `${value.slice(0, max)}...` : value;
  return JSON.stringify(cut);
}
