// The shape of a run's result: docs/backtest-model.md's Output section, keys in its order.
import type { MakerFillModel } from './maker-fill.js';

/** One line of the trade list: a buy, a sell or a settlement. */
export interface Trade {
  market_id: string;
  side: 'up' | 'down';
  action: 'buy' | 'sell' | 'settle';
  decided_at: number;
  filled_at: number;
  shares_requested: number;
  shares: number;
  vwap: number;
  fee: number;
  cash_after: number;
  depth: boolean;
  levels: number;
  /** Shares a buy gave up as its fee where the market's buys pay in shares (`fee` is their USDC value); else 0. */
  fee_shares: number;
  /** Runs with maker orders only: 'maker' for a resting order's fill, else 'taker' (settlements too). */
  kind?: 'taker' | 'maker';
  /** Runs with maker orders only: the rebate a maker fill earned (USDC, paid at the market's end); else 0. */
  rebate?: number;
}

/** One traded market. */
export interface MarketLine {
  market_id: string;
  winner: 'Up' | 'Down' | null;
  settled: boolean;
  entries: number;
  fees: number;
  pnl: number;
  /** Runs with maker orders only: the rebates its maker fills earned (in `pnl` too). */
  rebates?: number;
}

/** The run's statistics. */
export interface BacktestSummary {
  start_cash: number;
  end_cash: number;
  pnl: number;
  return: number;
  markets_traded: number;
  orders: number;
  fills: number;
  rejected_orders: number;
  expired_orders: number;
  shares_bought: number;
  fees: number;
  wins: number;
  losses: number;
  win_rate: number | null;
  avg_pnl_per_market: number | null;
  max_drawdown: number;
  sharpe: number | null;
  brier: number | null;
  fills_without_depth: number;
  unsettled_markets: number;
  /** Runs with maker orders only (from here on): rebates earned, apart from `fees`. */
  rebates?: number;
  /** Maker orders posted (counted in `orders` too). */
  maker_orders?: number;
  /** Fills of resting orders (counted in `fills` too). */
  maker_fills?: number;
  /** Posts rejected because they would have crossed the book (counted in `rejected_orders` too). */
  maker_crossed?: number;
  /** Maker orders cancelled: by the strategy, by their time to live, or at the market's last snapshot. */
  maker_cancelled?: number;
}

/** What `msnap backtest --format json` writes: one object, the same bytes for the same inputs. */
export interface BacktestResult {
  strategy: string;
  /** `maker_fill` only in runs with maker orders (a run without any writes version 2's output unchanged). */
  params: { cash: number; latency_ms: number; fee_rate: number | null; no_book: 'quote' | 'reject'; maker_fill?: MakerFillModel };
  data: { markets: number; snapshots: number; from: number | null; to: number | null };
  summary: BacktestSummary;
  markets: MarketLine[];
  trades: Trade[];
  equity: { time: number; equity: number }[];
}

/** What runBacktest reports after each market (for a progress line). */
export interface BacktestProgress {
  markets: number;
  snapshots: number;
}
