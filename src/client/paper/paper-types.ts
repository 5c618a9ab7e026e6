// Paper trading's records as `msnap serve` sends them (docs/bots.md "Paper trading") and the API
// over them: types only, so the client's types can name them without importing code.
import type { PaperOrderFields } from '../../domain/paper-order.js';

/** What `POST /v1/paper/orders` takes. */
export interface PaperOrderRequest {
  market_id: string;
  side: 'up' | 'down';
  action: 'buy' | 'sell';
  shares: number;
  /** Buys: walk the asks no higher than this. */
  max_price?: number;
  /** Sells: walk the bids no lower than this. */
  min_price?: number;
}

/** What `POST /v1/paper/orders` takes for a resting (maker, post-only) limit order. */
export interface PaperLimitRequest {
  type: 'limit';
  market_id: string;
  side: 'up' | 'down';
  action: 'buy' | 'sell';
  shares: number;
  /** The price it rests at (bids for a buy, asks for a sell). */
  price: number;
  /** Time to live on the server's clock; absent: until the market ends. */
  ttl_ms?: number;
}

/** One executed (or rejected) paper order, or a settlement line of the order list. */
export type PaperOrder = PaperOrderFields & { id: number };

/** A paper position: shares of one side of one market and what they cost on average. */
export interface PaperPosition {
  market_id: string;
  side: 'up' | 'down';
  shares: number;
  avg_price: number;
}

/** A key's paper account. */
export interface PaperAccount {
  cash: number;
  positions: PaperPosition[];
  realized_pnl: number;
  fees: number;
  /** Cash held by resting limit buys (apart from `cash`); 0 from a server without limit orders. */
  reserved_cash: number;
  /** Maker rebates earned. */
  rebates: number;
}

/** A page of the account's orders, newest first. */
export interface PaperOrdersPage {
  orders: PaperOrder[];
  total: number;
}

/** What paper trading offers; `MsnapApi.capabilities().paper` when the source is a service. */
export interface PaperApi {
  order(req: PaperOrderRequest): Promise<PaperOrder>;
  /** Posts a limit order: answered `open`, or `rejected` (`crosses` when the book would fill it at once). */
  post(req: PaperLimitRequest): Promise<PaperOrder>;
  /** Cancels a resting limit order; answers it `cancelled` (with what it filled). */
  cancel(id: number): Promise<PaperOrder>;
  account(): Promise<PaperAccount>;
  /** `open`: only resting limit orders. */
  orders(q?: { limit?: number; offset?: number; open?: boolean }): Promise<PaperOrdersPage>;
  reset(): Promise<PaperAccount>;
}
