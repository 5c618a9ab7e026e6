// A core app over a small memory store for the route and dialect suites: markets of two coins,
// snapshots with depth, one market with the hosted service's details, and keys of every state.
import { expect } from 'vitest';
import { marketStartCovering } from '../../domain/market.js';
import { createApp, type AppResponse } from '../app.js';
import { MemoryStore } from './memory-store.js';

/** The clock the suites start at. */
export const T0 = Date.UTC(2025, 10, 22, 12, 0, 0);
const DAY = 86_400_000;
/** Start of the newest BTC 24hr market (rank 0); 20 of them, 40 snapshots each. */
export const NEWEST_24H = marketStartCovering('24hr', T0) - DAY;
/** The id of the BTC 24hr market of rank `rank` (0 = newest; the builder window holds 14). */
export const btc24 = (rank: number): string => `btc-updown-24hr-${(NEWEST_24H - rank * DAY) / 1000}`;
/** The newest ETH 1hr market (the active one at T0), 10 snapshots. */
export const ETH_1H = `eth-updown-1hr-${marketStartCovering('1hr', T0) / 1000}`;
/** The details btc24(0) carries. */
export const DETAILS = {
  event_id: '1234567',
  condition_id: `0x${'0f'.repeat(32)}`,
  clob_token_up: '7'.repeat(72),
  clob_token_down: '8'.repeat(75),
  final_volume: 1250.5,
  final_liquidity: 300,
  resolved_at: NEWEST_24H + DAY + 60_000,
  created_at: NEWEST_24H - DAY,
  updated_at: NEWEST_24H + DAY + 60_000,
};
/** btc24(0)'s depth at its second snapshot. */
export const BOOK = { bids: [{ price: 0.52, size: 120.5 }], asks: [{ price: 0.53, size: 7 }] };

type Headers = Record<string, string>;

/** Use per test: a fresh app and store; `get` moves the clock by `step` ms before each call. */
export function testApp(options: { step?: number; failing?: boolean } = {}) {
  const clock = { t: T0 };
  const store = new MemoryStore();
  store.addMarkets('BTC', '24hr', NEWEST_24H, 20, 40);
  store.addMarkets('ETH', '1hr', marketStartCovering('1hr', T0), 3, 10);
  store.setDetails(btc24(0), DETAILS);
  store.setOrderbook(btc24(0), NEWEST_24H + 125, BOOK, { bids: [], asks: [{ price: 0.48, size: 1 }] });
  store.addAccountWithKey({ name: 'b', plan: 'builder' }, 'key-builder', T0 - DAY);
  store.addAccountWithKey({ name: 'b', plan: 'builder' }, 'key-builder-2', T0 - DAY);
  store.addAccountWithKey({ name: 'p', plan: 'pro' }, 'key-pro', T0 - DAY);
  store.addAccountWithKey({ name: 't', plan: 'builder', trialEndsAt: T0 + 2 * DAY }, 'key-trial', T0 - DAY);
  store.addAccountWithKey({ name: 'old', plan: 'builder', trialEndsAt: T0 - 1 }, 'key-ended', T0 - 4 * DAY);
  store.addAccountWithKey({ name: 'e', plan: 'enterprise', requestsPerMinute: 100, burstPerSecond: 7 }, 'key-ent', T0);
  // The minute window refuses before the bucket does.
  store.addAccountWithKey({ name: 'slow', plan: 'enterprise', requestsPerMinute: 3, burstPerSecond: 50 }, 'key-slow', T0);
  const revoked = store.addAccountWithKey({ name: 'b', plan: 'builder' }, 'key-revoked', T0 - DAY);
  store.revokeKey(revoked.record.id, T0 - 1000);
  const expired = store.addAccountWithKey({ name: 'p', plan: 'pro' }, 'key-expired', T0 - DAY);
  store.expireKey(expired.record.id, T0 - 1000);
  if (options.failing) {
    store.listMarkets = () => Promise.reject(new Error('disk on fire at /secret/path'));
  }
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
  return { clock, store, app, call, get, logs };
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
