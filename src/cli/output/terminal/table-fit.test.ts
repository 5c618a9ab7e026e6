import { describe, expect, it } from 'vitest';
import { cutCell, fitColumns, tableWidth } from './table-fit.js';

describe('fitColumns', () => {
  const cols = [
    { name: 'id', width: 26 },
    { name: 'a', width: 24, dropOrder: 2 },
    { name: 'b', width: 24, dropOrder: 1 },
    { name: 'c', width: 10 },
  ];

  it('keeps everything that fits', () => {
    const fit = fitColumns(cols, 200);
    expect(fit).toEqual({ keep: [0, 1, 2, 3], widths: [26, 24, 24, 10], dropped: [], truncated: false });
  });

  it('drops columns in the stated order until the table fits, and no more', () => {
    // All four: 26+24+24+10 + 4*3 + 1 = 97; without b: 70.
    expect(tableWidth([26, 24, 24, 10])).toBe(97);
    const fit = fitColumns(cols, 80);
    expect(fit.dropped).toEqual(['b']);
    expect(fit.keep).toEqual([0, 1, 3]);
    expect(tableWidth(fit.widths)).toBeLessThanOrEqual(80);
    expect(fit.truncated).toBe(false);
    expect(fitColumns(cols, 60).dropped).toEqual(['b', 'a']);
  });

  it('cuts the widest kept column when dropping is not enough', () => {
    const fit = fitColumns([{ name: 'k', width: 10 }, { name: 'json', width: 500 }], 80);
    expect(fit.keep).toEqual([0, 1]);
    expect(fit.truncated).toBe(true);
    expect(tableWidth(fit.widths)).toBe(80);
    expect(fit.widths[0]).toBe(10);
  });

  it('never cuts a column below a few characters', () => {
    const fit = fitColumns([{ name: 'x', width: 30 }, { name: 'y', width: 30 }], 5);
    expect(Math.min(...fit.widths)).toBeGreaterThanOrEqual(6);
  });
});

describe('cutCell', () => {
  it('leaves short text alone and ends cut text with an ellipsis', () => {
    expect(cutCell('abc', 5)).toBe('abc');
    expect(cutCell('abcdefgh', 5)).toBe('abcd…');
  });
});
