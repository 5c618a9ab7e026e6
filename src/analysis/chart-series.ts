// A market's snapshots reduced to one value per terminal column, as they stream by: the market's
// life is cut into equal time columns and each keeps the last price and probability seen in it.

/** What a chart draws: per column, the asset price and the probability of up. */
export interface ChartSeries {
  start: number;
  end: number;
  /** Column count the life was cut into (the series may stop earlier: a running market). */
  columns: number;
  price: number[];
  up: number[];
  /** Snapshots seen. */
  count: number;
}

/**
 * Use per market: `add` snapshots in time order, then `series()`. Columns without a snapshot
 * repeat the value before them (the first ones take the first value), so the line has no holes;
 * the series ends at the last column that had data.
 */
export class ColumnSampler {
  private readonly price: number[];
  private readonly up: number[];
  private last = -1;
  private count = 0;

  constructor(private readonly start: number, private readonly end: number, private readonly columns: number) {
    this.price = new Array<number>(columns).fill(Number.NaN);
    this.up = new Array<number>(columns).fill(Number.NaN);
  }

  /** Take one snapshot's time, price and probability of up. */
  add(time: number, price: number, up: number): void {
    if (time < this.start || time >= this.end) return;
    const col = Math.min(this.columns - 1, Math.floor(((time - this.start) / (this.end - this.start)) * this.columns));
    this.price[col] = price;
    this.up[col] = up;
    this.count += 1;
    if (col > this.last) this.last = col;
  }

  /** The columns up to the last one with data, holes filled. */
  series(): ChartSeries {
    const price = this.price.slice(0, this.last + 1);
    const up = this.up.slice(0, this.last + 1);
    const firstPrice = price.find((v) => !Number.isNaN(v));
    const firstUp = up.find((v) => !Number.isNaN(v));
    for (let i = 0; i < price.length; i++) {
      if (Number.isNaN(price[i]!)) price[i] = i === 0 ? firstPrice! : price[i - 1]!;
      if (Number.isNaN(up[i]!)) up[i] = i === 0 ? firstUp! : up[i - 1]!;
    }
    return { start: this.start, end: this.end, columns: this.columns, price, up, count: this.count };
  }
}
