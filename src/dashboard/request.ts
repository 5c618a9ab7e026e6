// What the dashboard reads from a request: its path and query, its cookies, and a small
// url-encoded form body read from the socket with a size cap.
import type { IncomingMessage } from 'node:http';
import type { AppRequest } from '../server/app.js';

/** A request as the dashboard core sees it: the API's request plus the body already read. */
export interface DashboardRequest extends AppRequest {
  /** The raw body (url-encoded form); empty for GET. */
  body: string;
}

/** Forms are a few fields; anything larger is refused before it is buffered. */
export const MAX_FORM_BYTES = 8 * 1024;

/** Thrown by `readBody` when a body passes MAX_FORM_BYTES. */
export class BodyTooLarge extends Error {}

/** Use in the listener: the request's body as text, at most MAX_FORM_BYTES. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_FORM_BYTES) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        req.pause();
        reject(new BodyTooLarge());
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

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
