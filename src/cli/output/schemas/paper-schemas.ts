// How paper trading's records print: an order, the account, its positions, in every format.
import type { PaperAccount, PaperOrder, PaperPosition } from '../../../client/paper/paper-types.js';
import { isoCell, type RecordSchema } from './schema.js';

/** `msnap paper buy|sell` and `paper orders`: the order as the server executed it. */
export const PAPER_ORDER_SCHEMA: RecordSchema<PaperOrder> = {
  columns: [
    { name: 'id', value: (o) => o.id, parquet: 'int64' },
    { name: 'status', value: (o) => o.status, parquet: 'string' },
    { name: 'reason', value: (o) => o.reason ?? null, parquet: 'string', nullable: true, dropOrder: 3 },
    { name: 'market_id', value: (o) => o.market_id, parquet: 'string' },
    { name: 'side', value: (o) => o.side, parquet: 'string' },
    { name: 'action', value: (o) => o.action, parquet: 'string' },
    { name: 'shares_requested', value: (o) => o.shares_requested, label: 'asked', parquet: 'double', dropOrder: 2 },
    { name: 'shares', value: (o) => o.shares, parquet: 'double' },
    { name: 'vwap', value: (o) => o.vwap, parquet: 'double', nullable: true },
    { name: 'fee', value: (o) => o.fee, parquet: 'double' },
    { name: 'cash_after', value: (o) => o.cash_after, label: 'cash after', parquet: 'double' },
    { name: 'levels', value: (o) => o.levels, parquet: 'int64', dropOrder: 1 },
    { name: 'depth', value: (o) => o.depth, parquet: 'boolean', dropOrder: 0 },
    { name: 'filled_at', value: (o) => o.filled_at, label: 'at', table: (o) => isoCell(o.filled_at), parquet: 'timestamp' },
    { name: 'fee_shares', value: (o) => o.fee_shares, label: 'fee shares', parquet: 'double', dropOrder: 4 },
    { name: 'type', value: (o) => o.type, parquet: 'string', dropOrder: 5 },
    { name: 'price', value: (o) => o.price, parquet: 'double', nullable: true },
    { name: 'rebate', value: (o) => o.rebate, parquet: 'double', dropOrder: 6 },
    { name: 'expires_at', value: (o) => o.expires_at, label: 'expires', table: (o) => isoCell(o.expires_at), parquet: 'timestamp', nullable: true, dropOrder: 7 },
  ],
};

/** `msnap paper account`: cash, realised P&L and fees; the positions are `paper positions`. */
export const PAPER_ACCOUNT_SCHEMA: RecordSchema<PaperAccount> = {
  columns: [
    { name: 'cash', value: (a) => a.cash, parquet: 'double' },
    { name: 'realized_pnl', value: (a) => a.realized_pnl, label: 'realized P&L', parquet: 'double' },
    { name: 'fees', value: (a) => a.fees, parquet: 'double' },
    { name: 'positions', value: (a) => a.positions.length, label: 'open positions', parquet: 'int64' },
    { name: 'reserved_cash', value: (a) => a.reserved_cash, label: 'reserved', parquet: 'double' },
    { name: 'rebates', value: (a) => a.rebates, parquet: 'double' },
  ],
  // JSON keeps the server's whole body, positions included.
  json: (a) => a,
};

/** `msnap paper positions`. */
export const PAPER_POSITION_SCHEMA: RecordSchema<PaperPosition> = {
  columns: [
    { name: 'market_id', value: (p) => p.market_id, parquet: 'string' },
    { name: 'side', value: (p) => p.side, parquet: 'string' },
    { name: 'shares', value: (p) => p.shares, parquet: 'double' },
    { name: 'avg_price', value: (p) => p.avg_price, label: 'avg price', parquet: 'double' },
  ],
  emptyTable: 'no open positions: `msnap paper buy COIN TYPE up|down SHARES` opens one',
};
