// Binance klines as published: the REST JSON arrays (12 fields, prices as strings, times as
// numbers) and the daily bulk CSV (no header) zipped as `BTCUSDT-1s-YYYY-MM-DD.zip`, in 1s and 1m,
// with times in ms or, in newer files, µs.
import { mulberry32 } from '../../random/prng.js';
import { decimalText } from './decimal-text.js';
import { zipArchive } from './zip-archive.js';

/** [openTime, open, high, low, close, volume, closeTime, quoteAssetVolume, numberOfTrades, takerBuyBaseVolume, takerBuyQuoteVolume, ignore]. */
export type Kline = [number, string, string, string, string, string, number, string, number, string, string, string];

/** Kline intervals the fixtures cover. */
export type KlineInterval = '1s' | '1m';

/** Length of one kline of each interval, ms. */
export const KLINE_MS: Record<KlineInterval, number> = { '1s': 1000, '1m': 60_000 };

/** Options of generateKlines. */
export interface KlineOptions {
  interval: KlineInterval;
  /** Open time of the first kline and the end of the last one (exclusive), ms; from is rounded down to the interval. */
  from: number;
  to: number;
  seed?: number;
  /** The first open, in cents (default 9_712_345 = 97123.45). */
  startCents?: number;
}

const eight = (cents: number): string => decimalText({ units: BigInt(cents) * 1_000_000n, scale: 8 });
const amount = (units: number): string => decimalText({ units: BigInt(units), scale: 8 });

/** Use to get a seeded random walk of klines in the REST form (times in ms, closeTime = openTime + interval − 1). */
export function generateKlines(options: KlineOptions): Kline[] {
  const random = mulberry32(options.seed ?? 7);
  const step = KLINE_MS[options.interval];
  let close = options.startCents ?? 9_712_345;
  const out: Kline[] = [];
  for (let open = Math.floor(options.from / step) * step; open < options.to; open += step) {
    const first = close;
    const moves = [0, 0, 0].map(() => Math.round((random() - 0.5) * 400));
    const path = [first, first + moves[0]!, first + moves[0]! + moves[1]!, first + moves[0]! + moves[1]! + moves[2]!];
    close = path[3]!;
    const volume = Math.floor(random() * 5e8);
    const trades = Math.floor(random() * 300);
    const quote = BigInt(volume) * BigInt(close) / 100n;
    out.push([
      open,
      eight(first),
      eight(Math.max(...path)),
      eight(Math.min(...path)),
      eight(close),
      amount(volume),
      open + step - 1,
      amount(Number(quote)),
      trades,
      amount(Math.floor(volume / 2)),
      amount(Number(quote / 2n)),
      '0',
    ]);
  }
  return out;
}

/** Use as the body of `GET /api/v3/klines`: the JSON array of arrays. */
export function klinesJson(klines: readonly Kline[]): string {
  return JSON.stringify(klines);
}

/** Use for the bulk file's content: CSV without header, one kline a line; `us` writes times in µs (newer files). */
export function klinesCsv(klines: readonly Kline[], timeUnit: 'ms' | 'us' = 'ms'): string {
  const time = (ms: number, end: boolean) => (timeUnit === 'ms' ? String(ms) : String(ms * 1000 + (end ? 999 : 0)));
  return klines.map((k) => [time(k[0], false), k[1], k[2], k[3], k[4], k[5], time(k[6], true), k[7], k[8], k[9], k[10], k[11]].join(',')).join('\n') + '\n';
}

/** `BTCUSDT-1s-2026-04-13`: the daily bulk file's base name (the zip adds `.zip`, its entry `.csv`). */
export function klineDayName(symbol: string, interval: KlineInterval, dayMs: number): string {
  return `${symbol}-${interval}-${new Date(dayMs).toISOString().slice(0, 10)}`;
}

/** Use for a daily bulk zip as Binance publishes it: `{name}.zip` holding `{name}.csv`. */
export function klineDailyZip(symbol: string, interval: KlineInterval, dayMs: number, klines: readonly Kline[], timeUnit: 'ms' | 'us' = 'ms'): { name: string; bytes: Uint8Array } {
  const base = klineDayName(symbol, interval, dayMs);
  return { name: `${base}.zip`, bytes: zipArchive([{ name: `${base}.csv`, data: new TextEncoder().encode(klinesCsv(klines, timeUnit)) }]) };
}
