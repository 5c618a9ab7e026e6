// The import's fast path: a snapshot line in exactly the shape `msnap snapshots --ndjson|--csv`
// writes, of the market the previous snapshot line named, read straight into the scaled integers
// the store keeps, without JSON.parse, objects or Number(). Anything else (another key order,
// spaces, strings, ISO times, exponents, more than 4 decimals, values out of range, orderbooks,
// another market) makes it answer false, and the general parser (import-row.ts) reads the line:
// the fast path accepts a subset of what that one accepts, with the same values, so the import's
// results and errors do not depend on which path read a line.
import { PRICE_SCALE } from '../core/price-scale.js';

/** Where the fields a snapshot needs sit in a CSV header; undefined fields mean no fast path. */
export interface CsvColumns {
  count: number;
  /** -1 when the file has no id column. */
  id: number;
  marketId: number;
  time: number;
  price: number;
  priceUp: number;
  priceDown: number;
  /** -1 when the file has no such column. */
  orderbookUp: number;
  orderbookDown: number;
}

/** Use once per CSV file with its canonical header; undefined when the fast path cannot apply. */
export function csvColumns(header: readonly string[]): CsvColumns | undefined {
  const at = (name: string) => header.indexOf(name);
  const cols = {
    count: header.length,
    id: at('id'),
    marketId: at('market_id'),
    time: at('time'),
    price: at('price'),
    priceUp: at('price_up'),
    priceDown: at('price_down'),
    orderbookUp: at('orderbook_up'),
    orderbookDown: at('orderbook_down'),
  };
  // A header naming a column twice is left to the general parser (last one wins there).
  if (new Set(header).size !== header.length) return undefined;
  return cols.marketId < 0 || cols.time < 0 || cols.price < 0 || cols.priceUp < 0 || cols.priceDown < 0 ? undefined : cols;
}

// Decimal weights of the fractional digits kept by the 1e4 scale.
const FRACTION_WEIGHTS = [1000, 100, 10, 1];

/**
 * Use per import: set the market of the last general-path snapshot line, then try each line with
 * ndjson() or csv(); after a true answer `t`, `price`, `priceUp`, `priceDown` hold the row as stored.
 */
export class PlainSnapshotParser {
  /** The row of the last accepted line: its source id (NaN when it has none), offset in the market (ms) and scaled values. */
  id = NaN;
  t = 0;
  price = 0;
  priceUp = 0;
  priceDown = 0;
  private marketId: string | undefined;
  private startTime = 0;
  private endTime = 0;
  /** What sits between the id and the time in an NDJSON line of this market. */
  private ndjsonMarket = '';
  private pos = 0;
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  /** Lines of this market may take the fast path from now on. */
  setMarket(marketId: string, startTime: number, endTime: number): void {
    if (marketId === this.marketId) return;
    this.marketId = marketId;
    this.startTime = startTime;
    this.endTime = endTime;
    this.ndjsonMarket = `,"market_id":${JSON.stringify(marketId)},"time":`;
  }

  /** `{"id":N,"market_id":"...","time":N,"price":N,"price_up":N,"price_down":N}` and nothing else. */
  ndjson(s: string): boolean {
    if (this.marketId === undefined || !s.startsWith('{"id":')) return false;
    // A negative id is left to the general path.
    this.pos = 6;
    const id = this.integer(s, 15);
    if (id < 0 || !this.literal(s, this.ndjsonMarket)) return false;
    const time = this.integer(s, 15);
    if (time < 0 || !this.literal(s, ',"price":')) return false;
    const price = this.scaled(s);
    if (price <= 0 || !this.literal(s, ',"price_up":')) return false;
    const up = this.scaled(s);
    if (up < 0 || up > PRICE_SCALE || !this.literal(s, ',"price_down":')) return false;
    const down = this.scaled(s);
    if (down < 0 || down > PRICE_SCALE || this.pos !== s.length - 1 || s.charCodeAt(this.pos) !== 125 /* } */) return false;
    return this.accept(id, time, price, up, down);
  }

  /** A CSV record without quotes whose fields are plain numbers, empty orderbook cells included. */
  csv(s: string, cols: CsvColumns): boolean {
    const market = this.marketId;
    if (market === undefined || s.includes('"')) return false;
    const { starts, ends } = this;
    let from = 0;
    for (let k = 0; k < cols.count; k++) {
      const comma = s.indexOf(',', from);
      const last = k === cols.count - 1;
      if ((comma === -1) !== last) return false;
      starts[k] = from;
      ends[k] = last ? s.length : comma;
      from = comma + 1;
    }
    const m = cols.marketId;
    if (s.slice(starts[m], ends[m]) !== market) return false;
    if (cols.orderbookUp >= 0 && ends[cols.orderbookUp] !== starts[cols.orderbookUp]) return false;
    if (cols.orderbookDown >= 0 && ends[cols.orderbookDown] !== starts[cols.orderbookDown]) return false;
    this.pos = starts[cols.time]!;
    const time = this.integer(s, 15);
    if (time < 0 || this.pos !== ends[cols.time]) return false;
    this.pos = starts[cols.price]!;
    const price = this.scaled(s);
    if (price <= 0 || this.pos !== ends[cols.price]) return false;
    this.pos = starts[cols.priceUp]!;
    const up = this.scaled(s);
    if (up < 0 || up > PRICE_SCALE || this.pos !== ends[cols.priceUp]) return false;
    this.pos = starts[cols.priceDown]!;
    const down = this.scaled(s);
    if (down < 0 || down > PRICE_SCALE || this.pos !== ends[cols.priceDown]) return false;
    let id = NaN;
    if (cols.id >= 0 && ends[cols.id] !== starts[cols.id]) {
      this.pos = starts[cols.id]!;
      id = this.integer(s, 15);
      if (id < 0 || this.pos !== ends[cols.id]) return false;
    }
    return this.accept(id, time, price, up, down);
  }

  private accept(id: number, time: number, price: number, up: number, down: number): boolean {
    // Out of the market's range: the general path words the error.
    if (time < this.startTime || time >= this.endTime) return false;
    this.id = id;
    this.t = time - this.startTime;
    this.price = price;
    this.priceUp = up;
    this.priceDown = down;
    return true;
  }

  private literal(s: string, text: string): boolean {
    // Not startsWith(text, pos): V8 runs that through a slow path; slice-and-compare is faster.
    if (s.slice(this.pos, this.pos + text.length) !== text) return false;
    this.pos += text.length;
    return true;
  }

  /** Digits as JSON writes an integer (no leading zero), at most maxDigits of them; -1 if none. */
  private integer(s: string, maxDigits: number): number {
    const first = this.pos;
    let i = first;
    let v = 0;
    for (;;) {
      const d = s.charCodeAt(i) - 48;
      if (!(d >= 0 && d <= 9)) break;
      v = v * 10 + d;
      i++;
    }
    const n = i - first;
    if (n === 0 || n > maxDigits || (n > 1 && s.charCodeAt(first) === 48)) return -1;
    this.pos = i;
    return v;
  }

  /**
   * A non-negative decimal with at most 4 fractional digits, times 1e4: exactly the integer
   * toScaled(Number(text)) gives for such text (the float product is within 1e-6 of it). -1 if not.
   */
  private scaled(s: string): number {
    const whole = this.integer(s, 11);
    if (whole < 0) return -1;
    let v = whole * PRICE_SCALE;
    if (s.charCodeAt(this.pos) !== 46 /* . */) return v;
    let i = this.pos + 1;
    for (let k = 0; ; k++, i++) {
      const d = s.charCodeAt(i) - 48;
      if (!(d >= 0 && d <= 9)) {
        if (k === 0) return -1;
        break;
      }
      if (k === FRACTION_WEIGHTS.length) return -1;
      v += d * FRACTION_WEIGHTS[k]!;
    }
    this.pos = i;
    return v;
  }
}
