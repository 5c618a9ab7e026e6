// The builder data window: per coin and market type only the `cap` newest markets are readable.
import type { Market, MarketType } from '../domain/market.js';
import { PLANS, type DataWindow, type PlanName } from '../domain/plans.js';
import type { Store } from '../store/store.js';
import { HttpException } from './http-error.js';

/** The window of a plan; null when the plan reads everything. */
export function windowOf(plan: PlanName): DataWindow {
  return PLANS[plan].dataWindow;
}

/** The contract's 403: "Your builder plan only includes the most recent 4,100 5m markets. ..." */
export function outsideWindow(plan: PlanName, type: MarketType, cap: number): HttpException {
  return new HttpException(
    403,
    `Your ${plan} plan only includes the most recent ${cap.toLocaleString('en-US')} ${type} markets. Upgrade to Pro for full access.`,
    { tier: plan },
    {},
    { kind: 'data_window', window: { plan, marketType: type, cap } },
  );
}

/** Use before serving one market or its snapshots: 403 when it lies outside the plan's window. */
export async function assertInWindow(store: Store, market: Market, plan: PlanName): Promise<void> {
  const window = windowOf(plan);
  if (!window) return;
  const cap = window[market.market_type];
  if ((await store.marketRank(market)) >= cap) throw outsideWindow(plan, market.market_type, cap);
}
