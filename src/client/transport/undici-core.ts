// The two parts of undici the transport uses (a keep-alive Agent and `request`), loaded without
// the rest of the package. Its entry point loads fetch, WebSocket, EventSource, caches and mocks
// too, a large share of a short command's whole run (docs/testing.md, "Measured choices"). Should
// a release move these files, the entry point is used instead.
import { createRequire } from 'node:module';
import type { Dispatcher } from 'undici';
import type * as Undici from 'undici';

/** `undici.request` with a dispatcher always given (the transport never uses the global one). */
export type RequestFn = (url: string, opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher }) => Promise<Dispatcher.ResponseData>;

interface Core {
  Agent: typeof Undici.Agent;
  request: RequestFn;
}

function load(): Core {
  const require = createRequire(import.meta.url);
  try {
    const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
    const api = require('undici/lib/api/api-request.js') as (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
    if (typeof Agent === 'function' && typeof Agent.prototype.dispatch === 'function' && typeof api === 'function') {
      // What undici.request does with a URL and options (index.js, makeDispatcher).
      const request: RequestFn = (url, { dispatcher, ...opts }) => {
        const u = new URL(url);
        return api.call(dispatcher, { ...opts, origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname, method: opts.method ?? 'GET' });
      };
      return { Agent, request };
    }
  } catch {
    // Moved or renamed: the public entry point below.
  }
  const undici = require('undici') as typeof Undici;
  return { Agent: undici.Agent, request: (url, opts) => undici.request(url, opts) };
}

/** The Agent class and `request`, from undici's own files (or its entry point). */
export const { Agent, request } = load();
