// Every dashboard answer goes through here, so each one carries the same security headers: a
// Content-Security-Policy that allows only this origin's own scripts and styles (no inline
// script, no CDN), no framing, no sniffing, no referrer, and never a cached page.
import type { SafeHtml } from './html.js';

/** A dashboard answer: like the API's, but a header may repeat (Set-Cookie). */
export interface PageResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

/** The policy of every page: nothing inline, nothing from elsewhere, forms only to this origin. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** Extra headers and cookies of one answer. */
export interface AnswerOptions {
  headers?: Record<string, string>;
  /** Set-Cookie values (see `cookie`). */
  cookies?: string[];
}

/** Use to answer with a whole page. */
export function htmlAnswer(status: number, page: SafeHtml, opts: AnswerOptions = {}): PageResponse {
  return answer(status, 'text/html; charset=utf-8', page.text, opts);
}

/** Use for the chart data the page's script fetches. */
export function jsonAnswer(status: number, body: unknown): PageResponse {
  return answer(status, 'application/json; charset=utf-8', JSON.stringify(body));
}

/** Use after a form that changed something: the browser loads `location` with GET (no re-post on reload). */
export function redirect(location: string, opts: AnswerOptions = {}): PageResponse {
  return answer(303, 'text/plain; charset=utf-8', `See ${location}`, { ...opts, headers: { ...opts.headers, Location: location } });
}

/** Use for a static file of the page (script, style sheet). */
export function assetAnswer(type: string, body: string): PageResponse {
  return answer(200, type, body, { headers: { 'Cache-Control': 'no-cache' } });
}

function answer(status: number, type: string, body: string, opts: AnswerOptions = {}): PageResponse {
  const headers: Record<string, string | string[]> = {
    'Content-Type': type,
    'Cache-Control': 'no-store',
    ...SECURITY_HEADERS,
    ...opts.headers,
  };
  if (opts.cookies?.length) headers['Set-Cookie'] = opts.cookies;
  return { status, headers, body };
}

/** A cookie only this server's own pages send back: HttpOnly, SameSite=Strict, path /. */
export function cookie(name: string, value: string, maxAgeSec: number): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSec}`;
}
