// A small request body read from the socket with a size cap: the forms of the site mounted beside
// the API (server/site.ts) and the API's JSON posts (paper trading). Anything larger is refused
// before it is buffered.
import type { IncomingMessage } from 'node:http';

/** Forms are a few fields; anything larger is refused before it is buffered. */
export const MAX_FORM_BYTES = 8 * 1024;

/** Thrown by `readBody` when a body passes MAX_FORM_BYTES. */
export class BodyTooLarge extends Error {}

/** Use in the listener: the request's body as text, at most `max` bytes (default MAX_FORM_BYTES). */
export function readBody(req: IncomingMessage, max = MAX_FORM_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > max) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.pause();
        reject(new BodyTooLarge());
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
