// Binance klines as the REST API and the bulk files give them (REALDATA.md §5).

/** 2026-04-13T00:00:00Z, the first kline's open time in these tests. */
export const DAY = Date.parse('2026-04-13T00:00:00Z');

/** Use for one kline of `intervalMs` opening at `openMs` and closing at `close`, its 12 fields as strings (times in µs with `micro`). */
export function klineFields(openMs: number, close: number, intervalMs = 1000, micro = false): string[] {
  const scale = micro ? 1000 : 1;
  const closeTime = micro ? openMs * 1000 + intervalMs * 1000 - 1 : openMs + intervalMs - 1;
  const p = close.toFixed(2);
  return [String(openMs * scale), p, p, p, p, '1.25000000', String(closeTime), (close * 1.25).toFixed(8), '12', '0.61000000', (close * 0.61).toFixed(8), '0'];
}

/** Use for `n` consecutive 1s klines from `openMs`; each closes at 70000 + its second of DAY, so overlapping runs agree. */
export function klineRun(openMs: number, n: number, micro = false): string[][] {
  return Array.from({ length: n }, (_, i) => klineFields(openMs + i * 1000, 70_000 + (openMs - DAY) / 1000 + i, 1000, micro));
}

/** The bulk files' CSV: no header, one kline a line. */
export function klineCsv(rows: string[][]): string {
  return rows.map((r) => r.join(',')).join('\n') + '\n';
}

/** The REST answer: prices as strings, times as numbers. */
export function klineJson(rows: string[][]): unknown[] {
  return rows.map((r) => r.map((f, i) => (i === 0 || i === 6 || i === 8 ? Number(f) : f)));
}
