import { describe, expect, it } from 'vitest';
import { PLANS } from '../domain/plans.js';
import type { LimitConfig } from './key-limiter.js';
import { LimiterRegistry } from './limiter-registry.js';

const BUILDER: LimitConfig = { perMinute: PLANS.builder.requestsPerMinute!, burst: PLANS.builder.burstPerSecond! };
const PRO: LimitConfig = { perMinute: PLANS.pro.requestsPerMinute!, burst: PLANS.pro.burstPerSecond! };
const TWO: LimitConfig = { perMinute: 2, burst: 2 };

describe('LimiterRegistry', () => {
  it('keys never affect each other', () => {
    const reg = new LimiterRegistry<number>();
    for (let i = 0; i < 20; i++) reg.take(1, BUILDER, 0);
    expect(reg.take(1, BUILDER, 0).admitted).toBe(false);
    const other = reg.take(2, BUILDER, 0);
    expect(other.admitted).toBe(true);
    expect(other.remaining).toBe(249);
  });

  it('peek creates nothing; a refusal charges and creates nothing', () => {
    const reg = new LimiterRegistry<string>();
    expect(reg.peek('a', TWO, 0)).toMatchObject({ admitted: true, remaining: 1 });
    expect(reg.size).toBe(0);
    reg.take('a', TWO, 0);
    reg.take('a', TWO, 0);
    for (let i = 0; i < 10; i++) expect(reg.take('a', TWO, 0).admitted).toBe(false);
    expect(reg.size).toBe(1);
    expect(reg.peek('a', TWO, 60_000).remaining).toBe(1);
  });

  it('starts a key afresh when its config changes (a plan upgrade)', () => {
    const reg = new LimiterRegistry<number>();
    for (let i = 0; i < BUILDER.burst; i++) reg.take(1, BUILDER, 0);
    expect(reg.take(1, BUILDER, 0).admitted).toBe(false);
    expect(reg.take(1, PRO, 0)).toMatchObject({ admitted: true, remaining: PRO.perMinute - 1 });
  });

  it('holds at most maxEntries, dropping the least recently used first', () => {
    const reg = new LimiterRegistry<number>(60 * 60_000, 3);
    for (const k of [1, 2, 3]) reg.take(k, TWO, 0);
    reg.take(1, TWO, 1); // 1 is now the most recent; 2 the least
    reg.take(4, TWO, 2);
    expect(reg.size).toBe(3);
    // 1 kept its charge (one slot left), 2 was dropped (a fresh limiter: both slots).
    expect(reg.peek(1, TWO, 3).remaining).toBe(0);
    expect(reg.peek(2, TWO, 3).remaining).toBe(1);
    for (let k = 10; k < 10_000; k++) reg.take(k, TWO, 3);
    expect(reg.size).toBe(3);
  });

  it('sweep drops idle limiters only, never one whose window is still open', () => {
    const reg = new LimiterRegistry<number>(1000);
    const day: LimitConfig = { perMinute: 1, burst: 1, windowMs: 86_400_000 };
    reg.take(1, TWO, 0);
    reg.take(2, TWO, 0);
    reg.take(3, day, 0);
    reg.take(2, TWO, 65_000);
    reg.sweep(70_000);
    expect(reg.size).toBe(2);
    expect(reg.peek(2, TWO, 70_000).remaining).toBe(0);
    expect(reg.take(3, day, 70_000).admitted).toBe(false);
  });
});
