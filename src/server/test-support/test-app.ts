// A core app over one backend's store for the route and dialect suites: the data set of
// fixture.ts in memory, in a real SQLite file or in a real PostgreSQL (backends.ts).
import { expect } from 'vitest';
import type { Store } from '../../store/store.js';
import { createApp, type AppResponse } from '../app.js';
import { openBackendStore, type Backend } from './backends.js';
import { T0, type MarketSeries } from './fixture.js';

export { BOOK, btc24, DETAILS, ETH_1H, NEWEST_24H, T0 } from './fixture.js';
export type { Backend } from './backends.js';

type Headers = Record<string, string>;

/** Options of testApp. */
export interface TestAppOptions {
  /** Default 'memory'. */
  backend?: Backend;
  /** Ms the clock moves before each call (default 100). */
  step?: number;
  /** listMarkets throws (an unexpected error with a path in its message), on any backend. */
  failing?: boolean;
  /** Markets beyond the data set. */
  more?: MarketSeries[];
}

/** Use per test: a fresh app over a fresh store; `get` moves the clock by `step` ms before each call. */
export async function testApp(options: TestAppOptions = {}) {
  const clock = { t: T0 };
  const opened = await openBackendStore(options.backend ?? 'memory', options.more);
  const store = options.failing ? failingListMarkets(opened) : opened;
  const logs: string[] = [];
  const app = createApp({ store, now: () => clock.t, version: '9.9.9', log: (l) => logs.push(l) });
  const step = options.step ?? 100;
  function call(method: string, url: string, headers: Headers = {}, remoteAddress = '10.0.0.1'): Promise<AppResponse> {
    clock.t += step;
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    return app.handle({ method, url, headers: lower, remoteAddress });
  }
  const get = (url: string, key?: string, extra: Headers = {}, addr?: string) =>
    call('GET', url, key === undefined ? extra : { 'X-API-Key': key, ...extra }, addr);
  return { clock, app, call, get, logs, store };
}

/** The store with listMarkets rejecting: a wrapper, so the 500 path is tested over every backend. */
function failingListMarkets(store: Store): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'listMarkets') return () => Promise.reject(new Error('disk on fire at /secret/path'));
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The parsed JSON body; also checks the content type and the headers every response carries. */
export function body(r: AppResponse): Record<string, unknown> {
  expect(r.headers['Content-Type']).toBe('application/json; charset=utf-8');
  expect(r.headers['X-RateLimit-Limit']).toMatch(/^\d+$/);
  expect(r.headers['X-RateLimit-Remaining']).toMatch(/^\d+$/);
  expect(r.headers['X-RateLimit-Reset']).toMatch(/^\d+$/);
  expect(r.headers.Date).toMatch(/GMT$/);
  return JSON.parse(r.body) as Record<string, unknown>;
}

/** Use for n requests one after another (each awaited before the next starts): the clock steps in order. */
export async function inOrder<T>(n: number, f: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await f(i));
  return out;
}
