// The fields of a paper order as `msnap serve` answers it (docs/bots.md "Paper trading"): one
// definition for the server's order list and the client that reads it.
import type { OutcomeSide } from './market-series.js';

/** An order (or a settlement, action `settle`) as answered, without its id and placing time. */
export interface PaperOrderFields {
  status: 'filled' | 'partial' | 'rejected';
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
}
