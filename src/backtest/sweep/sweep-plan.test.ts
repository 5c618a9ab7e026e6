// Sweep combinations: the cartesian product, first --sweep slowest, values as --set would read them.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { checkRunCount, combinations, DEFAULT_MAX_RUNS, parseSweeps } from './sweep-plan.js';

describe('sweep plan', () => {
  it('crosses the axes in a stable order, keeping each value as given for --set', () => {
    const combos = combinations(parseSweeps(['entry.0.value=0.2,0.25', 'side=up,down']));
    expect(combos.map((c) => c.sets)).toEqual([
      ['entry.0.value=0.2', 'side=up'],
      ['entry.0.value=0.2', 'side=down'],
      ['entry.0.value=0.25', 'side=up'],
      ['entry.0.value=0.25', 'side=down'],
    ]);
    expect(combos[3]!.values).toEqual({ 'entry.0.value': 0.25, side: 'down' });
  });

  it('is one empty combination without --sweep', () => {
    expect(combinations([])).toEqual([{ values: {}, sets: [] }]);
  });

  it('caps the runs a sweep starts, saying the count and the flag that raises the cap', () => {
    const values = (n: number): string => Array.from({ length: n }, (_, k) => String(k + 1)).join(',');
    const axes = parseSweeps([`size=${values(100)}`, `max_entries=${values(100)}`]);
    const err = (() => {
      try {
        return checkRunCount(axes);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('--sweep makes 10,000 runs (100 size × 100 max_entries), over the cap of 1,000: drop values, or allow them with --max-runs 10000');
    expect(checkRunCount(axes, 10_000)).toBe(10_000);
    expect(checkRunCount(parseSweeps([`size=${values(DEFAULT_MAX_RUNS)}`]))).toBe(DEFAULT_MAX_RUNS);
    expect(checkRunCount([])).toBe(1);
  });
});
