// A JavaScript strategy as a decider: its hooks see one snapshot object per call (that is their
// API) and place orders through ctx; the engine executes them exactly as it does a rule's.
import type { Market } from '../../domain/market.js';
import type { BookLevels, MarketSeries, OutcomeSide } from '../../domain/market-series.js';
import { MsnapError, UsageError } from '../../errors.js';
import type { Decider } from './decider.js';
import type { MarketRun } from '../engine/market-run.js';
import type { MarketLine } from '../model/result.js';
import { changeBase } from './rule-conditions.js';
import { strategyError } from './strategy-error.js';
import type { ModuleStrategy, StrategyContext, StrategySnapshot } from './strategy.js';

type ContractSide = StrategySnapshot['orderbook_up'];

function levelsOf(l: BookLevels): { price: number; size: number }[] {
  const out = new Array<{ price: number; size: number }>(l.length);
  for (let k = 0; k < l.length; k++) out[k] = { price: l.prices[k]!, size: l.sizes[k]! };
  return out;
}

function contractBook(series: MarketSeries, i: number, side: OutcomeSide): ContractSide {
  const b = series.book(i, side);
  return b ? { bids: levelsOf(b.bids), asks: levelsOf(b.asks) } : undefined;
}

/** One snapshot for a module; orderbooks are built only when read. */
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
