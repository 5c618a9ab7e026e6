// The SQLite side of PaperLedger (migration 11), on the Store's one connection. A transaction is
// the store's own (BEGIN IMMEDIATE, queued behind any other): one process writes the file, so the
// write lock is the account lock.
import type Database from 'better-sqlite3';
import {
  orderUpdateValues,
  orderValues,
  PAPER_ORDER_COLUMNS,
  PAPER_ORDER_UPDATE_COLUMNS,
  PAPER_RESTING_COLUMNS,
  restingValues,
  toMoney,
  toOrder,
  toPosition,
  toResting,
  type PaperAccountRow,
  type PaperOrderRow,
  type PaperPositionRow,
  type PaperRestingRow,
} from '../../core/paper-rows.js';
import type { PaperAccountTx, PaperLedger, PaperMoney, PaperOrderLine, PaperOrderRecord, PaperPosition, RestingOrder } from '../../paper-ledger.js';

/** Use with the `db` of an open SqliteStore; `transaction` is the store's. */
export class SqlitePaperLedger implements PaperLedger {
  private prepared: ReturnType<typeof prepare> | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly transaction: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  // Prepared on first use: a read-only store over a database older than migration 11 has no such tables.
  private get stmts(): ReturnType<typeof prepare> {
    this.prepared ??= prepare(this.db);
    return this.prepared;
  }

  withAccount<T>(keyId: number, start: { cash: number; at: number }, fn: (tx: PaperAccountTx) => Promise<T>): Promise<T> {
    return this.transaction(() => {
      const s = this.stmts;
      s.create.run(keyId, start.cash, start.at);
      const money = toMoney(s.account.get(keyId) as PaperAccountRow);
      const positions = (s.positions.all(keyId) as PaperPositionRow[]).map(toPosition);
      const bit = (d: boolean) => (d ? 1 : 0);
      const tx: PaperAccountTx = {
        money,
        positions,
        resting: (s.resting.all(keyId) as PaperRestingRow[]).map(toResting),
        pendingRebates: new Map((s.rebates.all(keyId) as { market_id: string; amount: number }[]).map((r) => [r.market_id, r.amount])),
        setMoney: async (m: PaperMoney) => void s.setMoney.run(m.cash, m.realizedPnl, m.fees, m.rebates, keyId),
        putPosition: async (p: PaperPosition) => {
          if (p.shares > 0) s.putPosition.run(keyId, p.marketId, p.side, p.shares, p.cost);
          else s.deletePosition.run(keyId, p.marketId, p.side);
        },
        addOrder: async (o: PaperOrderLine) => Number(s.addOrder.run(...orderValues(keyId, o, bit)).lastInsertRowid),
        updateOrder: async (id: number, o: PaperOrderLine) => void s.updateOrder.run(...orderUpdateValues(o, bit), id, keyId),
        order: async (id: number) => {
          const row = s.order.get(id, keyId) as PaperOrderRow | undefined;
          return row ? toOrder(row) : undefined;
        },
        putResting: async (r: RestingOrder) => void s.putResting.run(...restingValues(keyId, r)),
        deleteResting: async (orderId: number) => void s.deleteResting.run(orderId, keyId),
        putRebate: async (marketId: string, amount: number) => {
          if (amount > 0) s.putRebate.run(keyId, marketId, amount);
          else s.deleteRebate.run(keyId, marketId);
        },
        clear: async () => {
          s.clearPositions.run(keyId);
          s.clearOrders.run(keyId);
          s.clearResting.run(keyId);
          s.clearRebates.run(keyId);
        },
      };
      return fn(tx);
    });
  }

  async heldMarkets(keyId: number): Promise<string[]> {
    return this.stmts.held.all(keyId, keyId) as string[];
  }

  async restingOrders(keyId: number): Promise<RestingOrder[]> {
    return (this.stmts.resting.all(keyId) as PaperRestingRow[]).map(toResting);
  }

  async orders(keyId: number, limit: number, offset: number, open = false): Promise<{ orders: PaperOrderRecord[]; total: number }> {
    const s = this.stmts;
    const rows = (open ? s.openOrders : s.orders).all(keyId, limit, offset) as PaperOrderRow[];
    return { orders: rows.map(toOrder), total: (open ? s.openCount : s.count).get(keyId) as number };
  }
}

function prepare(db: Database.Database) {
  return {
    create: db.prepare('INSERT INTO paper_accounts (key_id, cash, created_at) VALUES (?, ?, ?) ON CONFLICT (key_id) DO NOTHING'),
    account: db.prepare('SELECT cash, realized_pnl, fees, rebates FROM paper_accounts WHERE key_id = ?'),
    positions: db.prepare('SELECT market_id, side, shares, cost FROM paper_positions WHERE key_id = ? ORDER BY market_id, side'),
    held: db.prepare('SELECT market_id FROM paper_positions WHERE key_id = ? UNION SELECT market_id FROM paper_rebates WHERE key_id = ?').pluck(),
    rebates: db.prepare('SELECT market_id, amount FROM paper_rebates WHERE key_id = ? ORDER BY market_id'),
    putRebate: db.prepare(
      'INSERT INTO paper_rebates (key_id, market_id, amount) VALUES (?, ?, ?) ON CONFLICT (key_id, market_id) DO UPDATE SET amount = excluded.amount',
    ),
    deleteRebate: db.prepare('DELETE FROM paper_rebates WHERE key_id = ? AND market_id = ?'),
    clearRebates: db.prepare('DELETE FROM paper_rebates WHERE key_id = ?'),
    setMoney: db.prepare('UPDATE paper_accounts SET cash = ?, realized_pnl = ?, fees = ?, rebates = ? WHERE key_id = ?'),
    putPosition: db.prepare(
      `INSERT INTO paper_positions (key_id, market_id, side, shares, cost) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key_id, market_id, side) DO UPDATE SET shares = excluded.shares, cost = excluded.cost`,
    ),
    deletePosition: db.prepare('DELETE FROM paper_positions WHERE key_id = ? AND market_id = ? AND side = ?'),
    addOrder: db.prepare(`INSERT INTO paper_orders (${PAPER_ORDER_COLUMNS.join(', ')}) VALUES (${PAPER_ORDER_COLUMNS.map(() => '?').join(', ')})`),
    clearPositions: db.prepare('DELETE FROM paper_positions WHERE key_id = ?'),
    clearOrders: db.prepare('DELETE FROM paper_orders WHERE key_id = ?'),
    clearResting: db.prepare('DELETE FROM paper_resting WHERE key_id = ?'),
    updateOrder: db.prepare(`UPDATE paper_orders SET ${PAPER_ORDER_UPDATE_COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE id = ? AND key_id = ?`),
    order: db.prepare('SELECT * FROM paper_orders WHERE id = ? AND key_id = ?'),
    resting: db.prepare('SELECT * FROM paper_resting WHERE key_id = ? ORDER BY order_id'),
    putResting: db.prepare(
      `INSERT OR REPLACE INTO paper_resting (${PAPER_RESTING_COLUMNS.join(', ')}) VALUES (${PAPER_RESTING_COLUMNS.map(() => '?').join(', ')})`,
    ),
    deleteResting: db.prepare('DELETE FROM paper_resting WHERE order_id = ? AND key_id = ?'),
    orders: db.prepare('SELECT * FROM paper_orders WHERE key_id = ? ORDER BY id DESC LIMIT ? OFFSET ?'),
    count: db.prepare('SELECT count(*) FROM paper_orders WHERE key_id = ?').pluck(),
    openOrders: db.prepare(
      'SELECT o.* FROM paper_resting r JOIN paper_orders o ON o.id = r.order_id WHERE r.key_id = ? ORDER BY o.id DESC LIMIT ? OFFSET ?',
    ),
    openCount: db.prepare('SELECT count(*) FROM paper_resting WHERE key_id = ?').pluck(),
  };
}
