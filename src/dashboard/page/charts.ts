// The market page's two charts (asset price; probabilities of up and down), drawn with uPlot
// (loaded before this module from /assets, no CDN) from the series the server sends.
import { chartColumns, chartWidth, readSeries, utcLabel } from './chart-data.js';

const HEIGHT = 260;

/** uPlot labels time in the browser's zone by default; the page says UTC, so its axes use UTC. */
const tzDate = (seconds: number): Date => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC');
/** The x series of both charts: the legend shows the cursor's time in UTC. */
const TIME = { label: 'time (UTC)', value: (_u: uPlot, seconds: number | null) => (seconds == null ? '--' : utcLabel(seconds)) };

function status(container: HTMLElement, text: string, state: 'ready' | 'error'): void {
  container.dataset.state = state;
  const p = container.querySelector<HTMLElement>('.chart-status');
  if (p) p.textContent = text;
}

/** Use on a page with `#charts[data-series]`: fetches the series and draws both charts. */
export async function drawCharts(container: HTMLElement): Promise<void> {
  const url = container.dataset.series;
  if (!url) return;
  let json: unknown;
  try {
    const res = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (!res.ok) return status(container, `The chart data could not be loaded (HTTP ${res.status}).`, 'error');
    json = await res.json();
  } catch {
    return status(container, 'The chart data could not be loaded.', 'error');
  }
  const series = readSeries(json);
  if (typeof series === 'string') return status(container, series, 'error');
  const columns = chartColumns(series);
  const width = chartWidth(container.clientWidth);
  new uPlot(
    {
      title: 'Asset price',
      width,
      height: HEIGHT,
      tzDate,
      series: [TIME, { label: 'price', stroke: '#2557d6', width: 1.5 }],
      axes: [{}, { size: 70 }],
    },
    columns.price,
    container.querySelector<HTMLElement>('#chart-price')!,
  );
  new uPlot(
    {
      title: 'Probability of up and down',
      width,
      height: HEIGHT,
      scales: { y: { range: [0, 1] } },
      tzDate,
      series: [TIME, { label: 'up', stroke: '#1e7b34', width: 1.5 }, { label: 'down', stroke: '#b3261e', width: 1.5 }],
      axes: [{}, { size: 70 }],
    },
    columns.probability,
    container.querySelector<HTMLElement>('#chart-probability')!,
  );
  status(container, `${series.t.length.toLocaleString('en-US')} points`, 'ready');
}
