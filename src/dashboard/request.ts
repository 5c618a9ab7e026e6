// What the dashboard reads from a request: its path and query, its cookies, and its small
// url-encoded form body (read by the listener with a size cap, server/form-body.ts).
import type { AppRequest } from '../server/app.js';
import type { SiteRequest } from '../server/site.js';

/** A request as the dashboard core sees it: the API's request plus the body the listener read. */
export type DashboardRequest = SiteRequest;

/** The path of a request target, without its query. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** The query of a request target as URLSearchParams. */
export function queryOf(url: string): URLSearchParams {
  const q = url.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
}

/** The cookies a request carries, by name (the first of a repeated name wins). */
export function cookiesOf(req: AppRequest): Map<string, string> {
  const out = new Map<string, string>();
  const header = req.headers.cookie;
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/** A url-encoded form's fields; a field given twice keeps its first value. */
export function formOf(req: DashboardRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(req.body)) if (!out.has(k)) out.set(k, v);
  return out;
}
