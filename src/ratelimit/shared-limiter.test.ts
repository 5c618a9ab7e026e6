import { describe, expect, it } from 'vitest';
import { PLANS } from '../domain/plans.js';
import { KeyLimiter, type LimitConfig } from './key-limiter.js';
import { LimiterUnavailableError, LocalLimiter } from './shared-limiter.js';

const BUILDER: LimitConfig = { perMinute: PLANS.builder.requestsPerMinute!, burst: PLANS.builder.burstPerSecond! };
const PRO: LimitConfig = { perMinute: PLANS.pro.requestsPerMinute!, burst: PLANS.pro.burstPerSecond! };

describe('LocalLimiter', () => {
  it('decides as a KeyLimiter per key, keys apart, and is always healthy', async () => {
    const local = new LocalLimiter();
    const reference = new KeyLimiter(BUILDER, 1000);
    for (let i = 0; i < 20; i++) {
      const at = 1000 + i * 7;
      expect(await local.take('k:1', BUILDER, at)).toEqual(reference.take(at));
      expect(await local.peek('k:1', BUILDER, at)).toEqual(reference.peek(at));
    }
    expect((await local.take('a:10.0.0.1', BUILDER, 1200)).remaining).toBe(BUILDER.perMinute - 1);
    expect(local.healthy).toBe(true);
    await local.close();
  });

  it('starts a key afresh when its limits change (a plan upgrade)', async () => {
    const local = new LocalLimiter();
    for (let i = 0; i < BUILDER.burst; i++) await local.take('k:1', BUILDER, 0);
    expect((await local.take('k:1', BUILDER, 0)).admitted).toBe(false);
    expect(await local.take('k:1', PRO, 0)).toMatchObject({ admitted: true, remaining: PRO.perMinute - 1 });
  });
});

describe('LimiterUnavailableError', () => {
  it('tells the 503 to retry after a second', () => {
    const err = new LimiterUnavailableError('down');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('LimiterUnavailableError');
    expect(err.retryAfterSec).toBe(1);
  });
});
