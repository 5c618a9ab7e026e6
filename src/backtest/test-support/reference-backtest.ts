// A plain, slow reference implementation of docs/backtest-model.md for rule strategies, written
// from the spec alone (not from the engine), over contract records. Tests run the engine and this
// on hand-made markets and compare: two readings of the spec that agree are the check that the
// engine's fast column code says what the model says.
import type { Market, Snapshot } from '../../domain/market.js';
import { refScheduleOf } from './reference-fees.js';
import { bookOf, fieldValue, holds, r5, r6, round, walk, type Fill, type RefCondition } from './reference-fills.js';

export type { RefCondition } from './reference-fills.js';


export interface RefRule {
  name: string;
  side: 'up' | 'down';
  size: number;
  entry: RefCondition[];
  exit?: RefCondition[];
  max_entries?: number;
  max_price?: number;
  min_price?: number;
}

export interface RefParams {
  cash: number;
  latency_ms: number;
  /** One rate for every market (--fee-rate); undefined: each market's schedule, else its era's. */
  fee_rate?: number | undefined;
  fees: 'taker' | 'none';
  no_book: 'quote' | 'reject';
}

export interface RefMarket {
  market: Market;
  snapshots: Snapshot[];
}

/** Runs a rule strategy over the markets (oldest first) exactly as docs/backtest-model.md describes. */
export function referenceBacktest(rule: RefRule, markets: RefMarket[], params: RefParams) {
  const maxEntries = rule.max_entries ?? 1;
  const maxPrice = rule.max_price ?? 1;
  const minPrice = rule.min_price ?? 0;
  const ordered = [...markets].sort((a, b) => a.market.start_time - b.market.start_time);
  let cash = params.cash;
  let unsettledValue = 0;
  const counts = { orders: 0, fills: 0, rejected: 0, expired: 0, sharesBought: 0, fees: 0, noDepth: 0, unsettled: 0 };
  const trades: Record<string, unknown>[] = [];
  const marketRows: Record<string, unknown>[] = [];
  const equity: { time: number; equity: number }[] = [];
  const pnls: number[] = [];
  const brierTerms: number[] = [];
  let snapshotsSeen = 0;
  // Events of every market on one clock: settlements and snapshots, run in the clock's order below.
  const events: { t: number; settles: boolean; m: Market; seq: number; run: () => void }[] = [];
  const open = new Map<string, (t: number) => number>();

  for (const { market: m, snapshots } of ordered) {
    const rate = refScheduleOf(m, params.fees, params.fee_rate);
    const snaps = [...snapshots].sort((a, b) => a.time - b.time);
    snapshotsSeen += snaps.length;
    if (snaps.length === 0) continue;
    const position = { up: 0, down: 0 };
    let entriesDecided = 0;
    let entriesFilled = 0;
    let marketFees = 0;
    let flow = 0;
    let traded = false;
    let pending: { action: 'buy' | 'sell'; shares: number; decidedAt: number; due: number; sidePrice: number } | undefined;
    const marketBrier: number[] = [];

    const execute = (e: Snapshot) => {
      const o = pending!;
      pending = undefined;
      const book = bookOf(e, rule.side);
      const buy = o.action === 'buy';
      const requested = buy ? o.shares : Math.min(o.shares, position[rule.side]);
      let fill: Fill;
      if (book) {
        const lv = buy
          ? [...book.asks].sort((a, b) => a.price - b.price)
          : [...book.bids].sort((a, b) => b.price - a.price);
        fill = walk(lv, requested, buy, buy ? maxPrice : minPrice, cash, rate);
      } else if (params.no_book === 'reject') {
        fill = { shares: 0, cost: 0, fee: 0, feeShares: 0, levels: 0, depth: false };
      } else {
        const q = rule.side === 'up' ? e.price_up : e.price_down;
        fill = walk([{ price: q, size: requested }], requested, buy, buy ? maxPrice : minPrice, cash, rate);
        fill.depth = false;
      }
      if (fill.shares <= 0) {
        counts.rejected++;
        return;
      }
      traded = true;
      const fee = fill.fee;
      // A fee paid in shares leaves the cash alone: the buyer receives C − F shares.
      const cashFee = fill.feeShares > 0 ? 0 : fee;
      cash += buy ? -(fill.cost + cashFee) : fill.cost - cashFee;
      flow += buy ? -(fill.cost + cashFee) : fill.cost - cashFee;
      // Shares are decimal quantities: keep the position free of binary residue (28.65 − 28.65 must be 0).
      position[rule.side] = round(position[rule.side] + (buy ? fill.shares - fill.feeShares : -fill.shares), 8);
      counts.fills++;
      counts.fees += fee;
      marketFees += fee;
      if (!fill.depth) counts.noDepth++;
      if (buy) {
        counts.sharesBought += fill.shares;
        entriesFilled++;
        marketBrier.push(o.sidePrice);
      }
      trades.push({
        market_id: m.market_id,
        side: rule.side,
        action: o.action,
        decided_at: o.decidedAt,
        filled_at: e.time,
        shares_requested: r6(requested),
        shares: r6(fill.shares),
        vwap: r6(fill.cost / fill.shares),
        fee,
        cash_after: r6(cash),
        depth: fill.depth,
        levels: fill.levels,
        fee_shares: fill.feeShares,
      });
    };

    const onSnapshot = (s: Snapshot) => {
      if (pending && s.time >= pending.due) execute(s);
      if (pending) return;
      const first = snaps[0]!;
      const sidePrice = rule.side === 'up' ? s.price_up : s.price_down;
      let decision: 'buy' | 'sell' | undefined;
      if (
        position[rule.side] === 0 &&
        entriesDecided < maxEntries &&
        rule.entry.every((c) => holds(c, fieldValue(c.field, s, m, first, rule.side)))
      ) {
        decision = 'buy';
        entriesDecided++;
      } else if (
        position[rule.side] > 0 &&
        (rule.exit ?? []).some((c) => holds(c, fieldValue(c.field, s, m, first, rule.side)))
      ) {
        decision = 'sell';
      }
      if (!decision) return;
      counts.orders++;
      pending = {
        action: decision,
        shares: decision === 'buy' ? rule.size : position[rule.side],
        decidedAt: s.time,
        due: s.time + params.latency_ms,
        sidePrice,
      };
      if (params.latency_ms === 0) execute(s);
    };
    // The value of this market's positions at its latest quote at or before t (while it runs).
    open.set(m.market_id, (t: number) => {
      let q: Snapshot | undefined;
      for (const s of snaps) if (s.time <= t) q = s;
      return q ? position.up * q.price_up + position.down * q.price_down : 0;
    });
    snaps.forEach((s, k) => events.push({ t: s.time, settles: false, m, seq: k, run: () => onSnapshot(s) }));
    const settleAt = Math.max(m.end_time, snaps[snaps.length - 1]!.time);
    events.push({ t: settleAt, settles: true, m, seq: 0, run: () => settle() });

    // Settlement at the market's end (after its last snapshot).
    const settle = () => {
    open.delete(m.market_id);
    if (pending) counts.expired++;
    let value = 0;
    if (m.winner) {
      for (const side of ['up', 'down'] as const) {
        if (position[side] <= 0) continue;
        const pays = (m.winner === 'Up') === (side === 'up') ? 1 : 0;
        cash += position[side] * pays;
        flow += position[side] * pays;
        trades.push({
          market_id: m.market_id,
          side,
          action: 'settle',
          decided_at: m.end_time,
          filled_at: m.end_time,
          shares_requested: r6(position[side]),
          shares: r6(position[side]),
          vwap: pays,
          fee: 0,
          cash_after: r6(cash),
          depth: true,
          levels: 0,
          fee_shares: 0,
        });
        position[side] = 0;
      }
      const outcome = m.winner === 'Up' ? (rule.side === 'up' ? 1 : 0) : rule.side === 'down' ? 1 : 0;
      for (const p of marketBrier) brierTerms.push((p - outcome) ** 2);
    } else {
      const last = snaps[snaps.length - 1];
      if (last && (position.up > 0 || position.down > 0)) {
        value = position.up * last.price_up + position.down * last.price_down;
        counts.unsettled++;
      }
    }
    unsettledValue += value;
    if (traded) {
      const pnl = flow + value;
      // The statistics read each market's pnl as reported (6 decimals).
      pnls.push(r6(pnl));
      marketRows.push({
        market_id: m.market_id,
        winner: m.winner,
        settled: m.winner !== null,
        entries: entriesFilled,
        fees: r5(marketFees),
        pnl: r6(pnl),
      });
      // Markets still running count their positions at their latest quote.
      let running = 0;
      for (const valueAt of open.values()) running += valueAt(settleAt);
      equity.push({ time: m.end_time, equity: r6(cash + unsettledValue + running) });
    }
    };
  }
  // The clock: time; at one time settlements first; then the earlier market start, the market id.
  events.sort((a, b) => a.t - b.t || Number(b.settles) - Number(a.settles) || a.m.start_time - b.m.start_time || (a.m.market_id < b.m.market_id ? -1 : a.m.market_id > b.m.market_id ? 1 : a.seq - b.seq));
  for (const e of events) e.run();

  const pnl = cash + unsettledValue - params.cash;
  let peak = params.cash;
  let maxDd = 0;
  for (const p of equity) {
    peak = Math.max(peak, p.equity);
    maxDd = Math.max(maxDd, peak - p.equity);
  }
  const n = pnls.length;
  const mean = n ? pnls.reduce((a, b) => a + b, 0) / n : 0;
  const sd = n > 1 ? Math.sqrt(pnls.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : 0;
  const wins = pnls.filter((p) => p > 0).length;
  const losses = pnls.filter((p) => p < 0).length;
  return {
    summary: {
      start_cash: params.cash,
      end_cash: r6(cash),
      pnl: r6(pnl),
      return: r6(pnl / params.cash),
      markets_traded: n,
      orders: counts.orders,
      fills: counts.fills,
      rejected_orders: counts.rejected,
      expired_orders: counts.expired,
      shares_bought: r6(counts.sharesBought),
      fees: r5(counts.fees),
      wins,
      losses,
      win_rate: n ? r6(wins / n) : null,
      avg_pnl_per_market: n ? r6(mean) : null,
      max_drawdown: r6(maxDd),
      sharpe: n > 1 && sd > 0 ? r6(mean / sd) : null,
      brier: brierTerms.length ? r6(brierTerms.reduce((a, b) => a + b, 0) / brierTerms.length) : null,
      fills_without_depth: counts.noDepth,
      unsettled_markets: counts.unsettled,
    },
    data: { markets: ordered.length, snapshots: snapshotsSeen },
    markets: marketRows,
    trades,
    equity,
  };
}
