import { describe, expect, it } from 'vitest';
import { KeyLimiter } from './key-limiter.js';

describe('KeyLimiter (smoke)', () => {
  it('admits the burst and then rejects in the same instant', () => {
    const l = new KeyLimiter({ perMinute: 250, burst: 12 }, 0);
    for (let i = 0; i < 12; i++) expect(l.take(0).admitted).toBe(true);
    const d = l.take(0);
    expect(d.admitted).toBe(false);
    expect(d.retryAfterSec).toBe(1);
  });
});
