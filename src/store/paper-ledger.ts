// The paper accounts `msnap serve` keeps per API key (docs/bots.md "Paper trading"): cash,
// positions and the order list, in the store's own database so they survive restarts and every
// instance on one PostgreSQL shares them. SQLite (sqlite/paper-ledger-sqlite.ts) and PostgreSQL
// (postgres/pg-paper-ledger.ts) implement it; src/paper holds the trading logic over it.
import type { OutcomeSide } from '../domain/market-series.js';
import type { PaperOrderFields } from '../domain/paper-order.js';

/** The money of one account; numbers are kept unrounded (the answers round them). */
export interface PaperMoney {
  cash: number;
  /** Proceeds of sells and settlements minus the cost (at avg_price) of the shares they closed; fees apart. */
  realizedPnl: number;
  /** Every fee paid. */
  fees: number;
  /** Every maker rebate earned (paid into cash at its market's end; until then in the pending rebates). */
  rebates: number;
}

/** Shares of one side of one market; `cost` = sum of price × shares bought, less the cost of shares sold. */
export interface PaperPosition {
  marketId: string;
  side: OutcomeSide;
  shares: number;
  cost: number;
}

/** One line of the order list: an order as it was answered, or a settlement (action `settle`). */
export type PaperOrderLine = PaperOrderFields & {
  /** The server's data clock when it was placed (or settled). */
  created_at: number;
};

/** A stored order line with its id (ids grow: a newer line has a larger id). */
export type PaperOrderRecord = PaperOrderLine & { id: number };

/** Use for an order line with its id, fields in the documented order (id, status, reason?, ..., created_at, fee_shares, type, price, rebate, expires_at). */
export function orderRecord(id: number, o: PaperOrderLine): PaperOrderRecord {
  return {
    id,
    status: o.status,
    ...(o.reason !== undefined ? { reason: o.reason } : {}),
    market_id: o.market_id,
    side: o.side,
    action: o.action,
    shares_requested: o.shares_requested,
    shares: o.shares,
    vwap: o.vwap,
    fee: o.fee,
    filled_at: o.filled_at,
    depth: o.depth,
    levels: o.levels,
    cash_after: o.cash_after,
    created_at: o.created_at,
    fee_shares: o.fee_shares,
    type: o.type,
    price: o.price,
    rebate: o.rebate,
    expires_at: o.expires_at,
  };
}

/**
 * The fill model's state of one resting limit order (its order line is `orderId`): what the
 * desk steps on each snapshot after `evaluatedTo`, and the cash a buy still holds reserved.
 */
export interface RestingOrder {
  orderId: number;
  marketId: string;
  side: OutcomeSide;
  action: 'buy' | 'sell';
  /** The maker fill model it was posted under (serve --paper-maker-fill then). */
  model: 'cross' | 'queue';
  price: number;
  remaining: number;
  /** `queue`: shares ahead of it at its price (Infinity: not seen yet). */
  ahead: number;
  /** `queue`: the size at its price last seen (undefined: not seen yet). */
  lastSize: number | undefined;
  /** Cash taken out of the account's cash for a buy's remaining shares (and fees); 0 for a sell. */
  reserved: number;
  /** The time of the last snapshot it was stepped on (or went live on). */
  evaluatedTo: number;
  /** Data clock ms at which it expires; undefined: it rests until its market ends. */
  expiresAt: number | undefined;
}

/** One account, locked for one transaction: what it holds, and the writes that commit with it. */
export interface PaperAccountTx {
  readonly money: PaperMoney;
  readonly positions: readonly PaperPosition[];
  setMoney(money: PaperMoney): Promise<void>;
  /** Writes a position; 0 shares removes it. */
  putPosition(p: PaperPosition): Promise<void>;
  /** Appends an order line; returns its id. */
  addOrder(line: PaperOrderLine): Promise<number>;
  /** Rewrites order line `id` (a limit order as it fills or closes). */
  updateOrder(id: number, line: PaperOrderLine): Promise<void>;
  /** The account's resting limit orders, oldest first. */
  readonly resting: readonly RestingOrder[];
  /** The order line of `id` when it is the account's. */
  order(id: number): Promise<PaperOrderRecord | undefined>;
  /** Writes a resting order's state. */
  putResting(r: RestingOrder): Promise<void>;
  /** Removes a resting order's state (it closed). */
  deleteResting(orderId: number): Promise<void>;
  /** Maker rebates earned and not paid yet, by market. */
  readonly pendingRebates: ReadonlyMap<string, number>;
  /** Writes a market's unpaid rebates; 0 removes them (paid). */
  putRebate(marketId: string, amount: number): Promise<void>;
  /** Removes every position, order line, resting order and unpaid rebate of the account (its money is set with setMoney). */
  clear(): Promise<void>;
}

/** Use for everything paper trading stores. */
export interface PaperLedger {
  /**
   * Runs fn in one transaction on key `keyId`'s account (opened with `start.cash` at `start.at` when it has none),
   * locked against every other transaction on it, in any process: its writes commit together or
   * not at all. fn awaits nothing but `tx` (SQLite runs it without yielding to other requests).
   */
  withAccount<T>(keyId: number, start: { cash: number; at: number }, fn: (tx: PaperAccountTx) => Promise<T>): Promise<T>;
  /** The markets the key holds positions or unpaid rebates in, read without a lock (to fetch them before one is taken). */
  heldMarkets(keyId: number): Promise<string[]>;
  /** The key's resting limit orders, read without a lock (to read their snapshots before one is taken). */
  restingOrders(keyId: number): Promise<RestingOrder[]>;
  /** A page of the key's order lines, newest first, and how many it has; `open`: only resting limit orders. */
  orders(keyId: number, limit: number, offset: number, open?: boolean): Promise<{ orders: PaperOrderRecord[]; total: number }>;
}
