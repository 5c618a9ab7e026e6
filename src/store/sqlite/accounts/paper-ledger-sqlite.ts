// The SQLite side of PaperLedger (migration 11), on the Store's one connection. A transaction is
// the store's own (BEGIN IMMEDIATE, queued behind any other): one process writes the file, so the
// write lock is the account lock.
import type Database from 'better-sqlite3';
import { orderValues, PAPER_ORDER_COLUMNS, toMoney, toOrder, toPosition, type PaperAccountRow, type PaperOrderRow, type PaperPositionRow } from '../../core/paper-rows.js';
import type { PaperAccountTx, PaperLedger, PaperMoney, PaperOrderLine, PaperOrderRecord, PaperPosition } from '../../paper-ledger.js';

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
      const tx: PaperAccountTx = {
        money,
        positions,
        setMoney: async (m: PaperMoney) => void s.setMoney.run(m.cash, m.realizedPnl, m.fees, keyId),
        putPosition: async (p: PaperPosition) => {
          if (p.shares > 0) s.putPosition.run(keyId, p.marketId, p.side, p.shares, p.cost);
          else s.deletePosition.run(keyId, p.marketId, p.side);
        },
        addOrder: async (o: PaperOrderLine) => Number(s.addOrder.run(...orderValues(keyId, o, (d) => (d ? 1 : 0))).lastInsertRowid),
        clear: async () => {
          s.clearPositions.run(keyId);
          s.clearOrders.run(keyId);
        },
      };
      return fn(tx);
    });
  }

  async heldMarkets(keyId: number): Promise<string[]> {
    return this.stmts.held.all(keyId) as string[];
  }

  async orders(keyId: number, limit: number, offset: number): Promise<{ orders: PaperOrderRecord[]; total: number }> {
    const rows = this.stmts.orders.all(keyId, limit, offset) as PaperOrderRow[];
    return { orders: rows.map(toOrder), total: this.stmts.count.get(keyId) as number };
  }
}

function prepare(db: Database.Database) {
  return {
    create: db.prepare('INSERT INTO paper_accounts (key_id, cash, created_at) VALUES (?, ?, ?) ON CONFLICT (key_id) DO NOTHING'),
    account: db.prepare('SELECT cash, realized_pnl, fees FROM paper_accounts WHERE key_id = ?'),
    positions: db.prepare('SELECT market_id, side, shares, cost FROM paper_positions WHERE key_id = ? ORDER BY market_id, side'),
    held: db.prepare('SELECT DISTINCT market_id FROM paper_positions WHERE key_id = ?').pluck(),
    setMoney: db.prepare('UPDATE paper_accounts SET cash = ?, realized_pnl = ?, fees = ? WHERE key_id = ?'),
    putPosition: db.prepare(
      `INSERT INTO paper_positions (key_id, market_id, side, shares, cost) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key_id, market_id, side) DO UPDATE SET shares = excluded.shares, cost = excluded.cost`,
    ),
    deletePosition: db.prepare('DELETE FROM paper_positions WHERE key_id = ? AND market_id = ? AND side = ?'),
    addOrder: db.prepare(`INSERT INTO paper_orders (${PAPER_ORDER_COLUMNS.join(', ')}) VALUES (${PAPER_ORDER_COLUMNS.map(() => '?').join(', ')})`),
    clearPositions: db.prepare('DELETE FROM paper_positions WHERE key_id = ?'),
    clearOrders: db.prepare('DELETE FROM paper_orders WHERE key_id = ?'),
    orders: db.prepare('SELECT * FROM paper_orders WHERE key_id = ? ORDER BY id DESC LIMIT ? OFFSET ?'),
    count: db.prepare('SELECT count(*) FROM paper_orders WHERE key_id = ?').pluck(),
  };
}
