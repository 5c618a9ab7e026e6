// Which dialect answers a path: /v2/... is v2, /v4/... is v4, everything else v1 (whose 404 the
// contract already defines for unknown paths).
import type { Dialect } from './dialect.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';
import { v4 } from './v4.js';

/** Every dialect, for tests and docs that walk them all. */
export const DIALECTS: readonly Dialect[] = [v1, v2, v4];

/** Use first on every request (before credentials: errors are shaped by the dialect too). */
export function selectDialect(path: string): Dialect {
  if (path.startsWith('/v2/') || path === '/v2') return v2;
  if (path.startsWith('/v4/') || path === '/v4') return v4;
  return v1;
}
