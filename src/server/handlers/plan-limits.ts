// GET /v4/billing/plan-limits: the hosted service's plan summary for one coin, over msnap's plans.
import type { Coin } from '../../domain/market.js';
import { PLANS, type DataWindow, type PlanName } from '../../domain/plans.js';
import { limitsFor } from '../rate-limit.js';
import type { CoreRoute } from '../route.js';

/** What plan-limits reports: the caller's plan, its rate limits and its window (null = all). */
export interface PlanLimitsResult {
  plan: PlanName;
  coin: Coin;
  perSecond: number;
  perMinute: number;
  window: DataWindow;
}

/** `coin` is required (the dialect's rules say so). */
export const planLimitsCore: CoreRoute<{ coin: Coin | undefined }, PlanLimitsResult> = {
  query: (q) => ({ coin: q.coin('coin') }),
  handle: ({ caller }, q) => {
    const limits = limitsFor(caller.account);
    return {
      plan: caller.account.plan,
      coin: q.coin!,
      perSecond: limits.burst,
      perMinute: limits.perMinute,
      window: PLANS[caller.account.plan].dataWindow,
    };
  },
};
