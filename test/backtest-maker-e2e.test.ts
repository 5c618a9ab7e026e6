// Maker orders through the built CLI (BACKTEST.md "Maker orders"): a seeded store with books on
// every snapshot; examples/maker-quotes.js on BTC,ETH 5m under both fill models (fills, no fees,
// rebates, cross filling no more than queue); a maker rule against the plain reference on the
// same markets read back through `msnap markets` and `msnap snapshots`; the JSON, trades and HTML
// fields; a bad --maker-fill refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Market, Snapshot } from '../src/domain/market.js';
import type { BacktestResult } from '../src/backtest/result.js';
import { referenceBacktest, type RefRule } from '../src/backtest/test-support/reference-backtest.js';
import { lastDigit } from '../src/backtest/test-support/random-case.js';
import { buildIfStale, msnap, ROOT, seed } from './support/msnap-process.js';

let dir: string;
let db: string;
const EXAMPLE = path.join(ROOT, 'examples/maker-quotes.js');
const round5 = (x: number) => Math.round(x * 1e5 + 1e-7) / 1e5;

async function backtest(args: string[]): Promise<BacktestResult> {
  const r = await msnap(['backtest', ...args, '--db', db, '--format', 'json'], { cwd: dir, timeout: 120_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as BacktestResult;
}

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-maker-'));
  db = path.join(dir, 'demo.db');
  // The newest 5m markets of each coin, every snapshot with books (the demo data, smaller).
  await seed(db, ['--days', '1', '--seed', '4', '--full', '5m=4,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-days', '1']);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('msnap backtest with maker orders', () => {
  it('quotes with examples/maker-quotes.js: fills, no fees, rebates; cross fills no more than queue', async () => {
    const queue = await backtest([EXAMPLE, 'BTC,ETH', '5m', '--last', '288', '--maker-fill', 'queue']);
    const cross = await backtest([EXAMPLE, 'BTC,ETH', '5m', '--last', '288', '--maker-fill', 'cross']);
    expect(queue.params.maker_fill).toBe('queue');
    expect(cross.params.maker_fill).toBe('cross');
    for (const r of [queue, cross]) {
      // Markets of the era where makers pay nothing and earn 20% of the taker fee.
      expect(r.summary.maker_fills).toBeGreaterThan(0);
      expect(r.summary.fees).toBe(0);
      expect(r.summary.rebates).toBeGreaterThan(0);
      const fills = r.trades.filter((t) => t.kind === 'maker');
      expect(fills.length).toBe(r.summary.maker_fills);
      // 0.2 × the taker fee of the same fill, shares × 0.07 × p × (1 − p), each to 5 decimals.
      for (const t of fills) expect(t.rebate).toBe(round5(0.2 * round5(t.shares * 0.07 * t.vwap * (1 - t.vwap))));
      const rebates = Math.round(fills.reduce((a, t) => a + t.rebate!, 0) * 1e5) / 1e5;
      expect(r.summary.rebates).toBeCloseTo(rebates, 5);
    }
    expect(cross.summary.shares_bought).toBeLessThanOrEqual(queue.summary.shares_bought);
  });

  it('agrees with the plain reference on a maker rule under both fill models', async () => {
    const rule: RefRule = {
      name: 'maker-up',
      side: 'up',
      size: 10,
      entry: [{ field: 'elapsed_ms', op: '>=', value: 10_000 }],
      exit: [{ field: 'bid', op: '>', value: 0.55 }],
      max_entries: 3,
      entry_maker: { price: 'bid', offset: 0, ttl_ms: 20_000 },
      exit_maker: { price: 'ask', offset: 0, ttl_ms: 10_000 },
    };
    const file = path.join(dir, 'maker-up.json');
    writeFileSync(file, JSON.stringify(rule));
    // The same markets and snapshots, read back through the CLI as records.
    const snaps = await msnap(['snapshots', 'BTC', '5m', '--last', '3', '--orderbook', '--db', db, '--format', 'ndjson'], { cwd: dir, timeout: 120_000 });
    expect(snaps.exitCode, snaps.stderr).toBe(0);
    const records = snaps.stdout.trim().split('\n').map((l) => JSON.parse(l) as Snapshot);
    const ids = [...new Set(records.map((s) => s.market_id))];
    expect(ids).toHaveLength(3);
    const list = await msnap(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '20', '--db', db, '--format', 'json'], { cwd: dir });
    expect(list.exitCode, list.stderr).toBe(0);
    const markets = (JSON.parse(list.stdout) as Market[]).filter((m) => ids.includes(m.market_id));
    const hands = markets.map((market) => ({ market, snapshots: records.filter((s) => s.market_id === market.market_id) }));
    for (const model of ['cross', 'queue'] as const) {
      const got = await backtest([file, 'BTC', '5m', '--last', '3', '--maker-fill', model]);
      const ref = referenceBacktest(rule, hands, { cash: 1000, latency_ms: 0, fees: 'taker', no_book: 'quote', maker_fill: model });
      expect(got.summary.maker_fills).toBeGreaterThan(0);
      expect(got.trades).toEqual(lastDigit(ref.trades));
      expect(got.markets).toEqual(lastDigit(ref.markets));
      expect(got.summary).toEqual(lastDigit(ref.summary));
    }
  });

  it('writes kind and rebate in --trades and the HTML report, and fee_shares there too', async () => {
    const trades = path.join(dir, 'trades.csv');
    const html = path.join(dir, 'report.html');
    const r = await msnap(['backtest', EXAMPLE, 'BTC', '5m', '--last', '2', '--db', db, '--maker-fill', 'queue', '--trades', trades, '--html', html, '--format', 'json'], { cwd: dir, timeout: 120_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(trades, 'utf8').split('\n')[0]).toBe('market_id,side,action,decided_at,filled_at,shares_requested,shares,vwap,fee,cash_after,depth,levels,fee_shares,kind,rebate');
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<th>fee_shares</th>');
    expect(page).toContain('<th>rebate</th>');
    expect(page).toMatch(/<tr><th>rebates<\/th><td>0\.\d+<\/td><\/tr>/);
    expect(page).toMatch(/<tr><th>maker_fill<\/th><td>queue<\/td><\/tr>/);
  });

  it('refuses a bad --maker-fill with exit 2 before reading any data', async () => {
    const r = await msnap(['backtest', EXAMPLE, 'BTC', '5m', '--db', path.join(dir, 'none.db'), '--maker-fill', 'front'], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe("msnap: --maker-fill takes 'cross' (the default) or 'queue', got 'front'");
  });
});
