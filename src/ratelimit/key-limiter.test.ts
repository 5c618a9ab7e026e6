import { describe, expect, it } from 'vitest';
import { PLANS } from '../domain/plans.js';
import { KeyLimiter, type Decision, type LimitConfig } from './key-limiter.js';

const BUILDER: LimitConfig = { perMinute: PLANS.builder.requestsPerMinute!, burst: PLANS.builder.burstPerSecond! };
const PRO: LimitConfig = { perMinute: PLANS.pro.requestsPerMinute!, burst: PLANS.pro.burstPerSecond! };

function takeMany(l: KeyLimiter, n: number, at: number): Decision[] {
  return Array.from({ length: n }, () => l.take(at));
}

describe('KeyLimiter burst (token bucket)', () => {
  it('builder: 12 pass in one instant, the 13th gets 429 with Retry-After 1', () => {
    const l = new KeyLimiter(BUILDER, 0);
    const ds = takeMany(l, 13, 1000);
    expect(ds.slice(0, 12).every((d) => d.admitted)).toBe(true);
    expect(ds[12]!.admitted).toBe(false);
    expect(ds[12]!.retryAfterSec).toBe(1);
  });

  it('pro: 40 pass in one instant, the 41st gets 429', () => {
    const l = new KeyLimiter(PRO, 0);
    const ds = takeMany(l, 41, 0);
    expect(ds.filter((d) => d.admitted)).toHaveLength(40);
    expect(ds[40]!.admitted).toBe(false);
    expect(ds[40]!.retryAfterSec).toBe(1);
  });

  it('refills continuously at burst per second', () => {
    const l = new KeyLimiter(BUILDER, 0);
    takeMany(l, 12, 0);
    // One token takes 1000/12 = 83.3 ms.
    expect(l.take(83).admitted).toBe(false);
    expect(l.take(84).admitted).toBe(true);
    expect(l.take(84).admitted).toBe(false);
  });
});

describe('KeyLimiter headers', () => {
  it('Remaining drops by exactly 1 per admitted request and Limit is the minute limit', () => {
    const l = new KeyLimiter(BUILDER, 0);
    let t = 0;
    for (let i = 1; i <= 30; i++) {
      const d = l.take(t);
      expect(d.admitted).toBe(true);
      expect(d.limit).toBe(250);
      expect(d.remaining).toBe(250 - i);
      t += 100;
    }
  });

  it('Reset is when the oldest request leaves the window (epoch s, rounded up), now when empty', () => {
    const l = new KeyLimiter(BUILDER, 0);
    expect(l.peek(1_700_000_000_500).resetSec).toBe(1_700_000_001);
    const d = l.take(1_700_000_000_500);
    expect(d.resetSec).toBe(1_700_000_061);
    expect(l.take(1_700_000_030_000).resetSec).toBe(1_700_000_061);
  });

  it('peek reports without charging', () => {
    const l = new KeyLimiter(BUILDER, 0);
    for (let i = 0; i < 5; i++) expect(l.peek(0).remaining).toBe(249);
    expect(l.take(0).remaining).toBe(249);
  });
});

describe('KeyLimiter minute window (sliding log)', () => {
  it('250 requests 240 ms apart all pass; the 251st at 59.9 s is 429, one at 60.0 s passes', () => {
    const l = new KeyLimiter(BUILDER, 0);
    for (let i = 0; i < 250; i++) expect(l.take(i * 240).admitted).toBe(true);
    const late = l.take(59_900);
    expect(late.admitted).toBe(false);
    expect(late.remaining).toBe(0);
    expect(late.retryAfterSec).toBe(1);
    const onTime = l.take(60_000);
    expect(onTime.admitted).toBe(true);
    expect(onTime.remaining).toBe(0);
  });

  it('250 requests between 35 s and 60 s, then one at 61 s: 429 with Retry-After 34', () => {
    const l = new KeyLimiter(BUILDER, 0);
    for (let i = 0; i < 250; i++) expect(l.take(35_000 + i * 100).admitted).toBe(true);
    const d = l.take(61_000);
    expect(d.admitted).toBe(false);
    expect(d.retryAfterSec).toBe(34);
    expect(d.waitMs).toBe(34_000);
    expect(l.take(94_999).admitted).toBe(false);
    expect(l.take(95_000).admitted).toBe(true);
  });

  it('Retry-After covers both limits: the later of burst and minute', () => {
    const l = new KeyLimiter({ perMinute: 5, burst: 5 }, 0);
    takeMany(l, 5, 0);
    const d = l.take(500);
    expect(d.admitted).toBe(false);
    expect(d.retryAfterSec).toBe(60);
  });
});

describe('KeyLimiter rejections and the clock', () => {
  function exhausted(): KeyLimiter {
    const l = new KeyLimiter(BUILDER, 0);
    takeMany(l, 12, 10_000);
    return l;
  }

  it('100 rejected requests change nothing', () => {
    const probe = exhausted();
    const control = exhausted();
    for (let i = 0; i < 100; i++) expect(probe.take(10_000 + i * 0.8).admitted).toBe(false);
    for (const t of [10_080, 10_084, 10_084, 10_200, 11_000, 11_000, 11_000]) {
      expect(probe.take(t)).toEqual(control.take(t));
    }
  });

  it('a clock that moves backwards grants nothing', () => {
    const probe = exhausted();
    const control = exhausted();
    expect(probe.take(0).admitted).toBe(false);
    expect(probe.take(5_000).admitted).toBe(false);
    expect(probe.take(-1e12).admitted).toBe(false);
    // Back at the real time, exactly the same state as a limiter that never saw the past.
    for (const t of [10_083, 10_084, 10_084, 10_500]) expect(probe.take(t)).toEqual(control.take(t));
  });

  it('minute slots are not freed by going back in time', () => {
    const l = new KeyLimiter({ perMinute: 3, burst: 100 }, 0);
    takeMany(l, 3, 60_000);
    expect(l.take(0).admitted).toBe(false);
    expect(l.take(119_999).admitted).toBe(false);
    expect(l.take(120_000).admitted).toBe(true);
  });
});
