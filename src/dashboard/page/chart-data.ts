// What the charts draw, computed without the DOM so it is unit-tested: the series the server
// sends (/markets/ID/series), checked, and turned into uPlot's columns (x in seconds).

/** The server's chart data: epoch ms, price, probability of up, probability of down. */
export interface Series {
  t: number[];
  price: number[];
  up: number[];
  down: number[];
}

/** uPlot's aligned columns for the two charts. */
export interface ChartColumns {
  price: [number[], number[]];
  probability: [number[], number[], number[]];
}

function numbers(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'number' && Number.isFinite(v));
}

/** Use on the fetched JSON: the series when it has the expected shape, else a sentence saying why not. */
export function readSeries(json: unknown): Series | string {
  if (typeof json !== 'object' || json === null) return 'The chart data is not an object.';
  const s = json as Record<string, unknown>;
  if (!numbers(s.t) || !numbers(s.price) || !numbers(s.up) || !numbers(s.down)) return 'The chart data is malformed.';
  const n = s.t.length;
  if (s.price.length !== n || s.up.length !== n || s.down.length !== n) return 'The chart data columns differ in length.';
  if (n === 0) return 'This market has no snapshots to chart.';
  return { t: s.t, price: s.price, up: s.up, down: s.down };
}

/** Use to feed uPlot: x in epoch seconds (uPlot's default time scale), values unchanged. */
export function chartColumns(s: Series): ChartColumns {
  const x = s.t.map((ms) => ms / 1000);
  return { price: [x, s.price.slice()], probability: [x, s.up.slice(), s.down.slice()] };
}

/** A chart's width for a container: its width, but never so narrow the axes collide. */
export function chartWidth(containerWidth: number): number {
  return Math.max(320, Math.floor(containerWidth));
}

/** Use for the time under the cursor (uPlot's x in epoch seconds): UTC to the millisecond, as the page says. */
export function utcLabel(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString().replace('T', ' ').replace('Z', ' UTC');
}
