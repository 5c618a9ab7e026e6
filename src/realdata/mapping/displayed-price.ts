// Polymarket's displayed price of one token (REALDATA.md), on exact decimal units: the midpoint
// when the spread is at most 0.10, else the last trade; with no trade, the midpoint or the one
// best price there is.
import type { TokenBook } from './token-book.js';

/** The widest spread (in units of 0.0001) at which the midpoint is shown: 0.10. */
export const MAX_MIDPOINT_SPREAD = 1_000;

/**
 * Use per token at each tick: the displayed price in units of 0.0001 (a midpoint that falls
 * between two units rounds half up, as msnap stores 4 decimals), or -1 when there is none.
 */
export function displayedPrice(book: TokenBook): number {
  const bid = book.bestBid();
  const ask = book.bestAsk();
  if (bid >= 0 && ask >= 0) {
    const mid = Math.floor((bid + ask + 1) / 2);
    if (ask - bid <= MAX_MIDPOINT_SPREAD) return mid;
    return book.lastTrade >= 0 ? book.lastTrade : mid;
  }
  if (book.lastTrade >= 0) return book.lastTrade;
  if (bid >= 0) return bid;
  return ask;
}
