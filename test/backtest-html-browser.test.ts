// The --html report in a real headless browser (Debian's chromium through playwright-core): it
// draws the equity curve, the PnL histogram and the trades from the page alone, asking the
// network for nothing.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../src/backtest/engine/engine.js';
import { renderHtmlReport } from '../src/backtest/html-report.js';
import type { BacktestResult } from '../src/backtest/model/result.js';
import { book, seriesOf, snap, sourceOf, testMarket } from '../src/backtest/test-support/markets.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--headless'];

let browser: Browser;
let result: BacktestResult;
let file: string;

beforeAll(async () => {
  const markets = Array.from({ length: 12 }, (_, k) => {
    const m = testMarket(k, k % 3 === 0 ? 'Down' : 'Up');
    const ask = 0.2 + (k % 5) * 0.05;
    return seriesOf(m, [snap(m, 0, ask, { up: book([[ask - 0.01, 50]], [[ask, 6], [ask + 0.02, 50]]) }), snap(m, 1000, ask + 0.1)]);
  });
  result = await runBacktest({ name: 'html <check>', side: 'up', size: 10, entry: [{ field: 'ask', op: '<', value: 0.5 }] }, sourceOf(...markets));
  file = path.join(mkdtempSync(path.join(os.tmpdir(), 'msnap-html-')), 'report.html');
  writeFileSync(file, renderHtmlReport(result));
  if (existsSync(CHROMIUM)) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 60_000);
afterAll(async () => browser?.close());

describe.runIf(existsSync(CHROMIUM))('backtest --html page', () => {
  it('shows the summary, the equity curve, the histogram and every trade, offline', async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`file://${file}`);
    expect(await page.title()).toBe('msnap backtest: html <check>');
    // One point per traded market plus the starting cash.
    const points = await page.locator('svg[aria-label="equity curve"] polyline').getAttribute('points');
    expect(points!.trim().split(' ')).toHaveLength(result.equity.length + 1);
    // Every traded market falls in one bar of the histogram.
    const bars = await page.locator('svg[aria-label="per-market pnl histogram"] rect title').allTextContents();
    expect(bars.reduce((n, t) => n + Number(t.split(': ')[1]), 0)).toBe(result.markets.length);
    expect(await page.locator('#trades tbody tr').count()).toBe(result.trades.length);
    expect(await page.locator('#summary').textContent()).toContain(String(result.summary.pnl));
    const box = await page.locator('svg[aria-label="equity curve"]').boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
  });

  it('dates the equity axis and scrolls the trades inside their box, never the page', async () => {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    await page.goto(`file://${file}`);
    const labels = await page.locator('svg[aria-label="equity curve"] text').allTextContents();
    const dates = labels.filter((t) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/.test(t));
    expect(dates[0]).toBe(new Date(result.data.from!).toISOString().slice(0, 16).replace('T', ' '));
    expect(dates.at(-1)).toBe(new Date(result.equity.at(-1)!.time).toISOString().slice(0, 16).replace('T', ' '));
    const widths = await page.evaluate(() => {
      const table = document.querySelector('#trades')!;
      return { page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth, table: table.scrollWidth, box: table.parentElement!.clientWidth };
    });
    // The table is wider than its box (so the box scrolls), and the page itself does not scroll sideways.
    expect(widths.table).toBeGreaterThan(widths.box);
    expect(widths.page).toBeLessThanOrEqual(widths.view);
  });
});
