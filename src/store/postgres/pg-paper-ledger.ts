// The PostgreSQL side of PaperLedger (migration 5): any number of instances share the accounts.
// Each transaction locks the account's row (SELECT ... FOR UPDATE) on its own connection, so the
// orders of one key apply one at a time, exactly once, whichever instance takes them; other keys
// go on in parallel. Every statement of fn runs on that connection: a transaction that waited for
// a lock never needs a second pooled connection to finish.
import type postgres from 'postgres';
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
} from '../core/paper-rows.js';
import type { PaperAccountTx, PaperLedger, PaperMoney, PaperOrderLine, PaperOrderRecord, PaperPosition, RestingOrder } from '../paper-ledger.js';
import type { Pg } from './pg-connection.js';
import { inTransaction } from './pg-transaction.js';

const INSERT_ORDER = `INSERT INTO paper_orders (${PAPER_ORDER_COLUMNS.join(', ')}) VALUES (${PAPER_ORDER_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`;
const n = PAPER_ORDER_UPDATE_COLUMNS.length;
const UPDATE_ORDER = `UPDATE paper_orders SET ${PAPER_ORDER_UPDATE_COLUMNS.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE id = $${n + 1} AND key_id = $${n + 2}`;
const PUT_RESTING = `INSERT INTO paper_resting (${PAPER_RESTING_COLUMNS.join(', ')}) VALUES (${PAPER_RESTING_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  ON CONFLICT (order_id) DO UPDATE SET ${PAPER_RESTING_COLUMNS.slice(1).map((c) => `${c} = excluded.${c}`).join(', ')}`;

/** Use through PgStore.paper; `pool` runs the transactions (undefined inside a store transaction: `sql` is its connection). */
export class PgPaperLedger implements PaperLedger {
  constructor(
    private readonly sql: Pg,
    private readonly pool: postgres.Sql | undefined,
  ) {}

  async withAccount<T>(keyId: number, start: { cash: number; at: number }, fn: (tx: PaperAccountTx) => Promise<T>): Promise<T> {
    const run = async (sql: Pg): Promise<T> => {
      await sql`INSERT INTO paper_accounts (key_id, cash, created_at) VALUES (${keyId}, ${start.cash}, ${start.at}) ON CONFLICT (key_id) DO NOTHING`;
      const [account] = await sql<PaperAccountRow[]>`SELECT cash, realized_pnl, fees, rebates FROM paper_accounts WHERE key_id = ${keyId} FOR UPDATE`;
      const rows = await sql<PaperPositionRow[]>`SELECT market_id, side, shares, cost FROM paper_positions WHERE key_id = ${keyId} ORDER BY market_id, side`;
      const resting = await sql<PaperRestingRow[]>`SELECT * FROM paper_resting WHERE key_id = ${keyId} ORDER BY order_id`;
      const rebates = await sql<{ market_id: string; amount: number }[]>`SELECT market_id, amount FROM paper_rebates WHERE key_id = ${keyId} ORDER BY market_id`;
      const tx: PaperAccountTx = {
        money: toMoney(account!),
        positions: rows.map(toPosition),
        resting: resting.map(toResting),
        pendingRebates: new Map(rebates.map((r) => [r.market_id, r.amount])),
        setMoney: async (m: PaperMoney) => {
          await sql`UPDATE paper_accounts SET cash = ${m.cash}, realized_pnl = ${m.realizedPnl}, fees = ${m.fees}, rebates = ${m.rebates} WHERE key_id = ${keyId}`;
        },
        putPosition: async (p: PaperPosition) => {
          if (p.shares > 0) {
            await sql`INSERT INTO paper_positions (key_id, market_id, side, shares, cost) VALUES (${keyId}, ${p.marketId}, ${p.side}, ${p.shares}, ${p.cost})
              ON CONFLICT (key_id, market_id, side) DO UPDATE SET shares = excluded.shares, cost = excluded.cost`;
          } else {
            await sql`DELETE FROM paper_positions WHERE key_id = ${keyId} AND market_id = ${p.marketId} AND side = ${p.side}`;
          }
        },
        addOrder: async (o: PaperOrderLine) => {
          const [row] = await sql.unsafe<{ id: number }[]>(INSERT_ORDER, orderValues(keyId, o, (d) => d) as never[], { prepare: true });
          return row!.id;
        },
        updateOrder: async (id: number, o: PaperOrderLine) => {
          await sql.unsafe(UPDATE_ORDER, [...orderUpdateValues(o, (d) => d), id, keyId] as never[], { prepare: true });
        },
        order: async (id: number) => {
          const [row] = await sql<PaperOrderRow[]>`SELECT * FROM paper_orders WHERE id = ${id} AND key_id = ${keyId}`;
          return row ? toOrder(row) : undefined;
        },
        putResting: async (r: RestingOrder) => {
          await sql.unsafe(PUT_RESTING, restingValues(keyId, r) as never[], { prepare: true });
        },
        deleteResting: async (orderId: number) => {
          await sql`DELETE FROM paper_resting WHERE order_id = ${orderId} AND key_id = ${keyId}`;
        },
        putRebate: async (marketId: string, amount: number) => {
          if (amount > 0) {
            await sql`INSERT INTO paper_rebates (key_id, market_id, amount) VALUES (${keyId}, ${marketId}, ${amount})
              ON CONFLICT (key_id, market_id) DO UPDATE SET amount = excluded.amount`;
          } else {
            await sql`DELETE FROM paper_rebates WHERE key_id = ${keyId} AND market_id = ${marketId}`;
          }
        },
        clear: async () => {
          await sql`DELETE FROM paper_positions WHERE key_id = ${keyId}`;
          await sql`DELETE FROM paper_orders WHERE key_id = ${keyId}`;
          await sql`DELETE FROM paper_resting WHERE key_id = ${keyId}`;
          await sql`DELETE FROM paper_rebates WHERE key_id = ${keyId}`;
        },
      };
      return fn(tx);
    };
    return this.pool ? inTransaction(this.pool, undefined, (tx) => run(tx)) : run(this.sql);
  }

  async heldMarkets(keyId: number): Promise<string[]> {
    const rows = await this.sql<{ market_id: string }[]>`SELECT market_id FROM paper_positions WHERE key_id = ${keyId}
      UNION SELECT market_id FROM paper_rebates WHERE key_id = ${keyId}`;
    return rows.map((r) => r.market_id);
  }

  async restingOrders(keyId: number): Promise<RestingOrder[]> {
    const rows = await this.sql<PaperRestingRow[]>`SELECT * FROM paper_resting WHERE key_id = ${keyId} ORDER BY order_id`;
    return rows.map(toResting);
  }

  async orders(keyId: number, limit: number, offset: number, open = false): Promise<{ orders: PaperOrderRecord[]; total: number }> {
    if (open) {
      const rows = await this.sql<PaperOrderRow[]>`SELECT o.* FROM paper_resting r JOIN paper_orders o ON o.id = r.order_id
        WHERE r.key_id = ${keyId} ORDER BY o.id DESC LIMIT ${limit} OFFSET ${offset}`;
      const [count] = await this.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM paper_resting WHERE key_id = ${keyId}`;
      return { orders: rows.map(toOrder), total: count!.n };
    }
    const rows = await this.sql<PaperOrderRow[]>`SELECT * FROM paper_orders WHERE key_id = ${keyId} ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}`;
    const [count] = await this.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM paper_orders WHERE key_id = ${keyId}`;
    return { orders: rows.map(toOrder), total: count!.n };
  }
}
