// A market drawn in the terminal: the asset price above, the probability of up (0-1) below, a
// labelled UTC time axis, all fitted to a given width. Pure: series in, text out.
import asciichart from 'asciichart';
import type { ChartSeries } from '../../../analysis/chart-series.js';

/** How the chart is drawn. */
export interface ChartLayout {
  /** Total characters per line, labels included. */
  width: number;
  /** Rows of the price chart (the probability chart gets about half). */
  height: number;
  /** ANSI colours on the lines. */
  color: boolean;
}

/** Narrower than this leaves no room for a line worth reading. */
export const MIN_CHART_WIDTH = 30;

function clock(ms: number, withSeconds: boolean): string {
  const iso = new Date(ms).toISOString();
  return withSeconds ? iso.slice(11, 19) : iso.slice(11, 16);
}

/** Columns the line gets at a width, after the y labels (`labelWidth`) and the axis. */
export function plotColumns(width: number, labelWidth: number): number {
  return Math.max(2, width - labelWidth - 2);
}

/** The width y labels take for a price range (both charts share it so their time columns line up). */
export function labelWidthFor(prices: number[]): number {
  const max = Math.max(...prices.map((p) => Math.abs(p)), 1);
  return `${max.toFixed(2)}`.length + 1;
}

// The time axis: start at the left, middle and end at their columns, clipped to the width.
function timeAxis(s: ChartSeries, labelWidth: number, width: number): string {
  const offset = labelWidth + 1;
  const span = s.end - s.start;
  const withSeconds = span <= 15 * 60_000;
  const line = new Array<string>(width).fill(' ');
  const put = (col: number, text: string): void => {
    const at = Math.max(0, Math.min(width - text.length, col));
    for (let i = 0; i < text.length; i++) line[at + i] = text[i]!;
  };
  const startText = clock(s.start, withSeconds);
  const endText = clock(s.end, withSeconds);
  put(offset, startText);
  put(offset + Math.floor(s.columns / 2) - Math.floor(startText.length / 2), clock(s.start + span / 2, withSeconds));
  put(offset + s.columns - endText.length, endText);
  return line.join('').trimEnd();
}

/** Use to draw a sampled market; `title` is the first line. */
export function renderChart(title: string, s: ChartSeries, layout: ChartLayout): string {
  const labelWidth = labelWidthFor(s.price);
  const pad = ' '.repeat(labelWidth);
  const price = asciichart.plot(s.price, {
    height: layout.height,
    format: (x) => (pad + x.toFixed(2)).slice(-labelWidth),
    ...(layout.color ? { colors: [asciichart.cyan] } : {}),
  });
  const up = asciichart.plot(s.up, {
    height: Math.max(2, Math.round(layout.height / 2)),
    min: 0,
    max: 1,
    format: (x) => (pad + x.toFixed(2)).slice(-labelWidth),
    ...(layout.color ? { colors: [asciichart.green] } : {}),
  });
  const cut = (text: string): string => text.slice(0, layout.width);
  return [
    cut(title),
    cut(`${pad} price`),
    price,
    cut(`${pad} probability of up`),
    up,
    timeAxis(s, labelWidth, layout.width),
    '',
  ].join('\n');
}
