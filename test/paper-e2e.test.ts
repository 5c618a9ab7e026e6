// Paper trading end to end: the built CLI's `msnap serve` as real processes over a seeded store with
// orderbooks. On SQLite an account survives a restart and settles when the replay clock passes its
// market's end; on PostgreSQL two instances share one database and 100 concurrent orders of one key
// are applied exactly once, one after another, with the cash never below 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Market, Snapshot } from '../src/domain/market.js';
import { MARKET_FEES } from '../src/backtest/model/fee-model.js';
import { executeOrder, type PaperBook } from '../src/paper/paper-account.js';
import { buildIfStale, createKey, msnap, seed, startServe, type Served } from './support/msnap-process.js';
import { call, clockPast, paperOnPostgres } from './support/paper-calls.js';
import { databaseAvailable, type ThrowawayDatabase } from './support/throwaway-database.js';

const noDatabase = !(await databaseAvailable());
if (noDatabase) console.warn('skipping the PostgreSQL part of "paper trading e2e": no server at 127.0.0.1:5432 and no PostgreSQL binaries');

describe('paper trading through msnap serve', { timeout: 240_000 }, () => {
  let dir: string;
  let db: string;
  let key: string;
  let market: Market;
  const running: Served[] = [];
  const serve = async (store: string, args: string[]) => {
    const s = await startServe(store, { args });
    running.push(s);
    return s;
  };

  beforeAll(async () => {
    await buildIfStale();
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-paper-'));
    db = path.join(dir, 'seeded.db');
    await seed(db, ['--days', '1', '--full', '5m=2,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-days', '1']);
    key = await createKey(db, 'bot', 'enterprise', ['--rpm', '100000', '--burst', '10000']);
    // The newest 5m market that has ended holds full snapshots with books.
    const s = await serve(db, ['--no-live']);
    market = (await call(s.url, key, 'GET', '/v1/markets?coin=btc&market_type=5m&status=resolved&limit=1')).json.markets[0];
    await s.stop();
    expect(market.snapshot_count).toBeGreaterThan(2000);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop().catch(() => undefined)));
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the account across a restart', async () => {
    // A replay clock that all but stands still a minute into the market.
    const args = ['--replay', String(market.start_time + 60_050), '--speed', '0.001', '--paper-cash', '250'];
    const first = await serve(db, args);
    const order = await call(first.url, key, 'POST', '/v1/paper/orders', { market_id: market.market_id, side: 'down', action: 'buy', shares: 12 });
    expect(order.status).toBe(201);
    expect(order.json.order).toMatchObject({ status: 'filled', shares: 12, depth: true, filled_at: market.start_time + 60_000 });
    const account = (await call(first.url, key, 'GET', '/v1/paper/account')).json;
    expect(account.cash).toBe(order.json.order.cash_after);
    expect(account.positions).toEqual([{ market_id: market.market_id, side: 'down', shares: 12, avg_price: order.json.order.vwap }]);
    await first.stop();
    const second = await serve(db, args);
    expect((await call(second.url, key, 'GET', '/v1/paper/account')).json).toEqual(account);
    expect((await call(second.url, key, 'GET', '/v1/paper/orders')).json).toMatchObject({ orders: [order.json.order], total: 1 });
    expect((await call(second.url, key, 'POST', '/v1/paper/reset')).json).toEqual({ cash: 250, positions: [], realized_pnl: 0, fees: 0, reserved_cash: 0, rebates: 0 });
    // An order after the reset never takes an id an earlier order had (a bot refers to orders by id).
    const after = await call(second.url, key, 'POST', '/v1/paper/orders', { market_id: market.market_id, side: 'down', action: 'buy', shares: 1 });
    expect(after.json.order.id).toBeGreaterThan(order.json.order.id);
    expect((await call(second.url, key, 'POST', '/v1/paper/reset')).status).toBe(200);
    await second.stop();
  });

  it('settles when the replay clock passes the market\'s end', async () => {
    const s = await serve(db, ['--replay', String(market.start_time + 200_050), '--speed', '20', '--paper-cash', '250']);
    const up = (await call(s.url, key, 'POST', '/v1/paper/orders', { market_id: market.market_id, side: 'up', action: 'buy', shares: 10 })).json.order;
    const down = (await call(s.url, key, 'POST', '/v1/paper/orders', { market_id: market.market_id, side: 'down', action: 'buy', shares: 4 })).json.order;
    expect([up.status, down.status]).toEqual(['filled', 'filled']);
    await clockPast(s.url, key, market.end_time);
    const account = (await call(s.url, key, 'GET', '/v1/paper/account')).json;
    const winner = (await call(s.url, key, 'GET', `/v1/markets/${market.market_id}`)).json.winner as 'Up' | 'Down';
    expect(account.positions).toEqual([]);
    expect(account.cash).toBeCloseTo(down.cash_after + (winner === 'Up' ? 10 : 4), 6);
    const orders = (await call(s.url, key, 'GET', '/v1/paper/orders')).json;
    expect(orders.orders.slice(0, 2).map((o: any) => [o.action, o.side, o.vwap])).toEqual([
      ['settle', 'down', winner === 'Down' ? 1 : 0],
      ['settle', 'up', winner === 'Up' ? 1 : 0],
    ]);
    // A second read settles nothing again.
    expect((await call(s.url, key, 'GET', '/v1/paper/account')).json).toEqual(account);
    expect((await call(s.url, key, 'GET', '/v1/paper/orders')).json.total).toBe(4);
    // The CLI's client reads the same lines, settlements included.
    const cli = await msnap(['paper', 'orders', '--ndjson'], { env: { MSNAP_BASE_URL: s.url, MSNAP_API_KEY: key }, cwd: dir });
    expect(cli.exitCode, String(cli.stderr)).toBe(0);
    expect(String(cli.stdout).split('\n').map((l) => JSON.parse(l).action)).toEqual(['settle', 'settle', 'buy', 'buy']);
    await s.stop();
  });

  it('a rejected order is written, then ends with its reason and exit code 12; a filled one exits 0', async () => {
    const s = await serve(db, ['--replay', String(market.start_time + 60_050), '--speed', '0.001']);
    const env = { MSNAP_BASE_URL: s.url, MSNAP_API_KEY: key };
    const filled = await msnap(['paper', 'buy', market.market_id, 'up', '1', '--json'], { env, cwd: dir });
    expect(filled.exitCode, String(filled.stderr)).toBe(0);
    expect(JSON.parse(String(filled.stdout))).toMatchObject({ status: 'filled', shares: 1 });
    const cli = await msnap(['paper', 'sell', market.market_id, 'down', '1', '--json'], { env, cwd: dir });
    const order = JSON.parse(String(cli.stdout));
    expect(order).toMatchObject({ status: 'rejected', reason: 'no_position', shares: 0 });
    expect(String(cli.stderr)).toBe(`msnap: order ${order.id} rejected: no_position`);
    expect(cli.exitCode).toBe(12);
    expect((await call(s.url, key, 'POST', '/v1/paper/reset')).status).toBe(200);
    await s.stop();
  });

  describe.skipIf(noDatabase)('two instances on one PostgreSQL', () => {
    let pg: ThrowawayDatabase;
    let pgKey: string;

    beforeAll(async () => {
      ({ pg, key: pgKey } = await paperOnPostgres(db, dir));
    }, 180_000);

    afterAll(async () => {
      await Promise.all(running.map((s) => s.stop().catch(() => undefined)));
      await pg?.destroy();
    });

    it('applies 100 concurrent orders of one key exactly once, one after another, never below 0 cash', async () => {
      const args = ['--replay', String(market.start_time + 60_050), '--speed', '0.001', '--paper-cash', '100'];
      const [a, b] = await Promise.all([serve(pg.url, args), serve(pg.url, args)]);
      // Orders of about 4 USDC each at the quote the servers show: the 100 of them must run out of cash.
      const clock = (await call(a!.url, pgKey, 'GET', '/v1/clock')).json.now as number;
      const quoted = (await call(a!.url, pgKey, 'GET', `/v1/markets/${market.market_id}/snapshot-at/${clock}`)).json.snapshots[0] as Snapshot;
      const shares = Math.max(3, Math.ceil(4 / quoted.price_up));
      const req = { market_id: market.market_id, side: 'up' as const, action: 'buy' as const, shares };
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => call(i % 2 ? b!.url : a!.url, pgKey, 'POST', '/v1/paper/orders', req)));
      expect(answers.map((x) => x.status)).toEqual(Array(100).fill(201));
      const orders = answers.map((x) => x.json.order).sort((x, y) => x.id - y.id);
      expect(new Set(orders.map((o) => o.id)).size).toBe(100);

      // The same 100 orders one after another through the account logic, on the snapshot the servers show.
      const now = (await call(a!.url, pgKey, 'GET', '/v1/clock')).json.now as number;
      const shown = (await call(a!.url, pgKey, 'GET', `/v1/markets/${market.market_id}`)).json as Market;
      const snapshot = (await call(a!.url, pgKey, 'GET', `/v1/markets/${market.market_id}/snapshot-at/${now}?include_orderbook=true`)).json.snapshots[0] as Snapshot;
      const book: PaperBook = { money: { cash: 100, realizedPnl: 0, fees: 0, rebates: 0 }, positions: [], resting: [] };
      const expected = orders.map(() => executeOrder(book, req, shown, snapshot, MARKET_FEES, 0).lines[0]!);
      // A refused order's filled_at is the clock's now when it was refused.
      const strip = (o: Record<string, unknown>) => {
        const { id: _i, created_at: _c, filled_at: at, ...rest } = o;
        return o.status === 'rejected' ? rest : { ...rest, filled_at: at };
      };
      expect(orders.map(strip)).toEqual(expected.map((o) => strip(o as unknown as Record<string, unknown>)));
      const statuses = orders.map((o) => o.status);
      expect(statuses).toContain('filled');
      expect(statuses).toContain('rejected');
      for (const o of orders) expect(o.cash_after).toBeGreaterThanOrEqual(0);

      // Both instances read the one account; the database holds exactly the 100 lines.
      const accountA = (await call(a!.url, pgKey, 'GET', '/v1/paper/account')).json;
      expect((await call(b!.url, pgKey, 'GET', '/v1/paper/account')).json).toEqual(accountA);
      expect(accountA.cash).toBe(orders.at(-1).cash_after);
      expect(accountA.cash).toBeGreaterThanOrEqual(0);
      const sql = postgres(pg.url, { max: 1, onnotice: () => undefined });
      try {
        const [row] = await sql<{ n: number; neg: number }[]>`SELECT (SELECT count(*)::int FROM msnap.paper_orders) AS n, (SELECT count(*)::int FROM msnap.paper_accounts WHERE cash < 0) AS neg`;
        expect(row).toEqual({ n: 100, neg: 0 });
      } finally {
        await sql.end({ timeout: 1 });
      }
    });
  });
});
