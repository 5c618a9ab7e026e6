// Rows of the paper tables (paper_accounts, paper_positions, paper_orders, paper_resting) as both SQL stores read
// them, and the mappers to the ledger's records: one copy, so SQLite and PostgreSQL answer alike.
import type { OutcomeSide } from '../../domain/market-series.js';
import { orderRecord, type PaperMoney, type PaperOrderLine, type PaperOrderRecord, type PaperPosition, type RestingOrder } from '../paper-ledger.js';

/** A row of `paper_accounts`. */
export interface PaperAccountRow {
  cash: number;
  realized_pnl: number;
  fees: number;
  rebates: number;
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
  type?: string;
  price?: number | null;
  rebate?: number;
  expires_at?: number | string | null;
}

/** A row of `paper_resting` (bigint columns may come back as strings from PostgreSQL). */
export interface PaperRestingRow {
  order_id: number | string;
  market_id: string;
  side: string;
  action: string;
  model: string;
  price: number;
  remaining: number;
  ahead: number | null;
  last_size: number | null;
  reserved: number;
  evaluated_to: number | string;
  expires_at: number | string | null;
}

/** The columns of `paper_resting` in the order `restingValues` gives them. */
export const PAPER_RESTING_COLUMNS = [
  'order_id',
  'key_id',
  'market_id',
  'side',
  'action',
  'model',
  'price',
  'remaining',
  'ahead',
  'last_size',
  'reserved',
  'evaluated_to',
  'expires_at',
] as const;

/** Use to write a resting order: its values in PAPER_RESTING_COLUMNS order (Infinity ahead as NULL). */
export function restingValues(keyId: number, r: RestingOrder): (string | number | null)[] {
  return [
    r.orderId,
    keyId,
    r.marketId,
    r.side,
    r.action,
    r.model,
    r.price,
    r.remaining,
    Number.isFinite(r.ahead) ? r.ahead : null,
    r.lastSize ?? null,
    r.reserved,
    r.evaluatedTo,
    r.expiresAt ?? null,
  ];
}

/** Use to turn a `paper_resting` row into the desk's resting order. */
export function toResting(r: PaperRestingRow): RestingOrder {
  return {
    orderId: Number(r.order_id),
    marketId: r.market_id,
    side: r.side as OutcomeSide,
    action: r.action as RestingOrder['action'],
    model: r.model as RestingOrder['model'],
    price: r.price,
    remaining: r.remaining,
    ahead: r.ahead ?? Infinity,
    lastSize: r.last_size ?? undefined,
    reserved: r.reserved,
    evaluatedTo: Number(r.evaluated_to),
    expiresAt: r.expires_at === null ? undefined : Number(r.expires_at),
  };
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
  'type',
  'price',
  'rebate',
  'expires_at',
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
    o.type,
    o.price,
    o.rebate,
    o.expires_at,
  ];
}

/** Use to rewrite an order line: its values after the id and key (PAPER_ORDER_COLUMNS without key_id). */
export function orderUpdateValues(o: PaperOrderLine, depth: (d: boolean) => number | boolean): (string | number | boolean | null)[] {
  return orderValues(0, o, depth).slice(1);
}

/** The columns an update sets, in orderUpdateValues' order. */
export const PAPER_ORDER_UPDATE_COLUMNS = PAPER_ORDER_COLUMNS.slice(1);

/** Use to turn a `paper_accounts` row into the ledger's money. */
export function toMoney(r: PaperAccountRow): PaperMoney {
  return { cash: r.cash, realizedPnl: r.realized_pnl, fees: r.fees, rebates: r.rebates };
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
    type: r.type === 'limit' ? 'limit' : 'market',
    price: r.price ?? null,
    rebate: r.rebate ?? 0,
    expires_at: r.expires_at === null || r.expires_at === undefined ? null : Number(r.expires_at),
  });
}
