import { describe, expect, it } from 'vitest';
import { append, entry, expire, logWaitMs, newLog } from './sliding-log.js';

describe('sliding log', () => {
  it('keeps entries in (now - window, now]', () => {
    const log = newLog(3);
    append(log, 0);
    append(log, 10);
    expire(log, 60_000, 60_000);
    expect(log.size).toBe(1);
    expect(entry(log, 0)).toBe(10);
  });

  it('waits until the entry that must leave has left', () => {
    const log = newLog(2);
    append(log, 100);
    append(log, 200);
    expect(logWaitMs(log, 2, 60_000, 1000)).toBe(59_100);
    expire(log, 60_000, 60_100);
    expect(logWaitMs(log, 2, 60_000, 60_100)).toBe(0);
  });

  it('wraps around its ring', () => {
    const log = newLog(2);
    for (let t = 0; t < 10; t++) {
      expire(log, 5, t * 3);
      append(log, t * 3);
    }
    expect(log.size).toBe(2);
    expect([entry(log, 0), entry(log, 1)]).toEqual([24, 27]);
  });
});
