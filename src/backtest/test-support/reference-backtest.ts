// A plain, slow reference implementation of docs/backtest-model.md for rule strategies, written
// from the spec alone (not from the engine), over contract records. Tests run the engine and this
// on hand-made markets and compare: two readings of the spec that agree are the check that the
// engine's fast column code says what the model says.
import type { Market, Snapshot } from '../../domain/market.js';
import { refScheduleOf } from './reference-fees.js';
import { bookOf, fieldValue, holds, r5, r6, round, walk, type Fill, type RefCondition } from './reference-fills.js';
import { refBuyReserve, refCrosses, refJoin, refMakerFee, refMakerFill, type RefMakerOrder } from './reference-maker.js';

export type { RefCondition } from './reference-fills.js';

/** A rule's entry or exit as a maker order: at a field (bid, ask, side_price) plus an offset, with a time to live. */
export interface RefMaker {
  price: 'bid' | 'ask' | 'side_price';
  offset?: number;
  ttl_ms?: number;
}

export interface RefRule {
  name: string;
  side: 'up' | 'down';
  size: number;
  entry: RefCondition[];
  exit?: RefCondition[];
  max_entries?: number;
  max_price?: number;
  min_price?: number;
  entry_maker?: RefMaker;
  exit_maker?: RefMaker;
}

export interface RefParams {
  cash: number;
  latency_ms: number;
  /** One rate for every market (--fee-rate); undefined: each market's schedule, else its era's. */
  fee_rate?: number | undefined;
  fees: 'taker' | 'none';
  no_book: 'quote' | 'reject';
  /** How resting orders fill; undefined: 'cross', and a run without posts reports no maker fields. */
  maker_fill?: 'cross' | 'queue' | undefined;
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
  // Cash held by resting buys of every market: taker buys and new posts see only cash − reserved.
  let reserved = 0;
  let unsettledValue = 0;
  const model = params.maker_fill ?? 'cross';
  const counts = { orders: 0, fills: 0, rejected: 0, expired: 0, sharesBought: 0, fees: 0, noDepth: 0, unsettled: 0 };
  const makerCounts = { posted: 0, fills: 0, crossed: 0, cancelled: 0 };
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
    // A rule has at most one maker order at a time (it decides nothing while one is there).
    type Resting = RefMakerOrder & { requested: number; decidedAt: number; due: number; expires: number; live: boolean; hold: number; sidePrice: number; filledOnce: boolean };
    let maker: Resting | undefined;
    let rebates = 0;

    const letGo = (o: Resting) => {
      if (!o.live) return;
      if (o.buy) reserved -= o.hold;
      o.hold = 0;
    };

    const goLive = (s: Snapshot) => {
      const o = maker!;
      const book = bookOf(s, rule.side);
      if (book && refCrosses(o, book)) {
        counts.rejected++;
        makerCounts.crossed++;
        maker = undefined;
        return;
      }
      if (o.buy) {
        const need = refBuyReserve(rate, o.left, o.price);
        if (need > cash - reserved + 1e-9) {
          counts.rejected++;
          maker = undefined;
          return;
        }
        reserved += need;
        o.hold = need;
      } else {
        o.left = Math.min(o.left, position[rule.side]);
        if (!(o.left > 0)) {
          counts.rejected++;
          maker = undefined;
          return;
        }
        o.requested = o.left;
        o.hold = o.left;
      }
      o.live = true;
      refJoin(o, book);
    };

    const makerFilled = (q: number, s: Snapshot) => {
      const o = maker!;
      const f = refMakerFee(rate, o.buy, q, o.price);
      if (o.buy) {
        const pay = o.price * q + (f.feeShares > 0 ? 0 : f.fee);
        const freed = Math.min(o.hold, pay);
        o.hold -= freed;
        reserved -= freed;
        cash -= pay;
        flow -= pay;
        position[rule.side] = round(position[rule.side] + q - f.feeShares, 8);
        counts.sharesBought += q;
        if (!o.filledOnce) {
          entriesFilled++;
          marketBrier.push(o.sidePrice);
        }
      } else {
        cash += o.price * q - f.fee;
        flow += o.price * q - f.fee;
        position[rule.side] = round(position[rule.side] - q, 8);
        o.hold -= q;
      }
      o.filledOnce = true;
      traded = true;
      counts.fills++;
      makerCounts.fills++;
      counts.fees += f.fee;
      marketFees += f.fee;
      rebates += f.rebate;
      trades.push({
        market_id: m.market_id,
        side: rule.side,
        action: o.buy ? 'buy' : 'sell',
        decided_at: o.decidedAt,
        filled_at: s.time,
        shares_requested: r6(o.requested),
        shares: r6(q),
        vwap: r6(o.price),
        fee: f.fee,
        cash_after: r6(cash),
        depth: true,
        levels: 1,
        fee_shares: f.feeShares,
        kind: 'maker',
        rebate: f.rebate,
      });
      if (o.left === 0) {
        letGo(o);
        maker = undefined;
      }
    };

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
        fill = walk(lv, requested, buy, buy ? maxPrice : minPrice, cash - reserved, rate);
      } else if (params.no_book === 'reject') {
        fill = { shares: 0, cost: 0, fee: 0, feeShares: 0, levels: 0, depth: false };
      } else {
        const q = rule.side === 'up' ? e.price_up : e.price_down;
        fill = walk([{ price: q, size: requested }], requested, buy, buy ? maxPrice : minPrice, cash - reserved, rate);
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
      // The maker order first: its time to live, its fill on this snapshot, a post going live.
      if (maker && s.time >= maker.expires) {
        letGo(maker);
        makerCounts.cancelled++;
        maker = undefined;
      }
      if (maker && maker.live) {
        const q = refMakerFill(maker, bookOf(s, rule.side), model);
        if (q > 0) makerFilled(q, s);
      }
      if (maker && !maker.live && s.time >= maker.due) goLive(s);
      if (pending && s.time >= pending.due) execute(s);
      if (pending || maker) return;
      const first = snaps[0]!;
      const sidePrice = rule.side === 'up' ? s.price_up : s.price_down;
      let decision: 'buy' | 'sell' | undefined;
      if (
        position[rule.side] === 0 &&
        entriesDecided < maxEntries &&
        rule.entry.every((c) => holds(c, fieldValue(c.field, s, m, first, rule.side)))
      ) {
        decision = 'buy';
      } else if (
        position[rule.side] > 0 &&
        (rule.exit ?? []).some((c) => holds(c, fieldValue(c.field, s, m, first, rule.side)))
      ) {
        decision = 'sell';
      }
      if (!decision) return;
      const how = decision === 'buy' ? rule.entry_maker : rule.exit_maker;
      if (how) {
        // A maker order at the field plus the offset; none when the field has no value, or the
        // price leaves (0, 1) or passes the rule's limit.
        const base = fieldValue(how.price, s, m, first, rule.side);
        if (base === undefined) return;
        const price = r6(base + (how.offset ?? 0));
        if (!(price > 0 && price < 1)) return;
        if (decision === 'buy' ? price > maxPrice : price < minPrice) return;
        counts.orders++;
        makerCounts.posted++;
        if (decision === 'buy') entriesDecided++;
        const shares = decision === 'buy' ? rule.size : position[rule.side];
        maker = {
          buy: decision === 'buy', price, left: shares, ahead: undefined, seen: undefined,
          requested: shares, decidedAt: s.time, due: s.time + params.latency_ms,
          expires: how.ttl_ms === undefined ? Infinity : s.time + how.ttl_ms,
          live: false, hold: 0, sidePrice, filledOnce: false,
        };
        if (params.latency_ms === 0) goLive(s);
        return;
      }
      if (decision === 'buy') entriesDecided++;
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
    // A resting order is cancelled at the market's last snapshot; a post never live expired.
    if (maker) {
      if (maker.live) makerCounts.cancelled++;
      else counts.expired++;
      letGo(maker);
      maker = undefined;
    }
    // Rebates are paid at the market's end, before its settlement.
    cash += rebates;
    flow += rebates;
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
        rebates: r5(rebates),
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
  // Maker fields only in a run that posted, or was given a fill model.
  const withMaker = makerCounts.posted > 0 || params.maker_fill !== undefined;
  const rebateSum = r5(marketRows.reduce((a, row) => a + (row.rebates as number), 0));
  if (!withMaker) for (const row of marketRows) delete row.rebates;
  const tradeRows = trades.map((t) => (withMaker ? { ...t, kind: t.kind ?? 'taker', rebate: t.rebate ?? 0 } : t));
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
      ...(withMaker && {
        rebates: rebateSum,
        maker_orders: makerCounts.posted,
        maker_fills: makerCounts.fills,
        maker_crossed: makerCounts.crossed,
        maker_cancelled: makerCounts.cancelled,
      }),
    },
    data: { markets: ordered.length, snapshots: snapshotsSeen },
    markets: marketRows,
    trades: tradeRows,
    equity,
  };
}
