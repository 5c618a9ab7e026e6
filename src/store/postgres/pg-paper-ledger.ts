// The PostgreSQL side of PaperLedger (migration 5): any number of instances share the accounts.
// Each transaction locks the account's row (SELECT ... FOR UPDATE) on its own connection, so the
// orders of one key apply one at a time, exactly once, whichever instance takes them; other keys
// go on in parallel. Every statement of fn runs on that connection: a transaction that waited for
// a lock never needs a second pooled connection to finish.
import type postgres from 'postgres';
import { orderValues, PAPER_ORDER_COLUMNS, toMoney, toOrder, toPosition, type PaperAccountRow, type PaperOrderRow, type PaperPositionRow } from '../core/paper-rows.js';
import type { PaperAccountTx, PaperLedger, PaperMoney, PaperOrderLine, PaperOrderRecord, PaperPosition } from '../paper-ledger.js';
import type { Pg } from './pg-connection.js';
import { inTransaction } from './pg-transaction.js';

const INSERT_ORDER = `INSERT INTO paper_orders (${PAPER_ORDER_COLUMNS.join(', ')}) VALUES (${PAPER_ORDER_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`;

/** Use through PgStore.paper; `pool` runs the transactions (undefined inside a store transaction: `sql` is its connection). */
export class PgPaperLedger implements PaperLedger {
  constructor(
    private readonly sql: Pg,
    private readonly pool: postgres.Sql | undefined,
  ) {}

  async withAccount<T>(keyId: number, start: { cash: number; at: number }, fn: (tx: PaperAccountTx) => Promise<T>): Promise<T> {
    const run = async (sql: Pg): Promise<T> => {
      await sql`INSERT INTO paper_accounts (key_id, cash, created_at) VALUES (${keyId}, ${start.cash}, ${start.at}) ON CONFLICT (key_id) DO NOTHING`;
      const [account] = await sql<PaperAccountRow[]>`SELECT cash, realized_pnl, fees FROM paper_accounts WHERE key_id = ${keyId} FOR UPDATE`;
      const rows = await sql<PaperPositionRow[]>`SELECT market_id, side, shares, cost FROM paper_positions WHERE key_id = ${keyId} ORDER BY market_id, side`;
      const tx: PaperAccountTx = {
        money: toMoney(account!),
        positions: rows.map(toPosition),
        setMoney: async (m: PaperMoney) => {
          await sql`UPDATE paper_accounts SET cash = ${m.cash}, realized_pnl = ${m.realizedPnl}, fees = ${m.fees} WHERE key_id = ${keyId}`;
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
        clear: async () => {
          await sql`DELETE FROM paper_positions WHERE key_id = ${keyId}`;
          await sql`DELETE FROM paper_orders WHERE key_id = ${keyId}`;
        },
      };
      return fn(tx);
    };
    return this.pool ? inTransaction(this.pool, undefined, (tx) => run(tx)) : run(this.sql);
  }

  async heldMarkets(keyId: number): Promise<string[]> {
    const rows = await this.sql<{ market_id: string }[]>`SELECT DISTINCT market_id FROM paper_positions WHERE key_id = ${keyId}`;
    return rows.map((r) => r.market_id);
  }

  async orders(keyId: number, limit: number, offset: number): Promise<{ orders: PaperOrderRecord[]; total: number }> {
    const rows = await this.sql<PaperOrderRow[]>`SELECT * FROM paper_orders WHERE key_id = ${keyId} ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}`;
    const [count] = await this.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM paper_orders WHERE key_id = ${keyId}`;
    return { orders: rows.map(toOrder), total: count!.n };
  }
}
