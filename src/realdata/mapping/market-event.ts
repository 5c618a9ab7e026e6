// The one shape every real-data reader turns its source into (PMXT archive rows, the CLOB market
// WebSocket): the reconstruction in snapshot-tape.ts reads only these, so an import and a
// recording of the same events give the same snapshots by construction.

/** One price level: price in units of 10^-PRICE_DECIMALS, size in units of 10^-SIZE_DECIMALS. */
export interface ScaledLevel {
  price: number;
  size: number;
}

/** What happened to one token's book or trades, at the exchange's time `ts` (epoch ms). */
export type MarketEvent =
  /** A full book: replaces every level of the token's book. */
  | { kind: 'book'; ts: number; token: string; bids: ScaledLevel[]; asks: ScaledLevel[] }
  /** One level set (`size` 0 removes it): BUY sets a bid, SELL an ask. */
  | { kind: 'level'; ts: number; token: string; side: 'bid' | 'ask'; price: number; size: number }
  /** A trade: the token's last trade price. */
  | { kind: 'trade'; ts: number; token: string; price: number };

/** Events of the same exchange time keep the order they were received in: `seq` says it. */
export type SequencedEvent = MarketEvent & { seq: number };

/** Use to order events as the mapping applies them: exchange time, then the order received. */
export function byTimeThenReceipt(a: SequencedEvent, b: SequencedEvent): number {
  return a.ts - b.ts || a.seq - b.seq;
}
