import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { parseTime } from './time.js';

const NOW = Date.UTC(2025, 10, 22, 12, 0, 0);

describe('parseTime', () => {
  it('reads epoch milliseconds and epoch seconds', () => {
    expect(parseTime('1763769600125', NOW)).toBe(1763769600125);
    expect(parseTime('1763769600', NOW)).toBe(1763769600000);
  });

  it('refuses bare numbers of other lengths as ambiguous', () => {
    for (const v of ['0', '123', '17637696001', '176376960012', '17637696001250']) {
      expect(() => parseTime(v, NOW)).toThrow(/ambiguous/);
    }
  });

  it('reads ISO dates and date-times with a zone', () => {
    expect(parseTime('2025-11-22', NOW)).toBe(Date.UTC(2025, 10, 22));
    expect(parseTime('2025-11-22T10:00:00Z', NOW)).toBe(Date.UTC(2025, 10, 22, 10));
    expect(parseTime('2025-11-22T10:00Z', NOW)).toBe(Date.UTC(2025, 10, 22, 10));
    expect(parseTime('2025-11-22 10:00:00.5z', NOW)).toBe(Date.UTC(2025, 10, 22, 10, 0, 0, 500));
    expect(parseTime('2025-11-22T10:00:00.125+01:00', NOW)).toBe(Date.UTC(2025, 10, 22, 9, 0, 0, 125));
    expect(parseTime('2025-11-22T10:00:00-0530', NOW)).toBe(Date.UTC(2025, 10, 22, 15, 30));
  });

  it('refuses a date-time without a zone, and impossible dates', () => {
    expect(() => parseTime('2025-11-22T10:00:00', NOW)).toThrow(/no time zone: add Z/);
    expect(() => parseTime('2025-02-30', NOW)).toThrow(/not a valid date/);
    expect(() => parseTime('2025-11-22T25:00Z', NOW)).toThrow(/not a valid date/);
    expect(() => parseTime('2025-11-22T10:00+15:00', NOW)).toThrow(/invalid offset/);
  });

  it('reads relative times as that long before now', () => {
    expect(parseTime('90s', NOW)).toBe(NOW - 90_000);
    expect(parseTime('30m', NOW)).toBe(NOW - 30 * 60_000);
    expect(parseTime('2h', NOW)).toBe(NOW - 2 * 3_600_000);
    expect(parseTime('3D', NOW)).toBe(NOW - 3 * 86_400_000);
    expect(parseTime('now', NOW)).toBe(NOW);
    expect(parseTime(' NOW ', NOW)).toBe(NOW);
  });

  it('throws a UsageError that names the flag and lists the accepted forms', () => {
    let caught: unknown;
    try {
      parseTime('yesterday', NOW, '--from');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UsageError);
    const message = (caught as Error).message;
    expect(message).toMatch(/^--from: 'yesterday' is not a time; accepted: epoch milliseconds/);
    expect(message).toContain('2h');
    expect(message).not.toContain('\n');
    expect(() => parseTime('', NOW)).toThrow(/empty/);
    expect(() => parseTime('2 h', NOW)).toThrow(UsageError);
    expect(() => parseTime('-2h', NOW)).toThrow(UsageError);
  });
});
