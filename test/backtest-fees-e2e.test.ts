// Fee schedules through the built CLI (BACKTEST.md "Fee schedule per market"): a seeded store, one
// market given a stored schedule with better-sqlite3 (as an import writes it), and `msnap backtest
// --db` charging that schedule, the era's on the others, and --fee-rate / --fees none over both;
// paper trading through `msnap serve` charging the same; several coins on one clock.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, msnap, seed, startServe } from './support/msnap-process.js';
import { CHEAP_UP_RULE } from './support/cheap-up-rule.js';

interface Trade {
  market_id: string;
  action: 'buy' | 'sell' | 'settle';
  shares: number;
  vwap: number;
  fee: number;
  levels: number;
  fee_shares: number;
}
interface Result {
  params: { fee_rate: number | null };
  summary: { fees: number };
  trades: Trade[];
}

let dir: string;
let db: string;
let rule: string;
let marketId: string;

const round5 = (x: number) => Math.round(x * 1e5 + 1e-7) / 1e5;
const backtest = async (args: string[]): Promise<Result> => {
  const r = await msnap(['backtest', rule, marketId, '--db', db, '--format', 'json', ...args], { cwd: dir, timeout: 60_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Result;
};

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-fees-'));
  db = path.join(dir, 'data.db');
  await seed(db, ['--days', '1', '--seed', '4', '--full', '5m=10,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-minutes', '30']);
  rule = path.join(dir, 'cheap-up.json');
  writeFileSync(rule, JSON.stringify(CHEAP_UP_RULE));
  // The first resolved 5m market the rule trades in, by a run over the newest markets.
  const all = await msnap(['backtest', rule, 'BTC', '5m', '--last', '10', '--db', db, '--format', 'json'], { cwd: dir, timeout: 60_000 });
  expect(all.exitCode, all.stderr).toBe(0);
  const traded = (JSON.parse(all.stdout) as Result).trades.filter((t) => t.action === 'buy' && t.levels === 1).map((t) => t.market_id);
  expect(traded.length).toBeGreaterThan(0);
  marketId = traded[0]!;
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each one-level trade's fee by BACKTEST.md's formula, written here: F = C × rate × (p(1 − p))^e per level. */
function expectFees(trades: Trade[], rate: number, exponent: number, buyInShares: boolean): void {
  const oneLevel = trades.filter((t) => t.action !== 'settle' && t.levels === 1);
  expect(oneLevel.length).toBeGreaterThan(0);
  for (const t of oneLevel) {
    const raw = t.shares * rate * (t.vwap * (1 - t.vwap)) ** exponent;
    const f = raw < 0.00001 ? 0 : round5(raw);
    if (t.action === 'buy' && buyInShares) expect([t.fee_shares, t.fee]).toEqual([f, round5(f * t.vwap)]);
    else expect([t.fee_shares, t.fee]).toEqual([0, f]);
  }
}

describe('msnap backtest charges each market its fee schedule', () => {
  it("charges a seeded market (no stored schedule) its era's: from 2026-04-28, 0.07 in USDC", async () => {
    const r = await backtest([]);
    expect(r.params.fee_rate).toBeNull();
    expectFees(r.trades, 0.07, 1, false);
  });

  it('charges the stored schedule once the market has one, buys paying in shares; --fee-rate and --fees none override it', async () => {
    const sqlite = new Database(db);
    sqlite.prepare('UPDATE markets SET fee_schedule = ? WHERE market_id = ?').run(
      JSON.stringify({ rate: 0.25, exponent: 2, taker_only: false, rebate_rate: 0, buy_fee_in: 'shares' }),
      marketId,
    );
    sqlite.close();
    const r = await backtest([]);
    expectFees(r.trades, 0.25, 2, true);
    const buys = r.trades.filter((t) => t.action === 'buy');
    expect(buys.some((t) => t.fee_shares > 0)).toBe(true);
    // The settlement pays what was received: shares bought less the fee shares, less shares sold.
    const held = r.trades.reduce((h, t) => (t.action === 'buy' ? h + t.shares - t.fee_shares : t.action === 'sell' ? h - t.shares : h), 0);
    const settled = r.trades.filter((t) => t.action === 'settle').reduce((s, t) => s + t.shares, 0);
    expect(settled).toBeCloseTo(held, 6);

    const flat = await backtest(['--fee-rate', '0.02']);
    expect(flat.params.fee_rate).toBe(0.02);
    expectFees(flat.trades, 0.02, 1, false);
    const none = await backtest(['--fees', 'none']);
    expect(none.summary.fees).toBe(0);
    expect(none.trades.every((t) => t.fee === 0 && t.fee_shares === 0)).toBe(true);
  });

  it('paper trading through msnap serve charges the stored schedule as the backtest does on the same snapshot', async () => {
    const buy = (await backtest([])).trades.find((t) => t.action === 'buy')! as Trade & { filled_at: number; cash_after: number };
    expect(buy.fee_shares).toBeGreaterThan(0);
    const key = await createKey(db, 'bot', 'enterprise', ['--rpm', '100000', '--burst', '10000']);
    // A replay clock that all but stands still just after the backtest's buy snapshot.
    const served = await startServe(db, { args: ['--replay', String(buy.filled_at + 50), '--speed', '0.001'] });
    try {
      const res = await fetch(`${served.url}/v1/paper/orders`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ market_id: marketId, side: 'up', action: 'buy', shares: CHEAP_UP_RULE.size }),
      });
      expect(res.status).toBe(201);
      const order = ((await res.json()) as { order: Record<string, unknown> }).order;
      const pick = (o: Record<string, unknown>) => ({ shares: o.shares, vwap: o.vwap, fee: o.fee, fee_shares: o.fee_shares, levels: o.levels, cash_after: o.cash_after, filled_at: o.filled_at });
      expect(pick(order)).toEqual(pick(buy as unknown as Record<string, unknown>));
      const account = (await (await fetch(`${served.url}/v1/paper/account`, { headers: { 'X-API-Key': key } })).json()) as { positions: { shares: number }[] };
      expect(account.positions[0]!.shares).toBeCloseTo(buy.shares - buy.fee_shares, 6);
    } finally {
      await served.stop();
    }
  });

  it('runs several coins and types on one clock: trades and equity in time order, market pnls adding up', async () => {
    const r = await msnap(['backtest', rule, 'BTC,ETH', '5m', '--last', '4', '--db', db, '--format', 'json'], { cwd: dir, timeout: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Result & {
      data: { markets: number };
      summary: { pnl: number };
      markets: { market_id: string; pnl: number }[];
      equity: { time: number }[];
      trades: (Trade & { filled_at: number })[];
    };
    expect(out.data.markets).toBe(8);
    const coins = new Set(out.trades.map((t) => t.market_id.slice(0, 3)));
    expect([...coins].sort()).toEqual(['btc', 'eth']);
    const times = out.trades.map((t) => t.filled_at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const ends = out.equity.map((e) => e.time);
    expect(ends).toEqual([...ends].sort((a, b) => a - b));
    expect(out.markets.reduce((s, m) => s + m.pnl, 0)).toBeCloseTo(out.summary.pnl, 5);
  });

  it('writes fee_shares as the last column of --trades', async () => {
    const file = path.join(dir, 'trades.csv');
    const r = await msnap(['backtest', rule, marketId, '--db', db, '--trades', file, '--format', 'json'], { cwd: dir, timeout: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const head = readFileSync(file, 'utf8').split('\n')[0]!;
    expect(head).toBe('market_id,side,action,decided_at,filled_at,shares_requested,shares,vwap,fee,cash_after,depth,levels,fee_shares');
  });
});
