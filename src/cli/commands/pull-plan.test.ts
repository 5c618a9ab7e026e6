import { describe, expect, it } from 'vitest';
import type { Market } from '../../domain/market.js';
import { dryRunText, pacedSeconds, planPull } from './pull-plan.js';

const market = (id: string, count: number): Market => ({
  market_id: id, slug: id, coin: 'BTC', market_type: '1hr', status: 'resolved', start_time: 0, end_time: 3_600_000,
  price_start: 1, price_end: 2, winner: 'Up', snapshot_count: count,
});

describe('planPull', () => {
  it('counts what is missing per market, in pages of 10,000, and skips complete ones', () => {
    const stored: Record<string, number> = { a: 28_800, b: 12_000 };
    const plan = planPull([market('a', 28_800), market('b', 28_800), market('c', 7_192)], (id) => stored[id] ?? 0);
    expect(plan).toEqual({
      markets: [
        { marketId: 'b', rows: 16_800, requests: 2 },
        { marketId: 'c', rows: 7_192, requests: 1 },
      ],
      rows: 23_992,
      requests: 3,
      complete: 1,
      pageSize: 10_000,
    });
  });

  it('plans v4 runs in its pages of at most 1,000 rows', () => {
    const plan = planPull([market('a', 28_800), market('b', 7_192)], () => 0, 1000);
    expect(plan.markets.map((m) => m.requests)).toEqual([29, 8]);
    expect(dryRunText(plan, undefined, undefined)).toContain('total: 35,992 rows in 37 snapshot requests of up to 1,000 rows; nothing fetched');
  });
});

describe('pacedSeconds', () => {
  it('is the slower of the burst bucket and the sliding minute', () => {
    expect(pacedSeconds(0, 250, 12)).toBe(0);
    expect(pacedSeconds(12, 250, 12)).toBe(0);
    expect(pacedSeconds(36, 250, 12)).toBe(2);
    // 400 requests on builder: the minute window decides (one full minute waited).
    expect(pacedSeconds(400, 250, 12)).toBe(60);
    expect(pacedSeconds(1001, 250, 12)).toBe(240);
  });
});

describe('dryRunText', () => {
  it('names each market and the time at the key\'s limits', () => {
    const plan = planPull([market('btc-updown-1hr-1', 25_000)], () => 0);
    const limits = { plan: 'builder', trial: null, rate_limit: { requests_per_minute: 250, burst_per_second: 12 }, data_window: null, api_keys: null, usage: null };
    expect(dryRunText(plan, limits, undefined)).toBe(
      'dry run: 1 market to fetch\n  btc-updown-1hr-1: 25,000 rows, 3 requests\n' +
        "total: 25,000 rows in 3 snapshot requests of up to 10,000 rows, under a second at the builder key's limits (250/min, 12/s); nothing fetched",
    );
  });
});
