// The summary statistics (docs/backtest-model.md "Output"), computed from what the run reports: each
// market's pnl and each equity point as rounded there, so anyone can recompute them from the
// output itself.
import type { Account } from './account.js';
import type { BacktestSummary } from '../model/result.js';
import { round5, round6 } from '../model/rounding.js';

/** Use once, after the last market. */
export function summarize(acct: Account): BacktestSummary {
  const pnls = acct.markets.map((m) => m.pnl);
  const traded = pnls.length;
  const pnl = acct.cash + acct.unsettledValue - acct.startCash;
  const wins = pnls.filter((p) => p > 0).length;
  const losses = pnls.filter((p) => p < 0).length;
  return {
    start_cash: round6(acct.startCash),
    end_cash: round6(acct.cash),
    pnl: round6(pnl),
    return: round6(pnl / acct.startCash),
    markets_traded: traded,
    orders: acct.orders,
    fills: acct.fills,
    rejected_orders: acct.rejected,
    expired_orders: acct.expired,
    shares_bought: round6(acct.sharesBought),
    fees: round5(acct.markets.reduce((sum, m) => sum + m.fees, 0)),
    wins,
    losses,
    win_rate: traded > 0 ? round6(wins / traded) : null,
    avg_pnl_per_market: traded > 0 ? round6(mean(pnls)) : null,
    max_drawdown: round6(maxDrawdown(acct.startCash, acct.equity.map((e) => e.equity))),
    sharpe: sharpe(pnls),
    brier: acct.brierCount > 0 ? round6(acct.brierSum / acct.brierCount) : null,
    fills_without_depth: acct.fillsWithoutDepth,
    unsettled_markets: acct.unsettledMarkets,
    ...(makerRun(acct) && {
      rebates: round5(acct.markets.reduce((sum, m) => sum + (m.rebates ?? 0), 0)),
      maker_orders: acct.makerOrders,
      maker_fills: acct.makerFills,
      maker_crossed: acct.makerCrossed,
      maker_cancelled: acct.makerCancelled,
    }),
  };
}

/** Use to tell whether a run reports maker fields: it posted a maker order, or was given a fill model. */
export function makerRun(acct: Account): boolean {
  return acct.makerOrders > 0 || acct.makerFillGiven;
}

function mean(xs: readonly number[]): number {
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}

/** The largest fall from a running peak that starts at the starting cash, in USDC (>= 0). */
function maxDrawdown(startCash: number, equity: readonly number[]): number {
  let peak = startCash;
  let worst = 0;
  for (const e of equity) {
    if (e > peak) peak = e;
    if (peak - e > worst) worst = peak - e;
  }
  return worst;
}

/** Mean over sample standard deviation (n − 1) of per-market pnl; null under 2 markets or a zero deviation. */
export function sharpe(pnls: readonly number[]): number | null {
  if (pnls.length < 2) return null;
  // Equal values have no deviation, though their float mean may differ from each in the last bit.
  if (pnls.every((p) => p === pnls[0])) return null;
  const m = mean(pnls);
  let ss = 0;
  for (const p of pnls) ss += (p - m) ** 2;
  const sd = Math.sqrt(ss / (pnls.length - 1));
  return sd > 0 ? round6(m / sd) : null;
}
