// At a fixed replay `now`, no answer of any endpoint in any dialect shows a market that has not
// started or a snapshot after `now` (lists, totals, status, counts, pages, at-timestamp,
// snapshot-at), on every backend; and the unbounded store, asked the same, does show them.
import { afterAll, describe, expect, it } from 'vitest';
import { availableBackends, usePostgres } from '../../test/support/each-backend.js';
import { createApp, type AppResponse } from '../server/app.js';
import { openBackendStore, removeBackendFiles } from '../server/test-support/backends.js';
import { btc24, ETH_1H, NEWEST_24H, T0, type Backend } from '../server/test-support/test-app.js';
import type { Store } from '../store/store.js';
import { ReplayView } from './replay-view.js';
import { replayClock } from './server-clock.js';

// btc24(0) has snapshots every 125 ms from its start (40 of them): at NOW those at 0..2500 are
// visible (21) and the one at 2625 is not; the ETH 1hr markets all start after NOW.
const NOW = NEWEST_24H + 2600;
const VISIBLE = 21;
const iso = (ms: number) => new Date(ms).toISOString();

const URLS = [
  '/api/v1/markets?coin=btc&limit=5',
  '/api/v1/markets?limit=1000',
  '/v1/markets?status=active',
  '/v1/markets?status=resolved&coin=btc&market_type=24hr&limit=3',
  `/api/v1/markets/${btc24(0)}`,
  `/api/v1/markets/${btc24(0)}/snapshots?include_orderbook=true&limit=10000`,
  `/api/v1/markets/${btc24(0)}/snapshots?start_time=${NEWEST_24H + 2000}`,
  `/v1/markets/${btc24(0)}/snapshot-at/${NOW - 10}?include_orderbook=true`,
  `/v1/snapshots/at-timestamp?market=${btc24(0)}&ts=${NOW - 10}`,
  `/v1/snapshots/at-timestamp?market=${btc24(0)}&ts=${NOW + 60}`,
  '/v2/markets?coin=btc&limit=3',
  '/v2/markets?coin=eth',
  `/v2/markets/${btc24(0)}?coin=btc`,
  `/v2/markets/${btc24(0)}/snapshots?coin=btc&limit=100`,
  `/v2/markets/${btc24(0)}/snapshot-at/${encodeURIComponent(iso(NOW - 10))}?coin=btc`,
  '/v4/markets?coin=btc&limit=5',
  '/v4/markets?coin=eth',
  `/v4/markets/${btc24(0)}?coin=btc`,
  `/v4/markets/by-slug/${btc24(0)}?coin=btc`,
  `/v4/markets/${btc24(0)}/snapshots?coin=btc&include_orderbook=true&limit=100`,
  `/v4/markets/${btc24(0)}/snapshot-at/${NOW - 10}?coin=btc`,
];

/** Every time in a body that would be news after `now`; end_time and the asked `ts` are known ahead. */
const TIME_KEYS = new Set(['time', 'timestamp', 'start_time', 'resolved_at', 'updated_at', 'created_at']);

/** What in `value` breaks the replay's promise at `now`: times after it, and ended-looking markets that are still running. */
function lookAhead(value: unknown, now: number, where = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => lookAhead(v, now, `${where}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  const o = value as Record<string, unknown>;
  const found: string[] = [];
  for (const [k, v] of Object.entries(o)) {
    const t = typeof v === 'number' ? v : typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? Date.parse(v) : undefined;
    if (TIME_KEYS.has(k) && t !== undefined && t > now) found.push(`${where}.${k} = ${String(v)}`);
    else found.push(...lookAhead(v, now, `${where}.${k}`));
  }
  const end = typeof o.end_time === 'string' ? Date.parse(o.end_time) : o.end_time;
  if (typeof end === 'number' && end > now) {
    for (const k of Object.keys(o)) {
      if ((/price_end$/.test(k) || k === 'winner' || k === 'resolved_at') && o[k] !== null) found.push(`${where}.${k} of a running market`);
    }
  }
  return found;
}

async function ask(store: Store, url: string, now: number, key = 'key-pro'): Promise<AppResponse> {
  const clock = replayClock({ from: now, until: now + 86_400_000, speed: 1, wall: () => T0 });
  const app = createApp({ store, clock, now: () => T0, version: '9.9.9', log: () => undefined });
  return app.handle({ method: 'GET', url, headers: { 'x-api-key': key }, remoteAddress: '10.0.0.1' });
}

const json = (r: AppResponse) => JSON.parse(r.body) as Record<string, unknown>;
const backends = availableBackends('replay view on every backend (replay-view.test.ts)');

describe.each(backends)('a replay at a fixed now over %s', (backend: Backend) => {
  if (backend === 'postgres') usePostgres();
  afterAll(removeBackendFiles);

  it('shows nothing after now in any answer of any dialect', async () => {
    const store = await openBackendStore(backend);
    const view = new ReplayView(store, () => NOW);
    for (const url of URLS) {
      const r = await ask(view, url, NOW);
      expect.soft(r.status, url).toBe(200);
      expect.soft(lookAhead(json(r), NOW), url).toEqual([]);
    }
  });

  it('the unbounded store, asked the same, shows what the replay hides (the check can fail)', async () => {
    const store = await openBackendStore(backend);
    const leaks = [];
    for (const url of URLS) leaks.push(...lookAhead(json(await ask(store, url, NOW)), NOW));
    expect(leaks.length).toBeGreaterThan(0);
  });

  it('counts, totals and status at now', async () => {
    const view = new ReplayView(await openBackendStore(backend), () => NOW);
    const market = json(await ask(view, `/api/v1/markets/${btc24(0)}`, NOW));
    expect(market).toMatchObject({ status: 'active', snapshot_count: VISIBLE, price_end: null, winner: null, resolved_at: null });
    const page = json(await ask(view, `/api/v1/markets/${btc24(0)}/snapshots`, NOW));
    expect((page.snapshots as unknown[]).length).toBe(VISIBLE);
    expect(page.total).toBe(VISIBLE);
    expect(json(await ask(view, '/v1/markets?status=active', NOW)).total).toBe(1);
    expect(json(await ask(view, '/api/v1/markets?coin=btc', NOW)).total).toBe(20);
    expect(json(await ask(view, '/api/v1/markets?coin=eth', NOW)).total).toBe(0);
    // The snapshot nearest NOW - 10 is at NOW + 25, not yet taken: the answer is the last one before.
    const at = json(await ask(view, `/v1/snapshots/at-timestamp?market=${btc24(0)}&ts=${NOW - 10}`, NOW));
    expect((at.snapshot as { time: number }).time).toBe(NEWEST_24H + 2500);
  });

  it('a market that has not started is unknown in every dialect', async () => {
    const view = new ReplayView(await openBackendStore(backend), () => NOW);
    for (const url of [`/api/v1/markets/${ETH_1H}`, `/v2/markets/${ETH_1H}?coin=eth`, `/v4/markets/${ETH_1H}?coin=eth`, `/v4/markets/${ETH_1H}/snapshots?coin=eth`]) {
      expect.soft((await ask(view, url, NOW)).status, url).toBe(404);
    }
  });

  it('the builder window counts only markets that have started', async () => {
    // Before btc24(0) starts, the 14 newest BTC 24hr markets are btc24(1) .. btc24(14).
    const before = NEWEST_24H - 1;
    const view = new ReplayView(await openBackendStore(backend), () => before);
    const list = json(await ask(view, '/api/v1/markets?coin=btc&market_type=24hr&limit=100', before, 'key-builder'));
    expect((list.markets as { market_id: string }[]).map((m) => m.market_id)).toEqual(Array.from({ length: 14 }, (_, i) => btc24(i + 1)));
    expect((await ask(view, `/api/v1/markets/${btc24(14)}`, before, 'key-builder')).status).toBe(200);
    expect((await ask(view, `/api/v1/markets/${btc24(15)}`, before, 'key-builder')).status).toBe(403);
    expect((await ask(view, '/api/v1/markets?limit=100', before, 'key-builder')).status).toBe(200);
  });

  it('GET /v1/clock reports the replay', async () => {
    const r = await ask(new ReplayView(await openBackendStore(backend), () => NOW), '/v1/clock', NOW);
    expect(json(r)).toEqual({ now: NOW, speed: 1, mode: 'replay', until: NOW + 86_400_000 });
  });
});
