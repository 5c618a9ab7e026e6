// Sweep combinations: the cartesian product, first --sweep slowest, values as --set would read them.
import { describe, expect, it } from 'vitest';
import { combinations, parseSweeps } from './sweep-plan.js';

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
});
