// Rows of the paper tables (paper_accounts, paper_positions, paper_orders) as both SQL stores read
// them, and the mappers to the ledger's records: one copy, so SQLite and PostgreSQL answer alike.
import type { OutcomeSide } from '../../domain/market-series.js';
import { orderRecord, type PaperMoney, type PaperOrderLine, type PaperOrderRecord, type PaperPosition } from '../paper-ledger.js';

/** A row of `paper_accounts`. */
export interface PaperAccountRow {
  cash: number;
  realized_pnl: number;
  fees: number;
}

/** A row of `paper_positions`. */
export interface PaperPositionRow {
  market_id: string;
  side: string;
  shares: number;
  cost: number;
}

/** A row of `paper_orders` (depth: 0/1 in SQLite, boolean in PostgreSQL). */
export interface PaperOrderRow {
  id: number;
  created_at: number;
  status: string;
  reason: string | null;
  market_id: string;
  side: string;
  action: string;
  shares_requested: number;
  shares: number;
  vwap: number | null;
  fee: number;
  filled_at: number;
  depth: number | boolean;
  levels: number;
  cash_after: number;
  /** Absent in a database read before the column was added. */
  fee_shares?: number;
}

/** The columns of `paper_orders` an insert writes, in the order `orderValues` gives them. */
export const PAPER_ORDER_COLUMNS = [
  'key_id',
  'created_at',
  'status',
  'reason',
  'market_id',
  'side',
  'action',
  'shares_requested',
  'shares',
  'vwap',
  'fee',
  'filled_at',
  'depth',
  'levels',
  'cash_after',
  'fee_shares',
] as const;

/** Use to write an order line: its values in PAPER_ORDER_COLUMNS order (depth as the backend's boolean). */
export function orderValues(keyId: number, o: PaperOrderLine, depth: (d: boolean) => number | boolean): (string | number | boolean | null)[] {
  return [
    keyId,
    o.created_at,
    o.status,
    o.reason ?? null,
    o.market_id,
    o.side,
    o.action,
    o.shares_requested,
    o.shares,
    o.vwap,
    o.fee,
    o.filled_at,
    depth(o.depth),
    o.levels,
    o.cash_after,
    o.fee_shares,
  ];
}

/** Use to turn a `paper_accounts` row into the ledger's money. */
export function toMoney(r: PaperAccountRow): PaperMoney {
  return { cash: r.cash, realizedPnl: r.realized_pnl, fees: r.fees };
}

/** Use to turn a `paper_positions` row into a position. */
export function toPosition(r: PaperPositionRow): PaperPosition {
  return { marketId: r.market_id, side: r.side as OutcomeSide, shares: r.shares, cost: r.cost };
}

/** Use to turn a `paper_orders` row into the record the API answers. */
export function toOrder(r: PaperOrderRow): PaperOrderRecord {
  return orderRecord(r.id, {
    created_at: r.created_at,
    status: r.status as PaperOrderLine['status'],
    ...(r.reason !== null ? { reason: r.reason } : {}),
    market_id: r.market_id,
    side: r.side as OutcomeSide,
    action: r.action as PaperOrderLine['action'],
    shares_requested: r.shares_requested,
    shares: r.shares,
    vwap: r.vwap,
    fee: r.fee,
    filled_at: r.filled_at,
    depth: Boolean(r.depth),
    levels: r.levels,
    cash_after: r.cash_after,
    fee_shares: r.fee_shares ?? 0,
  });
}
