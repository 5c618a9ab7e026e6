// Paper maker (resting limit) orders end to end: the built CLI and `msnap serve --replay` as real
// processes over a seeded store with orderbooks. An order posted on a replay rests across
// restarts, fills when the replayed book crosses it, and its fill is the backtest engine's for
// the same order (a module posting it) on the same stored snapshots, under `cross` and `queue`; `paper post`
// of a crossing order exits 12, `paper cancel` frees its cash; on PostgreSQL two instances
// stepping the same order store its fill once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET_FEES, makerFee } from '../src/backtest/model/fee-model.js';
import { seriesFromSnapshots } from '../src/backtest/series/snapshot-series.js';
import type { Market, Snapshot } from '../src/domain/market.js';
import type { MarketSeries, OutcomeSide } from '../src/domain/market-series.js';
import { engineMakerFills } from '../src/paper/test-support/engine-maker.js';
import { buildIfStale, createKey, msnap, seed, startServe, type Served } from './support/msnap-process.js';
import { call, paperOnPostgres } from './support/paper-calls.js';
import { databaseAvailable, type ThrowawayDatabase } from './support/throwaway-database.js';

const noDatabase = !(await databaseAvailable());
if (noDatabase) console.warn('skipping the PostgreSQL part of "paper maker e2e": no server at 127.0.0.1:5432 and no PostgreSQL binaries');

const bestAsk = (series: MarketSeries, i: number, side: OutcomeSide) => {
  const b = series.book(i, side);
  return b && b.asks.length ? b.asks.prices[0]! : Infinity;
};

describe('paper maker orders through msnap serve --replay', { timeout: 300_000 }, () => {
  let dir: string;
  let db: string;
  let key: string;
  let market: Market | undefined;
  let series: MarketSeries;
  let side: OutcomeSide;
  /** The snapshot an order posted a minute into the market goes live on, a buy price the book reaches later, and where. */
  let live: number;
  let price: number;
  let crossAt: number;
  const running: Served[] = [];
  const serve = async (store: string, args: string[]) => {
    const s = await startServe(store, { args });
    running.push(s);
    return s;
  };
  const standing = (t: number) => ['--replay', String(t), '--speed', '0.001'];

  beforeAll(async () => {
    await buildIfStale();
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-paper-maker-'));
    db = path.join(dir, 'seeded.db');
    await seed(db, ['--days', '1', '--full', '5m=2,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-days', '1']);
    key = await createKey(db, 'bot', 'enterprise', ['--rpm', '100000', '--burst', '10000']);
    const s = await serve(db, ['--no-live']);
    // An ended 5m market with full snapshots (a seed run at a 5-minute boundary leaves the newest
    // one short) and a side whose best ask, at least 5 s (40 snapshots) after a minute in, falls
    // below every ask since: a buy at that ask posted a minute in rests untouched, then fills there.
    const ended = (await call(s.url, key, 'GET', '/v1/markets?coin=btc&market_type=5m&status=resolved&limit=5')).json.markets as Market[];
    for (const m of ended.filter((x) => x.snapshot_count > 2000)) {
      const snapshots: Snapshot[] = [];
      for (;;) {
        const page = (await call(s.url, key, 'GET', `/v1/markets/${m.market_id}/snapshots?include_orderbook=true&limit=1000&offset=${snapshots.length}`)).json;
        snapshots.push(...(page.snapshots as Snapshot[]));
        if (page.snapshots.length < 1000) break;
      }
      const at = snapshots.findIndex((x) => x.time === m.start_time + 60_000);
      const ms = seriesFromSnapshots(m, snapshots);
      for (const sd of ['up', 'down'] as const) {
        let lowest = bestAsk(ms, at, sd);
        let j = -1;
        for (let i = at + 1; at > 0 && i < snapshots.length && j < 0; i++) {
          if (i >= at + 40 && bestAsk(ms, i, sd) < lowest) j = i;
          lowest = Math.min(lowest, bestAsk(ms, i, sd));
        }
        if (j < 0 || market) continue;
        [market, series, live, side, price, crossAt] = [m, ms, at, sd, bestAsk(ms, j, sd), ms.time[j]!];
      }
    }
    await s.stop();
    expect(market).toBeDefined();
  }, 180_000);

  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop().catch(() => undefined)));
    rmSync(dir, { recursive: true, force: true });
  });

  it('rests across restarts and fills when the replayed book crosses it, as the backtest engine fills the same order', async () => {
    const a = await serve(db, [...standing(market!.start_time + 60_050), '--paper-cash', '500']);
    const env = { MSNAP_BASE_URL: a.url, MSNAP_API_KEY: key };
    const posted = await msnap(['paper', 'post', market!.market_id, side, 'buy', '10', '--price', String(price), '--json'], { env, cwd: dir });
    expect(posted.exitCode, String(posted.stderr)).toBe(0);
    const order = JSON.parse(String(posted.stdout));
    expect(order).toMatchObject({ status: 'open', type: 'limit', price, shares: 0, filled_at: market!.start_time + 60_000 });
    const idle = JSON.parse(String((await msnap(['paper', 'post', market!.market_id, side, 'buy', '5', '--price', '0.01', '--ttl', '1d', '--json'], { env, cwd: dir })).stdout));
    expect(idle.status).toBe('open');
    // Post-only: a buy at the best ask would fill at once; it is written, then exit 12.
    const crossing = await msnap(['paper', 'post', market!.market_id, side, 'buy', '1', '--price', String(bestAsk(series, live, side)), '--json'], { env, cwd: dir });
    expect(JSON.parse(String(crossing.stdout))).toMatchObject({ status: 'rejected', reason: 'crosses' });
    expect(String(crossing.stderr)).toMatch(/order \d+ rejected: crosses/);
    expect(crossing.exitCode).toBe(12);
    const open = await msnap(['paper', 'orders', '--open', '--json'], { env, cwd: dir });
    expect(JSON.parse(String(open.stdout)).map((o: { id: number }) => o.id)).toEqual([idle.id, order.id]);
    await a.stop();

    // Under queue: a second order at the deepest bid recorded joins behind the size there.
    const q = await serve(db, [...standing(market!.start_time + 60_050), '--paper-cash', '500', '--paper-maker-fill', 'queue']);
    const bids = series.book(live, side)!.bids;
    const bid = bids.prices[bids.length - 1]!;
    const queued = (await call(q.url, key, 'POST', '/v1/paper/orders', { type: 'limit', market_id: market!.market_id, side, action: 'buy', shares: 10, price: bid })).json.order;
    expect(queued.status).toBe('open');
    await q.stop();

    // A replay from before the cross, running: the order fills there, as the model says.
    const b = await serve(db, ['--replay', String(crossAt - 2000), '--speed', '4']);
    const cancelled = await msnap(['paper', 'cancel', String(idle.id), '--json'], { env: { MSNAP_BASE_URL: b.url, MSNAP_API_KEY: key }, cwd: dir });
    expect(cancelled.exitCode, String(cancelled.stderr)).toBe(0);
    expect(JSON.parse(String(cancelled.stdout))).toMatchObject({ id: idle.id, status: 'cancelled', shares: 0 });
    const envB = { MSNAP_BASE_URL: b.url, MSNAP_API_KEY: key };
    const again = await msnap(['paper', 'cancel', String(idle.id)], { env: envB, cwd: dir });
    expect([again.exitCode, String(again.stderr)]).toEqual([1, expect.stringMatching(/^msnap: .*is not resting \(status cancelled\)/)]);
    const unknown = await msnap(['paper', 'cancel', '99999999'], { env: envB, cwd: dir });
    expect([unknown.exitCode, String(unknown.stderr)]).toEqual([6, expect.stringMatching(/^msnap: No paper order with id 99999999\./)]);
    const noPrice = await msnap(['paper', 'post', market!.market_id, side, 'buy', '1'], { env: envB, cwd: dir });
    expect([noPrice.exitCode, String(noPrice.stderr)]).toEqual([2, expect.stringMatching(/^msnap: --price is required/)]);
    // The backtest engine, a module posting the same order on the same snapshot, over the same snapshots.
    const expected = await engineMakerFills(series, { side, action: 'buy', shares: 10, price, liveAt: series.time[live]! }, 'cross', 500);
    expect(expected.fills).toEqual([{ time: crossAt, shares: 10 }]);
    let filled: any;
    const deadline = Date.now() + 30_000;
    while ((filled = (await call(b.url, key, 'GET', `/v1/paper/orders/${order.id}`)).json.order).status === 'open') {
      if (Date.now() > deadline) throw new Error('the order did not fill');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(filled).toMatchObject({ status: 'filled', shares: 10, vwap: price, filled_at: crossAt, levels: 1, fee: expected.fee, rebate: expected.rebate });
    // Makers of this era pay no fee and earn 0.2 of a taker's fee.
    expect(makerFee(MARKET_FEES.scheduleFor(market!), 'buy', 10, price)).toEqual({ fee: 0, feeShares: 0, rebate: expected.rebate });
    expect(expected.rebate).toBeGreaterThan(0);
    await b.stop();

    // Near the market's end: the queue order holds what the model filled over every snapshot since.
    const end = market!.end_time - 1000;
    const c = await serve(db, standing(end));
    const last = (await call(c.url, key, 'GET', `/v1/paper/orders/${queued.id}`)).json.order;
    const engineQ = await engineMakerFills(series, { side, action: 'buy', shares: 10, price: bid, liveAt: series.time[live]! }, 'queue', 500, end);
    const qShares = engineQ.shares;
    expect(last).toMatchObject({ shares: engineQ.shares, fee: engineQ.fee, rebate: engineQ.rebate, levels: engineQ.levels });
    expect(last.status).toBe(qShares >= 10 ? 'filled' : 'open');
    if (engineQ.levels) expect(last).toMatchObject({ vwap: bid, filled_at: engineQ.filled_at });
    const account = (await call(c.url, key, 'GET', '/v1/paper/account')).json;
    // Rebates are earned at each fill and paid into cash at the market's end, as the backtest pays them.
    expect(account.rebates).toBeCloseTo(filled.rebate + last.rebate, 5);
    expect(account.cash + account.reserved_cash).toBeCloseTo(500 - 10 * price - qShares * bid, 6);
    expect(account.reserved_cash).toBeCloseTo((10 - qShares) * bid, 6);
    await c.stop();

    // After the market's end: the queue order's rest cancelled, the rebates paid, the positions settled.
    const d = await serve(db, standing(market!.end_time + 1000));
    const ended = (await call(d.url, key, 'GET', '/v1/paper/account')).json;
    const winner = (await call(d.url, key, 'GET', `/v1/markets/${market!.market_id}`)).json.winner as 'Up' | 'Down';
    const payout = (winner === 'Up') === (side === 'up') ? 1 : 0;
    expect(ended).toMatchObject({ positions: [], reserved_cash: 0, rebates: account.rebates });
    expect(ended.cash).toBeCloseTo(500 - 10 * price - qShares * bid + account.rebates + (10 + qShares) * payout, 6);
    if (qShares < 10) expect((await call(d.url, key, 'GET', `/v1/paper/orders/${queued.id}`)).json.order).toMatchObject({ status: 'cancelled', reason: 'market_end' });
    expect((await call(d.url, key, 'POST', '/v1/paper/reset')).status).toBe(200);
    await d.stop();
  });

  describe.skipIf(noDatabase)('two instances on one PostgreSQL', () => {
    let pg: ThrowawayDatabase;
    let pgKey: string;

    beforeAll(async () => {
      ({ pg, key: pgKey } = await paperOnPostgres(db, dir));
    }, 180_000);

    afterAll(async () => {
      await pg?.destroy();
    });

    it('store a resting order\'s fill once when both step it at once', async () => {
      const a = await serve(pg.url, [...standing(market!.start_time + 60_050), '--paper-cash', '100']);
      const order = (await call(a.url, pgKey, 'POST', '/v1/paper/orders', { type: 'limit', market_id: market!.market_id, side, action: 'buy', shares: 10, price })).json.order;
      expect(order.status).toBe('open');
      await a.stop();
      const [x, y] = await Promise.all([serve(pg.url, standing(crossAt + 50)), serve(pg.url, standing(crossAt + 50))]);
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i % 2 ? x!.url : y!.url, pgKey, 'GET', '/v1/paper/account')));
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
      const account = (await call(x!.url, pgKey, 'GET', '/v1/paper/account')).json;
      expect(account.positions).toEqual([{ market_id: market!.market_id, side, shares: 10, avg_price: price }]);
      // The rebate is earned, not paid yet (at the market's end).
      expect(account.cash).toBeCloseTo(100 - 10 * price, 6);
      expect(account.rebates).toBeGreaterThan(0);
      const sql = postgres(pg.url, { max: 1, onnotice: () => undefined });
      try {
        const rows = await sql<{ status: string; shares: number; levels: number }[]>`SELECT status, shares, levels FROM msnap.paper_orders`;
        expect(rows).toEqual([{ status: 'filled', shares: 10, levels: 1 }]);
        const [resting] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM msnap.paper_resting`;
        expect(resting!.n).toBe(0);
      } finally {
        await sql.end({ timeout: 1 });
      }
    });
  });
});
