// Path matching for every dialect's route table: a path (without query) is stripped of one of the
// dialect's prefixes (or looked up among its whole-path aliases) and matched segment by segment.
import type { Route } from './route.js';

/** The methods a route allows, for Allow: GET (the contract's), POST where msnap adds one (HEAD on none). */
export function allowedMethods(route: Route): string {
  return [...(route.get === false ? [] : ['GET']), ...(route.post ? ['POST'] : [])].join(', ');
}

/** A matched route and its decoded `:params`. */
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** Resolves a path to its route, or undefined (404). */
export type Matcher = (path: string) => RouteMatch | undefined;

interface Compiled {
  route: Route;
  segments: string[];
}

/**
 * Use once per dialect: `prefixes` are stripped (`/api/v1/`), `aliases` map whole paths onto a
 * pattern (`/api/health` -> `health`). Earlier routes win (`markets/by-slug/:id` before `markets/:id/...`).
 */
export function createMatcher(routes: readonly Route[], prefixes: readonly string[], aliases: Readonly<Record<string, string>> = {}): Matcher {
  const compiled: Compiled[] = routes.map((route) => ({ route, segments: route.pattern.split('/') }));
  return (path) => {
    let rest = aliases[path];
    if (rest === undefined) {
      const prefix = prefixes.find((p) => path.startsWith(p));
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
