import { describe, expect, it } from 'vitest';
import { replayClock, wallClock } from './server-clock.js';

const FROM = Date.UTC(2026, 0, 5, 12);

describe('replayClock', () => {
  it('starts at FROM and runs N times wall speed', () => {
    const wall = { t: 1_000_000 };
    const clock = replayClock({ from: FROM, until: FROM + 3_600_000, speed: 60, wall: () => wall.t });
    expect(clock.now()).toBe(FROM);
    wall.t += 1_000;
    expect(clock.now()).toBe(FROM + 60_000);
    wall.t += 4_000;
    expect(clock.read()).toEqual({ now: FROM + 300_000, speed: 60, mode: 'replay', until: FROM + 3_600_000 });
  });

  it('stops at TO', () => {
    const wall = { t: 0 };
    const clock = replayClock({ from: FROM, until: FROM + 10_000, speed: 2, wall: () => wall.t });
    wall.t = 4_999;
    expect(clock.now()).toBe(FROM + 9_998);
    wall.t = 1_000_000;
    expect(clock.now()).toBe(FROM + 10_000);
  });

  it('runs slower than the wall clock with a speed below 1', () => {
    const wall = { t: 0 };
    const clock = replayClock({ from: FROM, until: FROM + 10_000, speed: 0.5, wall: () => wall.t });
    wall.t = 1_001;
    expect(clock.now()).toBe(FROM + 500);
  });

  it('never goes back when the wall clock does', () => {
    const wall = { t: 10_000 };
    const clock = replayClock({ from: FROM, until: FROM + 100_000, speed: 1, wall: () => wall.t });
    wall.t = 15_000;
    expect(clock.now()).toBe(FROM + 5_000);
    wall.t = 12_000;
    expect(clock.now()).toBe(FROM + 5_000);
  });

  it('refuses a speed that is not > 0', () => {
    for (const speed of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => replayClock({ from: FROM, until: FROM, speed, wall: () => 0 })).toThrow(RangeError);
    }
  });
});

describe('wallClock', () => {
  it('reads the wall clock with no end', () => {
    const clock = wallClock('live', () => 42);
    expect(clock.read()).toEqual({ now: 42, speed: 1, mode: 'live', until: null });
  });
});
