// Binance's 12-field kline rows, from CSV lines or REST JSON arrays, checked one by one and
// gathered into a series: [openTime, open, high, low, close, volume, closeTime, quoteVolume,
// trades, takerBuyBase, takerBuyQuote, ignore] (REALDATA.md §5).
import { UsageError } from '../../errors.js';
import { klineSeries, type KlineSeries } from './kline-series.js';

/** A time above this is in µs, not ms (ms reach it in the year 5138). Newer bulk files count in µs [u]. */
const MICROSECONDS_FROM = 1e14;
const FIELDS = 12;

/** Interval names by kline length in ms, to name the interval of a file whose name does not say it. */
const INTERVAL_OF_MS: Readonly<Record<number, string>> = {
  1000: '1s',
  60_000: '1m',
  180_000: '3m',
  300_000: '5m',
  900_000: '15m',
  1_800_000: '30m',
  3_600_000: '1h',
  7_200_000: '2h',
  14_400_000: '4h',
  86_400_000: '1d',
};

/** Use to gather kline rows from one source; every error is a UsageError starting with `label` (the file or URL). */
export class KlineRows {
  private readonly closeTimes: number[] = [];
  private readonly closes: number[] = [];
  private lengthMs: number | undefined;

  constructor(private readonly label: string) {}

  /** How many rows were added. */
  get count(): number {
    return this.closeTimes.length;
  }

  /** Use for CSV text: one kline a line, no header (a first line that is one is passed over), blank lines ignored. */
  addCsv(text: string, label = this.label): void {
    for (let start = 0, n = 1; start < text.length; n++) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const line = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
      start = end + 1;
      if (line.trim() === '') continue;
      const fields = line.split(',');
      if (n === 1 && !isNumber(fields[0]!)) continue;
      this.add(fields, label, 'line', n);
    }
  }

  /** Use for a REST answer or a JSON file: an array of 12-element arrays, prices as strings. */
  addJson(json: unknown, label = this.label): void {
    if (!Array.isArray(json)) {
      const said = JSON.stringify(json)?.slice(0, 80) ?? String(json);
      throw new UsageError(`${label}: not Binance klines: expected an array of 12-field arrays, got ${said}`);
    }
    json.forEach((row, i) => {
      if (!Array.isArray(row)) throw new UsageError(`${label}: item ${i + 1} is not an array: not Binance klines`);
      this.add(row.map((x) => (typeof x === 'number' || typeof x === 'string' ? String(x) : '')), label, 'item', i + 1);
    });
  }

  /** The series of every row added, sorted and each close time once. */
  series(symbol: string | null, interval: string | null): KlineSeries {
    const named = interval ?? (this.lengthMs !== undefined ? (INTERVAL_OF_MS[this.lengthMs] ?? null) : null);
    return klineSeries(symbol, named, this.closeTimes, this.closes);
  }

  /** One row; its message is built only when it fails. */
  private add(fields: string[], label: string, kind: 'line' | 'item', n: number): void {
    const fail = (what: string) => new UsageError(`${label}: ${kind} ${n}: ${what}`);
    if (fields.length !== FIELDS) throw fail(`${fields.length} columns, a Binance kline has ${FIELDS}: not a kline file`);
    const openTime = toMs(fields[0]!);
    const closeTime = toMs(fields[6]!);
    if (openTime === undefined) throw fail(`openTime ${JSON.stringify(fields[0])} is not a time`);
    if (closeTime === undefined) throw fail(`closeTime ${JSON.stringify(fields[6])} is not a time`);
    for (let c = 1; c <= 3; c++) if (!isNumber(fields[c]!)) throw fail(`${PRICE_NAMES[c - 1]} ${JSON.stringify(fields[c])} is not a number`);
    const close = Number(fields[4]);
    if (!Number.isFinite(close) || fields[4]!.trim() === '') throw fail(`close ${JSON.stringify(fields[4])} is not a number`);
    if (closeTime < openTime) throw fail('closeTime is before openTime');
    this.lengthMs ??= closeTime - openTime + 1;
    this.closeTimes.push(closeTime);
    this.closes.push(close);
  }
}

/** A time in ms; one in µs is floored to its ms, so a µs file's 999999 µs close reads as a ms file's 999 ms. */
function toMs(field: string): number | undefined {
  const n = Number(field);
  if (!Number.isInteger(n) || n < 0 || field.trim() === '') return undefined;
  return n >= MICROSECONDS_FROM ? Math.floor(n / 1000) : n;
}

const PRICE_NAMES = ['open', 'high', 'low'];

function isNumber(field: string): boolean {
  return field.trim() !== '' && Number.isFinite(Number(field));
}
