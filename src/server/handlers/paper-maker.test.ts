// Resting limit orders through the app's core over a real SQLite file and a real PostgreSQL, on a
// hand-made 5m market with moving books and a data clock the test moves (a replay): an order
// posted on the newest snapshot fills when the book crosses it, exactly as the backtest engine
// fills the same order (a module posting it) on the same stored snapshots; it is listed while open,
// cancelled, closed at the market's end before its position settles, refused when malformed; and
// on PostgreSQL two instances stepping the same order at once store its fill once.
import { afterAll, describe, expect, it } from 'vitest';
import { availableBackends, usePostgres } from '../../../test/support/each-backend.js';
import { eraSchedule, takerFee } from '../../backtest/model/fee-model.js';
import { round5 } from '../../backtest/model/rounding.js';
import type { MakerFillModel } from '../../backtest/model/maker-fill.js';
import { seriesFromSnapshots } from '../../backtest/series/snapshot-series.js';
import { book, type Levels } from '../../backtest/test-support/markets.js';
import type { Market, Snapshot } from '../../domain/market.js';
import { engineMakerFills, type EngineFills } from '../../paper/test-support/engine-maker.js';
import { ReplayView } from '../../replay/replay-view.js';
import type { ServerClock } from '../../replay/server-clock.js';
import type { MirrorStore } from '../../store/mirror-store.js';
import { openPgStore, type PgStore } from '../../store/postgres/pg-store.js';
import type { Store } from '../../store/store.js';
import { PaperDesk } from '../../paper/paper-desk.js';
import type { LimitRequest } from '../../paper/paper-maker.js';
import { createApp, type AppResponse } from '../app.js';
import { openBackendStore, postgresUrl, removeBackendFiles } from '../test-support/backends.js';
import { NEWEST_24H, T0, type Backend } from '../test-support/test-app.js';

const JSON_TYPE = { 'content-type': 'application/json' };
// A 5m market inside the fixture's time, its up book moving a second at a time.
const S = NEWEST_24H + 3_600_000;
const M: Market = {
  market_id: `btc-updown-5m-${S / 1000}`,
  slug: `btc-updown-5m-${S / 1000}`,
  coin: 'BTC',
  market_type: '5m',
  status: 'resolved',
  start_time: S,
  end_time: S + 300_000,
  price_start: 100,
  price_end: 101,
  winner: 'Up',
  snapshot_count: 0,
};
/** Up books by second: bids at 0.45 from second 2 (12, then 20 joining behind, then 5 left); the ask reaches 0.45 at second 5. */
const BOOKS: [Levels, Levels][] = [
  [[[0.44, 100]], [[0.48, 50]]],
  [[[0.44, 100]], [[0.47, 50]]],
  [[[0.45, 12], [0.44, 100]], [[0.47, 50]]],
  [[[0.45, 20], [0.44, 100]], [[0.47, 50]]],
  [[[0.45, 5], [0.44, 100]], [[0.46, 50]]],
  [[[0.44, 100]], [[0.45, 8]]],
  [[[0.44, 100]], [[0.46, 50]]],
];
// A store keeps a snapshot's books when it has both sides; the down side stays put.
const DOWN = book([[0.52, 50]], [[0.55, 50]]);
const SNAPSHOTS: Snapshot[] = [
  ...BOOKS.map(([bids, asks], i) => ({ id: 0, market_id: M.market_id, time: S + i * 1000, price: 100, price_up: 0.46, price_down: 0.54, orderbook_up: book(bids, asks), orderbook_down: DOWN })),
  { id: 0, market_id: M.market_id, time: S + 299_000, price: 101, price_up: 0.9, price_down: 0.1, orderbook_up: book([[0.89, 10]], [[0.91, 10]]), orderbook_down: DOWN },
];

async function makerApp(backend: Backend, model: MakerFillModel = 'cross') {
  const store = (await openBackendStore(backend)) as Store & MirrorStore;
  const writer = store.mirrorWriter({ baseUrl: 'http://source.test', dialect: 'v1', pulledAt: T0 });
  await writer.market(M);
  await writer.page(M, SNAPSHOTS);
  const data = { t: S };
  const { post, get } = appOver(store, data, model);
  return { store, data, post, get };
}

/** An app (an instance) over `store` at the data clock `data.t`. */
function appOver(store: Store, data: { t: number }, model: MakerFillModel) {
  const wall = { t: T0 };
  const clock: ServerClock = { now: () => data.t, read: () => ({ now: data.t, speed: 1, mode: 'replay', until: null }) };
  const app = createApp({ store: new ReplayView(store, clock.now), clock, now: () => (wall.t += 100), version: '9.9.9', log: () => undefined, paper: { startCash: 100, makerFill: model } });
  const call = (method: string, url: string, headers: Record<string, string>, text?: string): Promise<AppResponse> =>
    app.handle({ method, url, headers, remoteAddress: '10.0.0.1', ...(text !== undefined ? { payload: { text, tooLarge: false } } : {}) });
  const post = (url: string, body: unknown = {}) => call('POST', url, { 'x-api-key': 'key-pro', ...JSON_TYPE }, JSON.stringify(body));
  const get = (url: string) => call('GET', url, { 'x-api-key': 'key-pro' });
  return { post, get };
}

const json = (r: AppResponse) => JSON.parse(r.body) as Record<string, any>;
const limit = (price: number, extra: Record<string, unknown> = {}) => ({ type: 'limit', market_id: M.market_id, side: 'up', action: 'buy', shares: 10, price, ...extra });

/** The stored snapshots the API shows at the clock, books included, as the backtest reads them. */
async function storedSeries(get: (url: string) => Promise<AppResponse>) {
  const page = json(await get(`/v1/markets/${M.market_id}/snapshots?include_orderbook=true&limit=1000`));
  return seriesFromSnapshots(M, page.snapshots as Snapshot[]);
}

const backends = availableBackends('paper maker orders on every SQL backend (paper-maker.test.ts)').filter((b) => b !== 'memory');

describe.each(backends)('paper limit orders over %s', (backend: Backend) => {
  if (backend === 'postgres') usePostgres();
  afterAll(removeBackendFiles);

  for (const model of ['cross', 'queue'] as const) {
    it(`${model}: fills when the replayed book reaches it, as the backtest engine fills it on the same snapshots`, async () => {
      const { data, post, get } = await makerApp(backend, model);
      data.t = S + 2500;
      const r = await post('/v1/paper/orders', limit(0.45));
      expect(r.status).toBe(201);
      const posted = json(r).order;
      expect(posted).toMatchObject({ status: 'open', type: 'limit', price: 0.45, shares: 0, vwap: null, filled_at: S + 2000, created_at: S + 2500, cash_after: 95.5 });
      expect(json(await get('/v1/paper/orders?status=open')).orders.map((o: any) => o.id)).toEqual([posted.id]);
      expect(json(await get('/v1/paper/account'))).toMatchObject({ cash: 95.5, reserved_cash: 4.5, positions: [] });
      // The backtest engine, a module posting the same order on the snapshot it went live on, over
      // the snapshots the API shows at the clock.
      let engine: EngineFills | undefined;
      for (const t of [S + 3500, S + 4500, S + 5500, S + 6500]) {
        data.t = t;
        const order = json(await get(`/v1/paper/orders/${posted.id}`)).order;
        engine = await engineMakerFills(await storedSeries(get), { side: 'up', action: 'buy', shares: 10, price: 0.45, liveAt: S + 2000 }, model, 100);
        expect(order.shares, `${model} at +${t - S}`).toBe(engine.shares);
        expect(order.status).toBe(engine.shares >= 10 ? 'filled' : 'open');
        expect(order).toMatchObject({ fee: engine.fee, fee_shares: engine.fee_shares, rebate: engine.rebate, levels: engine.levels });
        if (engine.levels) expect(order).toMatchObject({ vwap: 0.45, filled_at: engine.filled_at });
      }
      // cross: all 10 at second 5 (the ask reaches 0.45); queue: 3 at second 4 (a fall of 15 against 12 ahead), 7 at second 5.
      expect(engine!.fills).toEqual(model === 'cross' ? [{ time: S + 5000, shares: 10 }] : [{ time: S + 4000, shares: 3 }, { time: S + 5000, shares: 7 }]);
      const done = json(await get(`/v1/paper/orders/${posted.id}`)).order;
      expect(done).toMatchObject({ status: 'filled', shares: 10, filled_at: S + 5000 });
      expect(json(await get('/v1/paper/orders?status=open')).orders).toEqual([]);
      // A 5m market of 2025 pays 0.25 × (p(1 − p))² in shares, makers too: per fill, rounded.
      const account = json(await get('/v1/paper/account'));
      expect(account).toMatchObject({ cash: 95.5, reserved_cash: 0, fees: done.fee, rebates: 0 });
      expect(account.positions).toEqual([{ market_id: M.market_id, side: 'up', shares: 10 - done.fee_shares, avg_price: expect.closeTo(0.45 / (1 - done.fee_shares / 10), 6) }]);
      expect(done.fee_shares).toBe(round5(engine!.fills.reduce((sum, f) => sum + takerFee(eraSchedule(M), f.shares, 0.45), 0)));
    });
  }

  it('cancels a resting order (its reserve comes back), refuses to cancel one that is not resting', async () => {
    const { data, post, get } = await makerApp(backend);
    data.t = S + 500;
    const order = json(await post('/v1/paper/orders', limit(0.4))).order;
    expect(order.status).toBe('open');
    data.t = S + 2500;
    const cancelled = await post(`/v1/paper/orders/${order.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(json(cancelled).order).toMatchObject({ id: order.id, status: 'cancelled', shares: 0, cash_after: 100 });
    expect(json(await get('/v1/paper/account'))).toMatchObject({ cash: 100, reserved_cash: 0 });
    expect((await post(`/v1/paper/orders/${order.id}/cancel`)).status).toBe(409);
    expect((await post('/v1/paper/orders/999999/cancel')).status).toBe(404);
    expect((await post('/v1/paper/orders/abc/cancel')).status).toBe(404);
    expect((await post(`/v1/paper/orders/${order.id}/cancel`, { now: true })).status).toBe(400);
    expect((await get('/v1/paper/orders/999999')).status).toBe(404);
    // Post-only: a buy at the ask is refused, listed, and holds nothing.
    const crossing = json(await post('/v1/paper/orders', limit(0.47))).order;
    expect(crossing).toMatchObject({ status: 'rejected', reason: 'crosses', cash_after: 100 });
  });

  it('closes at the market\'s end after its last snapshot; then the position settles', async () => {
    const { data, post, get } = await makerApp(backend);
    data.t = S + 5500;
    await post('/v1/paper/orders', { market_id: M.market_id, side: 'up', action: 'buy', shares: 2 });
    const resting = json(await post('/v1/paper/orders', limit(0.3))).order;
    expect(resting.status).toBe('open');
    data.t = S + 300_000 + 10;
    const orders = json(await get('/v1/paper/orders')).orders;
    expect(orders.map((o: any) => [o.action, o.status, o.reason ?? null])).toEqual([
      ['settle', 'filled', null],
      ['buy', 'cancelled', 'market_end'],
      ['buy', 'filled', null],
    ]);
    expect(json(await get('/v1/paper/account'))).toMatchObject({ positions: [], reserved_cash: 0 });
  });

  it('refuses malformed limit orders with a 400 naming the field, never a 500', async () => {
    const { data, post, get } = await makerApp(backend);
    data.t = S + 1500;
    const bad: unknown[] = [
      limit(0),
      limit(1),
      limit(-0.2),
      limit(Number.NaN),
      { ...limit(0.4), price: '0.4' },
      { ...limit(0.4), price: undefined },
      limit(0.4, { ttl_ms: 0 }),
      limit(0.4, { ttl_ms: 1.5 }),
      limit(0.4, { ttl_ms: 1e15 }),
      limit(0.4, { post_only: false }),
      limit(0.4, { max_price: 0.5 }),
      limit(0.4, { type: 'stop' }),
      { market_id: M.market_id, side: 'up', action: 'buy', shares: 1, price: 0.4 },
      { market_id: M.market_id, side: 'up', action: 'buy', shares: 1, ttl_ms: 1000 },
    ];
    for (const body of bad) {
      const r = await post('/v1/paper/orders', body);
      expect.soft(r.status, JSON.stringify(body)).toBe(400);
      expect.soft(Object.keys(json(r)), JSON.stringify(body)).toEqual(['error', 'message']);
    }
    expect((await get('/v1/paper/orders?status=closed')).status).toBe(400);
    expect(json(await post('/v1/paper/orders', limit(0.4, { ttl_ms: 1000, post_only: true }))).order).toMatchObject({ status: 'open', expires_at: S + 2500 });
  });

  it('steps at most the snapshots a request may read; the next requests go on from there', async () => {
    const { store } = await makerApp(backend);
    const [key] = await store.listKeys();
    const req = (price: number): LimitRequest => ({ market_id: M.market_id, side: 'up', action: 'buy', shares: 10, price });
    // A desk of a request at clock `t` that may step 2 snapshots.
    const desk = (t: number) => new PaperDesk(new ReplayView(store, () => t), store.paper!, { startCash: 100 }, t, 2);
    const posted = await desk(S + 2500).post(key!.id, req(0.45), (await store.getMarket(M.market_id, S + 2500))!);
    expect(posted.status).toBe('open');
    const restingAt = async () => (await store.paper!.restingOrders(key!.id)).map((r) => r.evaluatedTo - S);
    expect(await restingAt()).toEqual([2000]);
    // Past the market's end: 2 snapshots a request (3000, 4000; then 5000, where the ask reaches 0.45).
    const late = S + 300_000 + 10;
    await desk(late).account(key!.id);
    expect(await restingAt()).toEqual([4000]);
    const second = await desk(late).orders(key!.id, 10, 0);
    expect(second.orders.find((o) => o.id === posted.id)).toMatchObject({ status: 'filled', filled_at: S + 5000 });
    // Its position settled in the same request, once the order had closed.
    expect(second.orders[0]).toMatchObject({ action: 'settle', shares: 10 - second.orders.find((o) => o.id === posted.id)!.fee_shares });
    expect(await restingAt()).toEqual([]);
    // A resting order that never fills closes at the market's end only once every snapshot was stepped.
    const idle = await desk(S + 2500).post(key!.id, req(0.3), (await store.getMarket(M.market_id, S + 2500))!);
    const status = async () => (await desk(late).orders(key!.id, 10, 0)).orders.find((o) => o.id === idle.id)!.status;
    expect([await status(), await status(), await status()]).toEqual(['open', 'open', 'cancelled']);
  });

  it.runIf(backend === 'postgres')('two instances stepping one order at once store its fill once', async () => {
    const { store, data, post, get } = await makerApp(backend);
    data.t = S + 2500;
    const order = json(await post('/v1/paper/orders', limit(0.45))).order;
    const second = await openPgStore(postgresUrl()!, { schema: (store as unknown as PgStore).schema, max: 2 });
    try {
      const other = appOver(second, data, 'cross');
      data.t = S + 6500;
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? other.get('/v1/paper/account') : get('/v1/paper/account'))));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      const account = json(await other.get('/v1/paper/account'));
      // One fill of 10 at 0.45, its fee 10 × 0.25 × (0.45 × 0.55)² = 0.15314 shares.
      expect(account.positions).toEqual([{ market_id: M.market_id, side: 'up', shares: 9.84686, avg_price: expect.any(Number) }]);
      expect(account).toMatchObject({ cash: 95.5, reserved_cash: 0 });
      expect(json(await get(`/v1/paper/orders/${order.id}`)).order).toMatchObject({ status: 'filled', shares: 10, levels: 1, fee_shares: 0.15314 });
      expect(json(await get('/v1/paper/orders')).total).toBe(1);
    } finally {
      await second.close();
    }
  });
});
