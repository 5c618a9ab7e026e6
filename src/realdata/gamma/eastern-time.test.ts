import { describe, expect, it } from 'vitest';
import { easternHour, easternToUtc } from './eastern-time.js';

describe('New York time', () => {
  it('reads an instant in summer (UTC-4) and winter (UTC-5) time', () => {
    expect(easternHour(Date.parse('2026-04-13T09:59:59Z'))).toEqual({ year: 2026, month: 4, day: 13, hour: 5 });
    expect(easternHour(Date.parse('2026-01-01T04:00:00Z'))).toEqual({ year: 2025, month: 12, day: 31, hour: 23 });
  });

  it('turns a wall-clock hour back into its instant, rolling days over', () => {
    expect(easternToUtc({ year: 2026, month: 4, day: 13, hour: 12 })).toBe(Date.parse('2026-04-13T16:00:00Z'));
    expect(easternToUtc({ year: 2026, month: 1, day: 15, hour: 0 })).toBe(Date.parse('2026-01-15T05:00:00Z'));
    expect(easternToUtc({ year: 2026, month: 4, day: 31, hour: 12 })).toBe(Date.parse('2026-05-01T16:00:00Z'));
  });

  it('reads the skipped 2 am of spring with the winter offset, and the repeated 1 am of autumn as the first', () => {
    expect(easternToUtc({ year: 2026, month: 3, day: 8, hour: 2 })).toBe(Date.parse('2026-03-08T07:00:00Z'));
    expect(easternToUtc({ year: 2026, month: 3, day: 8, hour: 3 })).toBe(Date.parse('2026-03-08T07:00:00Z'));
    expect(easternToUtc({ year: 2026, month: 11, day: 1, hour: 1 })).toBe(Date.parse('2026-11-01T05:00:00Z'));
    expect(easternToUtc({ year: 2026, month: 11, day: 1, hour: 2 })).toBe(Date.parse('2026-11-01T07:00:00Z'));
  });
});
