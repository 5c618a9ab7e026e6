// The fields of a paper order as `msnap serve` answers it (docs/bots.md "Paper trading"): one
// definition for the server's order list and the client that reads it.
import type { OutcomeSide } from './market-series.js';

/**
 * What became of an order: a market order is `filled`, `partial` or `rejected` at once; a limit
 * order is `open` while it rests (filling or not), then `filled`, or `cancelled` / `expired` with
 * what it filled by then, or `rejected` when posted (`crosses`, ...).
 */
export type PaperOrderStatus = 'filled' | 'partial' | 'rejected' | 'open' | 'cancelled' | 'expired';

/** The longest time to live of a paper limit order (31 days: longer than any market it can rest on). */
export const MAX_PAPER_TTL_MS = 31 * 24 * 3600 * 1000;

/** `market`: fill-and-kill at once; `limit`: a resting (maker, post-only) order at `price`. */
export type PaperOrderType = 'market' | 'limit';

/** An order (or a settlement, action `settle`) as answered, without its id and placing time. */
export interface PaperOrderFields {
  status: PaperOrderStatus;
  reason?: string;
  market_id: string;
  side: OutcomeSide;
  /** `settle`: a position paid out when its market resolved (the backtest's settlement line). */
  action: 'buy' | 'sell' | 'settle';
  shares_requested: number;
  shares: number;
  /** null when nothing filled. */
  vwap: number | null;
  fee: number;
  /** The executing snapshot's time (a settlement: the market's end_time; a rejection: the clock's now). */
  filled_at: number;
  /** Whether the fill walked a stored book (false at the quote without a book, and when rejected). */
  depth: boolean;
  levels: number;
  cash_after: number;
  /** Shares a buy gave up as its fee where the market's buys pay in shares (`fee` is their USDC value); else 0. */
  fee_shares: number;
  type: PaperOrderType;
  /** A limit order's price; null on a market order. */
  price: number | null;
  /** What a limit order's fills earned as maker rebates (USDC); 0 on a market order. */
  rebate: number;
  /** When a limit order stops resting (its time to live ran out), data clock ms; null: at the market's end. */
  expires_at: number | null;
}
