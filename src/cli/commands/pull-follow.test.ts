import { describe, expect, it } from 'vitest';
import type { Market } from '../../domain/market.js';
import { AuthError, HttpError, RateLimitedError, UnreachableError, WindowError } from '../../errors.js';
import { endedMarkets, FOLLOW_IDLE_MS, nextLook, passingTrouble } from './pull-follow.js';

const T0 = 1_763_769_600_000;
const FIVE = 300_000;
/** A 5m market starting `k` windows after T0, with `count` snapshots. */
const m5 = (k: number, count = 2400) => ({ market_id: `btc-updown-5m-${(T0 + k * FIVE) / 1000}`, start_time: T0 + k * FIVE, end_time: T0 + (k + 1) * FIVE, snapshot_count: count }) as Market;

describe('pull --follow: when to look', () => {
  it('wakes at the earliest running end plus the settle delay', () => {
    // Listed newest first: the running market (k=2) and two ended ones.
    expect(nextLook([m5(2), m5(1), m5(0)], T0 + 2 * FIVE + 10_000, '5m', 5_000)).toBe(T0 + 3 * FIVE + 5_000);
    // Within the settle delay of an end, that end is still the next look.
    expect(nextLook([m5(2), m5(1)], T0 + 2 * FIVE + 1_000, '5m', 5_000)).toBe(T0 + 2 * FIVE + 5_000);
  });

  it('with nothing running, asks again after the idle time, and never waits longer than a market lasts', () => {
    expect(nextLook([m5(0)], T0 + 2 * FIVE, '5m', 5_000)).toBe(T0 + 2 * FIVE + FOLLOW_IDLE_MS);
    expect(nextLook([], T0, '5m')).toBe(T0 + FOLLOW_IDLE_MS);
    // A 24hr market listed far ahead: a 5m pair still looks within 5 minutes.
    expect(nextLook([{ end_time: T0 + 86_400_000 }], T0, '5m')).toBe(T0 + FIVE);
  });
});

describe('pull --follow: which markets to pull', () => {
  it('takes the markets ended by the settle delay that have snapshots, oldest first', () => {
    const now = T0 + 3 * FIVE + 2_000;
    // m5(2) ended 2 s ago (not settled), m5(3) runs, m5(-1) never had a snapshot.
    expect(endedMarkets([m5(3), m5(2), m5(1), m5(0), m5(-1, 0)], now, 5_000).map((m) => m.market_id)).toEqual([m5(0).market_id, m5(1).market_id]);
    expect(endedMarkets([m5(3), m5(2)], now + 3_000, 5_000).map((m) => m.market_id)).toEqual([m5(2).market_id]);
  });
});

describe('pull --follow: what it waits out', () => {
  it('waits out the service being away, overloaded or limiting; ends on anything else', () => {
    expect(passingTrouble(new UnreachableError('connection refused'))).toBe(true);
    expect(passingTrouble(new RateLimitedError('429'))).toBe(true);
    expect(passingTrouble(new HttpError('503', 503, 'http://x/v1/markets', null))).toBe(true);
    expect(passingTrouble(new HttpError('400', 400, 'http://x/v1/markets', null))).toBe(false);
    expect(passingTrouble(new AuthError('revoked'))).toBe(false);
    expect(passingTrouble(new WindowError('outside the window'))).toBe(false);
    expect(passingTrouble(new Error('disk I/O error'))).toBe(false);
  });
});
