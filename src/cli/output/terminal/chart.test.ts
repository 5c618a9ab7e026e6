import { describe, expect, it } from 'vitest';
import { ColumnSampler } from '../../../analysis/chart-series.js';
import { labelWidthFor, plotColumns, renderChart } from './chart.js';

const START = 1763769600000;
const END = START + 300_000;
const ESC = String.fromCharCode(27);

function sampled(width: number, rows = 2400, hole?: [number, number]) {
  const columns = plotColumns(width, labelWidthFor([97000 * 1.5]));
  const sampler = new ColumnSampler(START, END, columns);
  for (let i = 0; i < rows; i++) {
    if (hole && i >= hole[0] && i < hole[1]) continue;
    sampler.add(START + i * 125, 97000 + Math.sin(i / 100) * 50, 0.5 + Math.sin(i / 300) * 0.4);
  }
  return sampler.series();
}

describe('ColumnSampler', () => {
  it('keeps the last value of each equal time slice, fills holes with the value before, stops at the last data', () => {
    const sampler = new ColumnSampler(START, END, 10);
    sampler.add(START + 0, 1, 0.1);
    sampler.add(START + 29_000, 2, 0.2);
    sampler.add(START + 95_000, 3, 0.3);
    sampler.add(END, 9, 0.9); // the end itself belongs to the next market
    const s = sampler.series();
    expect(s.price).toEqual([2, 2, 2, 3]);
    expect(s.up).toEqual([0.2, 0.2, 0.2, 0.3]);
    expect(s.count).toBe(3);
  });
});

describe('renderChart', () => {
  it.each([40, 80, 132])('fits every line into %i columns and labels the time axis in UTC', (width) => {
    const text = renderChart('title', sampled(width), { width, height: 8, color: false });
    const lines = text.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
    expect(lines.at(-1)).toMatch(/^\s+00:00:00\s+00:02:30\s+00:05:00$/);
    // Price rows (8 + 1) and probability rows (4 + 1) plus title, two captions and the axis.
    expect(lines).toHaveLength(1 + 1 + 9 + 1 + 5 + 1);
    expect(text).not.toContain(ESC);
  });

  it('colours the lines only when asked, and the probability axis runs 0 to 1', () => {
    const s = sampled(80);
    const plain = renderChart('t', s, { width: 80, height: 6, color: false });
    const colored = renderChart('t', s, { width: 80, height: 6, color: true });
    expect(colored).toContain(`${ESC}[36m`);
    expect(colored.replace(new RegExp(`${ESC}\\[\\d+m`, 'g'), '')).toBe(plain);
    expect(plain).toMatch(/ 1\.00 ┼/);
    expect(plain).toMatch(/ 0\.00 ┤/);
  });

  it('draws a running market only as far as its data', () => {
    const s = sampled(80, 1200);
    expect(s.price.length).toBeLessThan(s.columns / 2 + 2);
    const lines = renderChart('t', s, { width: 80, height: 6, color: false }).split('\n');
    expect(Math.max(...lines.slice(2, 9).map((l) => l.trimEnd().length))).toBeLessThan(60);
  });
});
