// Paper trading for one request: the key's account loaded and locked in one transaction, its
// resting limit orders stepped up to the clock, resolved markets settled, the order executed (or
// posted, or cancelled), every change stored before the lock is let go. Market data (the order's
// market and snapshot, the markets the account holds, the snapshots its resting orders have not
// seen) is read before the transaction, through the store as the server's clock shows it: a
// transaction never waits on a read, so on PostgreSQL it needs one connection only, every
// instance settles alike, and a fill is stored once (the account's lock orders the instances).
import type { Market, Snapshot } from '../domain/market.js';
import type { MarketSeries } from '../domain/market-series.js';
import { orderRecord, type PaperAccountTx, type PaperLedger, type PaperOrderRecord, type PaperPosition } from '../store/paper-ledger.js';
import type { Store } from '../store/store.js';
import { accountView, executeOrder, settleResolved, type AccountView, type OrderRequest, type PaperBook, type PaperStep } from './paper-account.js';
import { closeResting, postLimit, restingDue, stepResting, type LimitRequest } from './paper-maker.js';
import { flatFees, MARKET_FEES, type FeeModel } from '../backtest/model/fee-model.js';
import { SeriesBuilder } from '../backtest/series/series-builder.js';
import type { PaperSettings } from './paper-settings.js';

// A position in a market read after the markets were fetched (a concurrent order opened it): the
// markets are fetched again, this many times, before such a position is left unsettled until the next request.
const REFETCHES = 3;

/**
 * The most snapshots one request steps the account's resting orders on (over all their markets):
 * the work and memory of a request stay bounded after a long quiet spell; the next requests go on
 * from there.
 */
const MAX_MAKER_SNAPSHOTS = 20_000;
const PAGE = 1000;

/** The snapshots a market's resting orders have not seen, read before the lock. */
interface MarketReads {
  market: Market | undefined;
  /** Visible snapshots after `from`, oldest first, with books. */
  series: MarketSeries | undefined;
  from: number;
  /** Every snapshot visible at the clock after `from` is in `series`. */
  caughtUp: boolean;
}

/** Thrown when a cancel names no order of the key's that is still resting. */
export class NotRestingError extends Error {
  constructor(readonly order: PaperOrderRecord | undefined) {
    super(order ? `order ${order.id} is not resting (status ${order.status})` : 'no such order');
  }
}

/** Use per request: `store` as the clock shows it, `at` the clock's now. */
export class PaperDesk {
  constructor(
    private readonly store: Store,
    private readonly ledger: PaperLedger,
    private readonly settings: PaperSettings,
    private readonly at: number,
    private readonly maxSnapshots = MAX_MAKER_SNAPSHOTS,
  ) {}

  /** Places market order `req` on `market` (as the clock shows it, readable by the caller) and answers the order. */
  async place(keyId: number, req: OrderRequest, market: Market): Promise<PaperOrderRecord> {
    const snapshot = market.status === 'active' ? await this.newestSnapshot(market.market_id) : undefined;
    const { result } = await this.transact(keyId, new Map([[market.market_id, market]]), async (book, tx, touched) => {
      const step = executeOrder(book, req, market, snapshot, this.fees, this.at);
      return (await this.write(tx, step, touched)).at(-1)!;
    });
    return result!;
  }

  /** Posts limit order `req` on `market` (as the clock shows it): it goes live on the newest snapshot, or is rejected. */
  async post(keyId: number, req: LimitRequest, market: Market): Promise<PaperOrderRecord> {
    const snapshot = market.status === 'active' ? await this.newestSnapshot(market.market_id) : undefined;
    const series = snapshot ? seriesOf(market, [snapshot]) : undefined;
    const { result } = await this.transact(keyId, new Map([[market.market_id, market]]), async (book, tx) => {
      const posted = postLimit(book, req, market, series, this.fees.scheduleFor(market), this.settings.makerFill ?? 'cross', this.at);
      const id = await tx.addOrder(posted.line);
      if (posted.resting) {
        const resting = { ...posted.resting, orderId: id };
        book.resting.push(resting);
        await tx.putResting(resting);
      }
      return orderRecord(id, posted.line);
    });
    return result!;
  }

  /** Cancels resting order `orderId` of the key (after stepping it up to the clock); NotRestingError when it is not resting. */
  async cancel(keyId: number, orderId: number): Promise<PaperOrderRecord> {
    const { result } = await this.transact(keyId, new Map(), async (book, tx) => {
      const r = book.resting.find((x) => x.orderId === orderId);
      const line = await tx.order(orderId);
      if (!r || !line) return new NotRestingError(line);
      closeResting(book, r, line, 'cancelled');
      await tx.updateOrder(orderId, line);
      await tx.deleteResting(orderId);
      book.resting.splice(book.resting.indexOf(r), 1);
      return orderRecord(orderId, line);
    });
    if (result instanceof NotRestingError) throw result;
    return result!;
  }

  /** Order line `id` of the key after stepping resting orders and settling; undefined when the key has none such. */
  async order(keyId: number, id: number): Promise<PaperOrderRecord | undefined> {
    return (await this.transact(keyId, new Map(), (_book, tx) => tx.order(id))).result;
  }

  /** The account after stepping resting orders and settling what has resolved. */
  async account(keyId: number): Promise<AccountView> {
    return accountView((await this.transact(keyId, new Map())).book);
  }

  /** A page of the account's order lines, newest first (`open`: resting limit orders only), after stepping and settling. */
  async orders(keyId: number, limit: number, offset: number, open = false): Promise<{ orders: PaperOrderRecord[]; total: number }> {
    await this.transact(keyId, new Map());
    return this.ledger.orders(keyId, limit, offset, open);
  }

  /** Back to the starting cash, no positions, no orders. */
  async reset(keyId: number): Promise<AccountView> {
    const money = { cash: this.settings.startCash, realizedPnl: 0, fees: 0, rebates: 0 };
    await this.ledger.withAccount(keyId, this.start(), async (tx) => {
      await tx.clear();
      await tx.setMoney(money);
    });
    return accountView({ money, positions: [], resting: [], pendingRebates: new Map() });
  }

  private get fees(): FeeModel {
    return this.settings.feeRate === undefined ? MARKET_FEES : flatFees(this.settings.feeRate);
  }

  private start(): { cash: number; at: number } {
    return { cash: this.settings.startCash, at: this.at };
  }

  /** The newest snapshot at or before the clock, with its books; undefined when there is none yet. */
  private async newestSnapshot(marketId: string): Promise<Snapshot | undefined> {
    const s = await this.store.nearestSnapshot(marketId, this.at, true);
    return s && s.time <= this.at ? s : undefined;
  }

  /** Stores a step's lines and the positions it touched (written with the money at the end); the lines' records. */
  private async write(tx: PaperAccountTx, step: PaperStep, touched: Set<PaperPosition>): Promise<PaperOrderRecord[]> {
    for (const p of step.touched) touched.add(p);
    const records: PaperOrderRecord[] = [];
    for (const line of step.lines) records.push(orderRecord(await tx.addOrder(line), line));
    return records;
  }

  /**
   * The snapshots of each market with resting orders after the oldest point one of them has
   * reached, up to the clock, MAX_MAKER_SNAPSHOTS in all; read without a lock.
   */
  private async readResting(keyId: number, known: Map<string, Market | undefined>): Promise<Map<string, MarketReads>> {
    const from = new Map<string, number>();
    for (const r of await this.ledger.restingOrders(keyId)) from.set(r.marketId, Math.min(from.get(r.marketId) ?? Infinity, r.evaluatedTo));
    const reads = new Map<string, MarketReads>();
    let budget = this.maxSnapshots;
    for (const [marketId, after] of from) {
      if (!known.has(marketId)) known.set(marketId, await this.store.getMarket(marketId, this.at));
      const market = known.get(marketId);
      // Packed page by page: a page's records are let go once its columns are taken.
      const builder = market ? new SeriesBuilder(market) : undefined;
      let read = 0;
      let caughtUp = false;
      while (market && budget > 0) {
        const limit = Math.min(PAGE, budget);
        const page = await this.store.snapshotPageJson(marketId, { limit, offset: read, from: after + 1, before: this.at + 1, includeOrderbook: true });
        builder!.add(JSON.parse(page.json) as Snapshot[]);
        read += page.count;
        budget -= page.count;
        if (page.count < limit) {
          caughtUp = true;
          break;
        }
      }
      reads.set(marketId, { market, series: builder && read > 0 ? builder.finish() : undefined, from: after, caughtUp });
    }
    return reads;
  }

  /**
   * One transaction: step resting orders, settle, then `step` (if any), then store every change;
   * the book and what `step` answered.
   */
  private async transact<T>(
    keyId: number,
    known: Map<string, Market | undefined>,
    step?: (book: PaperBook, tx: PaperAccountTx, touched: Set<PaperPosition>) => Promise<T>,
  ): Promise<{ book: PaperBook; result: T | undefined }> {
    for (let attempt = 0; ; attempt++) {
      for (const id of await this.ledger.heldMarkets(keyId)) {
        if (!known.has(id)) known.set(id, await this.store.getMarket(id, this.at));
      }
      const reads = await this.readResting(keyId, known);
      const done = await this.ledger.withAccount(keyId, this.start(), async (tx) => {
        // Another request changed the account since the reads: read again (a few times), then go
        // on; what was not read waits for the next request.
        const stale = tx.positions.some((p) => !known.has(p.marketId)) || tx.resting.some((r) => (reads.get(r.marketId)?.from ?? Infinity) > r.evaluatedTo);
        if (attempt < REFETCHES && stale) return undefined;
        const book: PaperBook = {
          money: { ...tx.money },
          positions: tx.positions.map((p) => ({ ...p })),
          resting: tx.resting.map((r) => ({ ...r })),
          pendingRebates: new Map(tx.pendingRebates),
        };
        const touched = new Set<PaperPosition>();
        for (const r of [...book.resting]) {
          const read = reads.get(r.marketId);
          if (!read?.market || read.from > r.evaluatedTo || !restingDue(r, read.market, read.series, this.at, read.caughtUp)) continue;
          const line = await tx.order(r.orderId);
          if (!line) continue;
          const stepped = stepResting(book, r, line, read.market, read.series, this.fees.scheduleFor(read.market), this.at, read.caughtUp);
          if (!stepped.changed) continue;
          for (const p of stepped.touched) touched.add(p);
          await tx.updateOrder(r.orderId, line);
          if (stepped.closed) {
            await tx.deleteResting(r.orderId);
            book.resting.splice(book.resting.indexOf(r), 1);
          } else await tx.putResting(r);
        }
        await this.write(tx, settleResolved(book, (id) => known.get(id), this.at), touched);
        const result = step ? await step(book, tx, touched) : undefined;
        for (const p of touched) await tx.putPosition(p);
        for (const id of new Set([...tx.pendingRebates.keys(), ...book.pendingRebates.keys()])) {
          const amount = book.pendingRebates.get(id) ?? 0;
          if (amount !== tx.pendingRebates.get(id)) await tx.putRebate(id, amount);
        }
        if (touched.size > 0 || !sameMoney(tx.money, book.money)) await tx.setMoney(book.money);
        return { book, result };
      });
      if (done) return done;
    }
  }
}

function sameMoney(a: PaperBook['money'], b: PaperBook['money']): boolean {
  return a.cash === b.cash && a.realizedPnl === b.realizedPnl && a.fees === b.fees && a.rebates === b.rebates;
}

/** A market's series over `snapshots` (oldest first), books included: the backtest's own packing. */
function seriesOf(market: Market, snapshots: readonly Snapshot[]): MarketSeries {
  const builder = new SeriesBuilder(market, snapshots.length);
  builder.add(snapshots);
  return builder.finish();
}
