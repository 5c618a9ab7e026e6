// The route table as data, and the matcher that maps a request path onto it. Every route answers
// under both version prefixes (`/api/v1/X` and `/v1/X`); health also as `/api/health`.
import { atTimestampRoute } from './handlers/at-timestamp.js';
import { healthRoute } from './handlers/health.js';
import { limitsRoute } from './handlers/limits.js';
import { marketRoute } from './handlers/market.js';
import { marketsRoute } from './handlers/markets.js';
import { snapshotsRoute } from './handlers/snapshots.js';
import type { Route } from './route.js';

/** Every route of the contract. */
export const ROUTES: readonly Route[] = [
  healthRoute,
  marketsRoute,
  marketRoute,
  snapshotsRoute,
  atTimestampRoute,
  limitsRoute,
];

/** The methods every route allows (HEAD included in none: the contract says GET only). */
export const ALLOWED_METHODS = 'GET';

const PREFIXES = ['/api/v1/', '/v1/'] as const;
const ALIASES: Record<string, string> = { '/api/health': 'health' };

interface Compiled {
  route: Route;
  segments: string[];
}

/** Use to resolve a path (without query) to its route and decoded `:params`; undefined = 404. */
export function createMatcher(routes: readonly Route[]): (path: string) => { route: Route; params: Record<string, string> } | undefined {
  const compiled: Compiled[] = routes.map((route) => ({ route, segments: route.pattern.split('/') }));
  return (path) => {
    let rest = ALIASES[path];
    if (rest === undefined) {
      const prefix = PREFIXES.find((p) => path.startsWith(p));
      if (!prefix) return undefined;
      rest = path.slice(prefix.length);
    }
    const parts = rest.split('/');
    for (const { route, segments } of compiled) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segments.length && ok; i++) {
        const seg = segments[i]!;
        const part = parts[i]!;
        if (seg.startsWith(':')) {
          const decoded = decodeSegment(part);
          if (decoded === undefined || decoded === '') ok = false;
          else params[seg.slice(1)] = decoded;
        } else if (seg !== part) {
          ok = false;
        }
      }
      if (ok) return { route, params };
    }
    return undefined;
  };
}

function decodeSegment(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}
