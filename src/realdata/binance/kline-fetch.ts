// Klines from Binance's REST API, page by page: `GET {base}/api/v3/klines` (REALDATA.md §5).
import { getSourceJson, withDispatcher, type SourceGetOptions } from '../source-get.js';
import { KlineRows } from './kline-rows.js';
import type { KlineSeries } from './kline-series.js';

/** Binance's most klines in one answer. */
const PAGE = 1000;
const INTERVAL_MS = { '1s': 1000, '1m': 60_000 } as const;

/**
 * Use to fetch the klines that price [startMs, endMs]: from the one open one interval before
 * startMs (so `priceAt(series, startMs)` is known) to the one open at endMs, 1000 a page.
 */
export async function fetchKlines(
  baseUrl: string,
  symbol: string,
  interval: '1s' | '1m',
  startMs: number,
  endMs: number,
  opts: SourceGetOptions = {},
): Promise<KlineSeries> {
  const base = `${baseUrl.replace(/\/+$/, '')}/api/v3/klines`;
  const label = `${base}?symbol=${symbol}&interval=${interval}`;
  const rows = new KlineRows(label);
  await withDispatcher(opts, async (o) => {
    for (let from = startMs - INTERVAL_MS[interval]; from <= endMs; ) {
      const url = `${base}?${new URLSearchParams({ symbol, interval, startTime: String(from), endTime: String(endMs), limit: String(PAGE) })}`;
      const page = await getSourceJson(url, o);
      const before = rows.count;
      rows.addJson(page, url);
      const last = Array.isArray(page) ? page[page.length - 1] : undefined;
      const lastOpen = Array.isArray(last) ? Number(last[0]) : NaN;
      // A short page is the last; a page that does not move forward would loop for ever.
      if (rows.count - before < PAGE || !(lastOpen >= from)) break;
      from = (lastOpen >= 1e14 ? Math.floor(lastOpen / 1000) : lastOpen) + INTERVAL_MS[interval];
    }
  });
  return rows.series(symbol, interval);
}
