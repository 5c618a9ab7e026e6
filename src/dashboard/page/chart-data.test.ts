import { describe, expect, it } from 'vitest';
import { chartColumns, chartWidth, readSeries, utcLabel } from './chart-data.js';

describe('chart data', () => {
  it('reads a well-formed series and turns times into seconds for uPlot', () => {
    const s = readSeries({ t: [1000, 1125], price: [97000.5, 97001], up: [0.5, 0.51], down: [0.5, 0.49] });
    if (typeof s === 'string') throw new Error(s);
    expect(chartColumns(s)).toEqual({
      price: [[1, 1.125], [97000.5, 97001]],
      probability: [[1, 1.125], [0.5, 0.51], [0.5, 0.49]],
    });
  });

  it('says what is wrong with malformed data instead of drawing it', () => {
    expect(readSeries(null)).toMatch(/not an object/);
    expect(readSeries({ t: [1], price: ['1'], up: [0], down: [0] })).toMatch(/malformed/);
    expect(readSeries({ t: [1, 2], price: [1], up: [0], down: [0] })).toMatch(/differ in length/);
    expect(readSeries({ t: [], price: [], up: [], down: [] })).toMatch(/no snapshots/);
    expect(readSeries({ t: [1], price: [Number.NaN], up: [0], down: [0] })).toMatch(/malformed/);
  });

  it('keeps charts at least 320 px wide', () => {
    expect(chartWidth(100)).toBe(320);
    expect(chartWidth(900.7)).toBe(900);
  });

  it('labels a time in UTC whatever the zone of the machine', () => {
    expect(utcLabel(Date.UTC(2026, 10, 25, 23, 59, 58, 125) / 1000)).toBe('2026-11-25 23:59:58.125 UTC');
    expect(utcLabel(0.001)).toBe('1970-01-01 00:00:00.001 UTC');
  });
});
