// The straightforward reference for resampled bars that tests compare msnap's streaming bars
// with: every snapshot grouped by (market, bucket) in a Map, then first/max/min/last per group.

/** A snapshot's fields the reference reads. */
export interface RefSnapshot {
  market_id: string;
  time: number;
  price: number;
  price_up: number;
  price_down: number;
}

/** Bars computed the slow, obvious way; `fill` adds count-0 bars between a market's first and last bucket. */
export function referenceBars(rows: RefSnapshot[], intervalMs: number, fill = false): Record<string, unknown>[] {
  const groups = new Map<string, RefSnapshot[]>();
  for (const s of rows) {
    const key = `${s.market_id}|${Math.floor(s.time / intervalMs) * intervalMs}`;
    const g = groups.get(key) ?? [];
    g.push(s);
    groups.set(key, g);
  }
  const bars: Record<string, unknown>[] = [];
  for (const [key, g] of groups) {
    const [market_id, time] = key.split('|') as [string, string];
    const prices = g.map((s) => s.price);
    const ups = g.map((s) => s.price_up);
    bars.push({
      market_id,
      time: Number(time),
      open: prices[0],
      high: Math.max(...prices),
      low: Math.min(...prices),
      close: prices.at(-1),
      up_open: ups[0],
      up_high: Math.max(...ups),
      up_low: Math.min(...ups),
      up_close: ups.at(-1),
      down_close: g.at(-1)!.price_down,
      count: g.length,
    });
  }
  if (!fill) return bars;
  const filled: Record<string, unknown>[] = [];
  for (const [i, bar] of bars.entries()) {
    filled.push(bar);
    const next = bars[i + 1];
    if (!next || next['market_id'] !== bar['market_id']) continue;
    for (let t = (bar['time'] as number) + intervalMs; t < (next['time'] as number); t += intervalMs) {
      const c = bar['close'];
      const u = bar['up_close'];
      filled.push({ market_id: bar['market_id'], time: t, open: c, high: c, low: c, close: c, up_open: u, up_high: u, up_low: u, up_close: u, down_close: bar['down_close'], count: 0 });
    }
  }
  return filled;
}
