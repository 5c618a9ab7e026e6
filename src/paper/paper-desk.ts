// Paper trading for one request: the key's account loaded and locked in one transaction, resolved
// markets settled, the order executed, every change stored before the lock is let go. Market data
// (the order's market and snapshot, and the markets the account holds) is read before the
// transaction, through the store as the server's clock shows it: a transaction never waits on a
// read, so on PostgreSQL it needs one connection only, and every instance settles alike.
import type { Market, Snapshot } from '../domain/market.js';
import { orderRecord, type PaperLedger, type PaperOrderRecord } from '../store/paper-ledger.js';
import type { Store } from '../store/store.js';
import { accountView, executeOrder, settleResolved, type AccountView, type OrderRequest, type PaperBook, type PaperStep } from './paper-account.js';
import { flatFees, MARKET_FEES, type FeeModel } from '../backtest/model/fee-model.js';
import type { PaperSettings } from './paper-settings.js';

// A position in a market read after the markets were fetched (a concurrent order opened it): the
// markets are fetched again, this many times, before such a position is left unsettled until the next request.
const REFETCHES = 3;

/** Use per request: `store` as the clock shows it, `at` the clock's now. */
export class PaperDesk {
  constructor(
    private readonly store: Store,
    private readonly ledger: PaperLedger,
    private readonly settings: PaperSettings,
    private readonly at: number,
  ) {}

  /** Places `req` on `market` (as the clock shows it, readable by the caller) and answers the order. */
  async place(keyId: number, req: OrderRequest, market: Market): Promise<PaperOrderRecord> {
    const snapshot = market.status === 'active' ? await this.newestSnapshot(market.market_id) : undefined;
    const { records } = await this.transact(keyId, new Map([[market.market_id, market]]), (book) =>
      executeOrder(book, req, market, snapshot, paperFees(this.settings), this.at),
    );
    return records.at(-1)!;
  }

  /** The account after settling what has resolved. */
  async account(keyId: number): Promise<AccountView> {
    return accountView((await this.transact(keyId, new Map())).book);
  }

  /** A page of the account's order lines, newest first, after settling what has resolved. */
  async orders(keyId: number, limit: number, offset: number): Promise<{ orders: PaperOrderRecord[]; total: number }> {
    await this.transact(keyId, new Map());
    return this.ledger.orders(keyId, limit, offset);
  }

  /** Back to the starting cash, no positions, no orders. */
  async reset(keyId: number): Promise<AccountView> {
    const money = { cash: this.settings.startCash, realizedPnl: 0, fees: 0 };
    await this.ledger.withAccount(keyId, this.start(), async (tx) => {
      await tx.clear();
      await tx.setMoney(money);
    });
    return accountView({ money, positions: [] });
  }

  private start(): { cash: number; at: number } {
    return { cash: this.settings.startCash, at: this.at };
  }

  /** The newest snapshot at or before the clock, with its books; undefined when there is none yet. */
  private async newestSnapshot(marketId: string): Promise<Snapshot | undefined> {
    const s = await this.store.nearestSnapshot(marketId, this.at, true);
    return s && s.time <= this.at ? s : undefined;
  }

  /** One transaction: settle, then `step` (if any), then store every change; the book and the new order lines. */
  private async transact(
    keyId: number,
    known: Map<string, Market | undefined>,
    step?: (book: PaperBook) => PaperStep,
  ): Promise<{ book: PaperBook; records: PaperOrderRecord[] }> {
    for (let attempt = 0; ; attempt++) {
      for (const id of await this.ledger.heldMarkets(keyId)) {
        if (!known.has(id)) known.set(id, await this.store.getMarket(id, this.at));
      }
      const done = await this.ledger.withAccount(keyId, this.start(), async (tx) => {
        if (attempt < REFETCHES && tx.positions.some((p) => !known.has(p.marketId))) return undefined;
        const book: PaperBook = { money: { ...tx.money }, positions: tx.positions.map((p) => ({ ...p })) };
        const settled = settleResolved(book, (id) => known.get(id), this.at);
        const stepped = step ? step(book) : { lines: [], touched: [] };
        const lines = [...settled.lines, ...stepped.lines];
        const touched = new Set([...settled.touched, ...stepped.touched]);
        for (const p of touched) await tx.putPosition(p);
        if (touched.size > 0) await tx.setMoney(book.money);
        const records: PaperOrderRecord[] = [];
        for (const line of lines) records.push(orderRecord(await tx.addOrder(line), line));
        return { book, records };
      });
      if (done) return done;
    }
  }
}

/** The fee model paper fills are given: the backtest's for the same flags (each market's schedule, or one flat rate). */
function paperFees(settings: PaperSettings): FeeModel {
  return settings.feeRate === undefined ? MARKET_FEES : flatFees(settings.feeRate);
}
