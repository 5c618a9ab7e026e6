import { describe, expect, it } from 'vitest';
import { bucketWaitMs, newBucket, refill } from './token-bucket.js';

describe('token bucket', () => {
  it('starts full and never exceeds capacity', () => {
    const b = newBucket(5, 0);
    refill(b, 5, 5, 10_000);
    expect(b.tokens).toBe(5);
  });

  it('waits the time of one token when empty', () => {
    const b = newBucket(4, 0);
    b.tokens = 0;
    expect(bucketWaitMs(b, 4)).toBe(250);
    refill(b, 4, 4, 125);
    expect(bucketWaitMs(b, 4)).toBe(125);
    refill(b, 4, 4, 250);
    expect(bucketWaitMs(b, 4)).toBe(0);
  });

  it('ignores time going backwards', () => {
    const b = newBucket(4, 1000);
    b.tokens = 0;
    refill(b, 4, 4, 0);
    expect(b.tokens).toBe(0);
    expect(b.last).toBe(1000);
  });
});
