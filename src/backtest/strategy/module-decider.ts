// A JavaScript strategy as a decider: its hooks see one snapshot object per call (that is their
// API) and place orders through ctx; the engine executes them exactly as it does a rule's.
import type { Market } from '../../domain/market.js';
import { inspect, type InspectOptions } from 'node:util';
import type { BookLevels, MarketSeries, OutcomeSide } from '../../domain/market-series.js';
import { MsnapError, UsageError } from '../../errors.js';
import type { Decider } from './decider.js';
import type { MarketRun } from '../engine/market-run.js';
import type { MarketLine } from '../model/result.js';
import { changeBase } from './rule-conditions.js';
import { strategyError } from './strategy-error.js';
import type { ModuleStrategy, StrategyContext, StrategySnapshot } from './strategy.js';

type ContractSide = StrategySnapshot['orderbook_up'];
type ContractLevel = { price: number; size: number };

function levelsOf(l: BookLevels): ContractLevel[] {
  const out = new Array<ContractLevel>(l.length);
  for (let k = 0; k < l.length; k++) out[k] = { price: l.prices[k]!, size: l.sizes[k]! };
  return out;
}

/** A book's own properties until the module reads them: the lists are filled on first read. */
class BookTarget {
  bids: ContractLevel[] | undefined = undefined;
  asks: ContractLevel[] | undefined = undefined;

  /** console.log of a book shows its levels, as it did when books were plain objects. */
  [inspect.custom](_depth: number, opts: InspectOptions, show: typeof inspect): string {
    return show({ bids: this.bids, asks: this.asks }, opts);
  }
}

/**
 * One outcome's book as a module reads it: a plain-looking `{ bids, asks }` (keys, spread, JSON,
 * assignment as before) whose list of `{ price, size }` objects is made when the module first
 * reads it, then kept. Most strategies read one list of a side, and those objects were what drove
 * the collector. The numbers come from the series at that moment: a book kept past its snapshot
 * asks the series for snapshot i again, so it always holds snapshot i's levels.
 */
class LazyBook implements ProxyHandler<BookTarget> {
  private bidsDone = false;
  private asksDone = false;

  constructor(
    private readonly series: MarketSeries,
    private readonly i: number,
    private readonly side: OutcomeSide,
  ) {}

  /** Fill list `key` on its first use of any kind (a read, a write, a delete), as if it had always been there. */
  private fill(t: BookTarget, key: string | symbol): void {
    if (key === 'bids' && !this.bidsDone) {
      this.bidsDone = true;
      t.bids = levelsOf(this.series.book(this.i, this.side)!.bids);
    } else if (key === 'asks' && !this.asksDone) {
      this.asksDone = true;
      t.asks = levelsOf(this.series.book(this.i, this.side)!.asks);
    }
  }

  get(t: BookTarget, key: string | symbol, receiver: unknown): unknown {
    this.fill(t, key);
    return Reflect.get(t, key, receiver);
  }

  getOwnPropertyDescriptor(t: BookTarget, key: string | symbol): PropertyDescriptor | undefined {
    this.fill(t, key);
    return Reflect.getOwnPropertyDescriptor(t, key);
  }

  set(t: BookTarget, key: string | symbol, value: unknown): boolean {
    this.fill(t, key);
    return Reflect.set(t, key, value);
  }

  defineProperty(t: BookTarget, key: string | symbol, desc: PropertyDescriptor): boolean {
    this.fill(t, key);
    return Reflect.defineProperty(t, key, desc);
  }

  deleteProperty(t: BookTarget, key: string | symbol): boolean {
    this.fill(t, key);
    return Reflect.deleteProperty(t, key);
  }

  getPrototypeOf(): object {
    return Object.prototype;
  }
}

function contractBook(series: MarketSeries, i: number, side: OutcomeSide): ContractSide {
  return series.book(i, side) ? (new Proxy(new BookTarget(), new LazyBook(series, i, side)) as unknown as ContractSide) : undefined;
}

/** One snapshot for a module; orderbooks are built only when read (a fresh object per read, as always). */
class SnapshotView implements StrategySnapshot {
  readonly market_id: string;
  readonly time: number;
  readonly price: number;
  readonly price_up: number;
  readonly price_down: number;
  readonly elapsed_ms: number;
  readonly remaining_ms: number;
  readonly change: number;

  constructor(private readonly series: MarketSeries, private readonly i: number, base: number) {
    const m = series.market;
    this.market_id = m.market_id;
    this.time = series.time[i]!;
    this.price = series.price[i]!;
    this.price_up = series.priceUp[i]!;
    this.price_down = series.priceDown[i]!;
    this.elapsed_ms = this.time - m.start_time;
    this.remaining_ms = m.end_time - this.time;
    this.change = this.price / base - 1;
  }

  get orderbook_up(): ContractSide {
    return contractBook(this.series, this.i, 'up');
  }

  get orderbook_down(): ContractSide {
    return contractBook(this.series, this.i, 'down');
  }
}

/** A hook that throws is a broken strategy: one line naming the module's file:line, the hook and where, never a stack trace. */
function hookFailed(strategy: ModuleStrategy, hook: string, where: string, err: unknown): MsnapError {
  return strategyError(hook, where, err, strategy.source);
}

/** A value as an error line shows it: NaN and Infinity as themselves (JSON would say null). */
function shown(v: unknown): string {
  return typeof v === 'number' ? String(v) : JSON.stringify(v) ?? String(v);
}

function checkOrder(what: string, side: unknown, shares: unknown, limit: unknown): void {
  if (side !== 'up' && side !== 'down') throw new UsageError(`${what}: side must be 'up' or 'down', got ${shown(side)}`);
  if (typeof shares !== 'number' || !Number.isFinite(shares) || shares <= 0) {
    throw new UsageError(`${what}: shares must be a positive number, got ${shown(shares)}`);
  }
  if (limit !== undefined && !(typeof limit === 'number' && limit >= 0 && limit <= 1)) {
    throw new UsageError(`${what}: the limit price must be a number in [0, 1], got ${shown(limit)}`);
  }
}

function checkPost(side: unknown, action: unknown, shares: unknown, price: unknown, ttlMs: unknown): void {
  if (action !== 'buy' && action !== 'sell') throw new UsageError(`strategy: post: action must be 'buy' or 'sell', got ${JSON.stringify(action)}`);
  checkOrder('post', side, shares, undefined);
  if (!(typeof price === 'number' && price > 0 && price < 1)) throw new UsageError(`strategy: post: price must be a number in (0, 1), got ${JSON.stringify(price)}`);
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && (ttlMs as number) > 0)) {
    throw new UsageError(`strategy: post: ttlMs must be a whole number of milliseconds > 0, got ${JSON.stringify(ttlMs)}`);
  }
}

/** Use for a module strategy; `params` are its --set values over its own defaults. */
export class ModuleDecider implements Decider {
  private run!: MarketRun;
  private series!: MarketSeries;
  /** The market as known before it ends: no winner, no end price (a decision sees nothing after its snapshot). */
  private blind!: Market;
  private base = Number.NaN;
  /** The snapshot being decided on, -1 outside onSnapshot (orders are refused there). */
  private at = -1;
  private readonly ctx: StrategyContext;

  constructor(private readonly strategy: ModuleStrategy, params: Record<string, unknown>) {
    const self = this;
    this.ctx = {
      buy(side, shares, opts) {
        checkOrder('buy', side, shares, opts?.maxPrice);
        return self.place('buy', side, shares, opts?.maxPrice ?? 1);
      },
      sell(side, shares, opts) {
        checkOrder('sell', side, shares, opts?.minPrice);
        return self.place('sell', side, shares, opts?.minPrice ?? 0);
      },
      post(side, action, shares, price, opts) {
        checkPost(side, action, shares, price, opts?.ttlMs);
        if (self.at < 0) throw new UsageError('strategy: post() is only allowed inside onSnapshot (orders are decided on a snapshot)');
        return self.run.post(self.at, action, side, shares, price, opts?.ttlMs);
      },
      cancel: (id) => self.run.cancel(id),
      get orders() {
        return self.run.orders.map((o) => ({
          id: o.id, side: o.side, action: o.action, price: o.price, shares: o.remaining, live: o.live,
          decided_at: o.decidedAt, expires_at: o.expiresAt === Infinity ? null : o.expiresAt,
        }));
      },
      position: (side) => self.run.position(side),
      get cash() {
        return self.run.account.cash;
      },
      get reserved() {
        return self.run.account.reservedCash;
      },
      get pending() {
        return self.run.pending;
      },
      get market(): Market {
        return self.blind;
      },
      params,
    };
  }

  start(series: MarketSeries, run: MarketRun): void {
    this.series = series;
    this.run = run;
    this.base = changeBase(series);
    this.blind = { ...series.market, status: 'active', price_end: null, winner: null };
    try {
      this.strategy.onMarketStart?.(this.blind, this.ctx);
    } catch (err) {
      throw hookFailed(this.strategy, 'onMarketStart', series.market.market_id, err);
    }
  }

  decide(i: number): void {
    this.at = i;
    try {
      this.strategy.onSnapshot(new SnapshotView(this.series, i, this.base), this.ctx);
    } catch (err) {
      throw hookFailed(this.strategy, 'onSnapshot', `${this.series.market.market_id} ${new Date(this.series.time[i]!).toISOString()}`, err);
    } finally {
      this.at = -1;
    }
  }

  idle(): boolean {
    return false;
  }

  end(line: MarketLine | undefined): void {
    try {
      this.strategy.onMarketEnd?.(this.series.market, line, this.ctx);
    } catch (err) {
      throw hookFailed(this.strategy, 'onMarketEnd', this.series.market.market_id, err);
    }
  }

  private place(action: 'buy' | 'sell', side: OutcomeSide, shares: number, limit: number): boolean {
    if (this.at < 0) throw new UsageError(`${action}() is only allowed inside onSnapshot (orders are decided on a snapshot)`);
    if (this.run.pending) return false;
    this.run.place(this.at, action, side, shares, limit);
    return true;
  }
}
