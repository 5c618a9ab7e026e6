// GET /api/v1/limits: the caller's plan, limits, window, key count and current usage.
import { PLANS } from '../../domain/plans.js';
import { limitsFor } from '../rate-limit.js';
import { defineRoute, noQuery } from '../route.js';

/** The limits route; `usage` reflects this very request. */
export const limitsRoute = defineRoute({
  pattern: 'limits',
  query: noQuery,
  handle: ({ store, now, caller, decision }) => {
    const { account } = caller;
    const plan = PLANS[account.plan];
    const limits = limitsFor(account);
    return JSON.stringify({
      plan: account.plan,
      trial: account.trialEndsAt === null ? null : { active: account.trialEndsAt > now, ends_at: account.trialEndsAt },
      rate_limit: { requests_per_minute: limits.perMinute, burst_per_second: limits.burst },
      data_window: plan.dataWindow,
      api_keys: { active: store.countActiveKeys(account.id, now), max: plan.maxActiveKeys },
      usage: { remaining: decision.remaining, reset: decision.resetSec },
    });
  },
});
