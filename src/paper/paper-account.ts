// A paper account's arithmetic, pure: an order executed on one snapshot with the backtest's fill,
// fee (the same FeeModel seam) and cash model (backtest/order-fill.ts, the very code the engine runs), and the settlement of
// resolved markets (docs/backtest-model.md "Settlement"). The desk (paper-desk.ts) loads the
// account, runs these and stores what they changed, in one transaction.
import type { Market, Snapshot } from '../domain/market.js';
import type { OutcomeSide } from '../domain/market-series.js';
import { addShares, fillOrder, payoutOf, settleLine, tradeLine, type OrderTicket } from '../backtest/model/order-fill.js';
import type { FeeModel } from '../backtest/model/fee-model.js';
import type { Trade } from '../backtest/model/result.js';
import { round5, round6 } from '../backtest/model/rounding.js';
import { SeriesBuilder } from '../backtest/series/series-builder.js';
import type { PaperMoney, PaperOrderLine, PaperPosition, RestingOrder } from '../store/paper-ledger.js';

/** An order as the API takes it (checked). */
export interface OrderRequest {
  market_id: string;
  side: OutcomeSide;
  action: 'buy' | 'sell';
  shares: number;
  /** Buys: the highest price taken (default 1). */
  max_price?: number;
  /** Sells: the lowest price taken (default 0). */
  min_price?: number;
}

/** An account being worked on: its money, positions, resting limit orders and unpaid rebates, changed in place. */
export interface PaperBook {
  money: PaperMoney;
  positions: PaperPosition[];
  resting: RestingOrder[];
  /** Maker rebates earned by market, paid into cash at the market's end (as the backtest pays them). */
  pendingRebates: Map<string, number>;
}

/** What a step did: the order lines to append and the positions it changed. */
export interface PaperStep {
  lines: PaperOrderLine[];
  touched: PaperPosition[];
}

/** Why an order filled nothing. */
export type RejectReason = 'market_closed' | 'no_snapshot' | 'no_position' | 'insufficient_cash' | 'no_fill';

/** The account's answer (GET /v1/paper/account): money to 6 decimals, fees and rebates to 5. */
export interface AccountView {
  /** Cash free to spend (what resting buys reserve is apart, in reserved_cash). */
  cash: number;
  positions: { market_id: string; side: OutcomeSide; shares: number; avg_price: number }[];
  realized_pnl: number;
  fees: number;
  reserved_cash: number;
  rebates: number;
}

/** Use for a book's answer. */
export function accountView(book: PaperBook): AccountView {
  return {
    cash: round6(book.money.cash),
    positions: book.positions
      .filter((p) => p.shares > 0)
      .map((p) => ({ market_id: p.marketId, side: p.side, shares: round6(p.shares), avg_price: round6(p.cost / p.shares) })),
    realized_pnl: round6(book.money.realizedPnl),
    fees: round5(book.money.fees),
    reserved_cash: round6(book.resting.reduce((sum, r) => sum + r.reserved, 0)),
    rebates: round5(book.money.rebates),
  };
}

/**
 * Use to execute `req` at data time `at` on `market` (as the clock shows it) and `snapshot` (the
 * newest visible, orderbooks included; undefined when there is none). A market that is not active
 * rejects the order; otherwise it fills as the backtest would on that snapshot, or is rejected
 * when it fills nothing.
 */
export function executeOrder(book: PaperBook, req: OrderRequest, market: Market, snapshot: Snapshot | undefined, fees: FeeModel, at: number): PaperStep {
  const ticket: OrderTicket = {
    action: req.action,
    side: req.side,
    shares: req.shares,
    limit: req.action === 'buy' ? (req.max_price ?? 1) : (req.min_price ?? 0),
  };
  const reject = (reason: RejectReason): PaperStep => ({ lines: [{ ...unfilledLine(req, book.money.cash, at), reason }], touched: [] });
  if (market.status !== 'active') return reject('market_closed');
  if (!snapshot) return reject('no_snapshot');
  const builder = new SeriesBuilder(market, 1);
  builder.add([snapshot]);
  const series = builder.finish();
  const position = positionOf(book, req.market_id, req.side);
  const schedule = fees.scheduleFor(market);
  // Shares promised to resting sells are not for sale.
  const free = addShares(position.shares, -reservedShares(book.resting, req.market_id, req.side));
  const fill = fillOrder(series, 0, ticket, book.money.cash, free, schedule);
  if (!fill) {
    if (req.action === 'sell') return reject(free > 0 ? 'no_fill' : 'no_position');
    return reject(fillOrder(series, 0, ticket, Infinity, 0, schedule) ? 'insufficient_cash' : 'no_fill');
  }
  const money = book.money;
  money.cash = fill.cashAfter;
  money.fees += fill.fee;
  if (req.action === 'buy') {
    position.shares = addShares(position.shares, fill.received);
    position.cost += fill.notional;
  } else {
    const closedCost = (position.cost / position.shares) * fill.shares;
    money.realizedPnl += fill.notional - closedCost;
    position.shares = addShares(position.shares, -fill.shares);
    position.cost = position.shares > 0 ? position.cost - closedCost : 0;
  }
  const trade = tradeLine(req.market_id, ticket, at, snapshot.time, fill);
  return { lines: [lineOf(trade, trade.shares < trade.shares_requested ? 'partial' : 'filled', at)], touched: [position] };
}

/**
 * Use before every read or order: each position whose market the clock shows resolved with a
 * winner pays 1 a share on the winning side and 0 on the other, and is closed (up before down,
 * markets by id, as the backtest orders them). `marketOf` gives the market as the clock shows it
 * (undefined: unknown, left as it is). A market with a resting order still open waits: the order's
 * last snapshots may still fill it. Before that, the maker rebates of each market that has ended
 * (and has no resting order) are paid into cash, as the backtest pays them at a market's end.
 */
export function settleResolved(book: PaperBook, marketOf: (id: string) => Market | undefined, at: number): PaperStep {
  const step: PaperStep = { lines: [], touched: [] };
  for (const [id, amount] of book.pendingRebates) {
    const m = marketOf(id);
    if (!m || at < m.end_time || book.resting.some((r) => r.marketId === id)) continue;
    book.money.cash += amount;
    book.pendingRebates.delete(id);
  }
  const open = book.positions
    .filter((p) => p.shares > 0)
    .sort((a, b) => (a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : a.side === 'up' ? -1 : 1));
  for (const p of open) {
    const m = marketOf(p.marketId);
    if (!m || m.status !== 'resolved' || m.winner === null) continue;
    if (book.resting.some((r) => r.marketId === p.marketId)) continue;
    const payout = payoutOf(m.winner, p.side);
    const shares = p.shares;
    book.money.cash += shares * payout;
    book.money.realizedPnl += shares * payout - p.cost;
    p.shares = 0;
    p.cost = 0;
    step.lines.push(lineOf(settleLine(p.marketId, p.side, shares, payout, m.end_time, book.money.cash), 'filled', at));
    step.touched.push(p);
  }
  return step;
}

/** The shares a key has promised to resting sells of `side` of `marketId`: a market order cannot sell them. */
export function reservedShares(resting: readonly RestingOrder[], marketId: string, side: OutcomeSide): number {
  let n = 0;
  for (const r of resting) if (r.action === 'sell' && r.marketId === marketId && r.side === side) n += r.remaining;
  return n;
}

/** The book's position in `side` of `marketId`, added (empty) when it holds none. */
function positionOf(book: PaperBook, marketId: string, side: OutcomeSide): PaperPosition {
  let p = book.positions.find((x) => x.marketId === marketId && x.side === side);
  if (!p) {
    p = { marketId, side, shares: 0, cost: 0 };
    book.positions.push(p);
  }
  return p;
}

function lineOf(t: Trade, status: PaperOrderLine['status'], at: number): PaperOrderLine {
  return {
    created_at: at,
    status,
    market_id: t.market_id,
    side: t.side,
    action: t.action,
    shares_requested: t.shares_requested,
    shares: t.shares,
    vwap: t.vwap,
    fee: t.fee,
    filled_at: t.filled_at,
    depth: t.depth,
    levels: t.levels,
    cash_after: t.cash_after,
    fee_shares: t.fee_shares,
    ...MARKET_ORDER,
  };
}

// What a market order (and a settlement) carries of a limit order's fields.
const MARKET_ORDER = { type: 'market', price: null, rebate: 0, expires_at: null } as const;

/**
 * An order line with nothing filled and the cash as it stands: an order refused (its caller adds
 * the reason) or a limit order just posted (its caller sets it open). `kind`: a limit order's own
 * fields (paper-maker.ts); a market order's by default.
 */
export function unfilledLine(
  req: Pick<OrderRequest, 'market_id' | 'side' | 'action' | 'shares'>,
  cash: number,
  at: number,
  kind: Pick<PaperOrderLine, 'type' | 'price' | 'rebate' | 'expires_at'> = MARKET_ORDER,
): PaperOrderLine {
  return {
    created_at: at,
    status: 'rejected',
    market_id: req.market_id,
    side: req.side,
    action: req.action,
    shares_requested: round6(req.shares),
    shares: 0,
    vwap: null,
    fee: 0,
    filled_at: at,
    depth: false,
    levels: 0,
    cash_after: round6(cash),
    fee_shares: 0,
    ...kind,
  };
}
