// GET /api/v1/limits: the caller's plan, limits, window, key count and current usage.
import { PLANS } from '../../domain/plans.js';
import { limitsFor } from '../rate-limit.js';
import { noQuery, type CoreRoute } from '../route.js';

/** The limits body; `usage` reflects this very request. */
export const limitsCore: CoreRoute<undefined, Record<string, unknown>> = {
  query: noQuery,
  handle: async ({ store, now, caller, decision }) => {
    const { account } = caller;
    const plan = PLANS[account.plan];
    const limits = limitsFor(account);
    return {
      plan: account.plan,
      trial: account.trialEndsAt === null ? null : { active: account.trialEndsAt > now, ends_at: account.trialEndsAt },
      rate_limit: { requests_per_minute: limits.perMinute, burst_per_second: limits.burst },
      data_window: plan.dataWindow,
      api_keys: { active: await store.countActiveKeys(account.id, now), max: plan.maxActiveKeys },
      usage: { remaining: decision.remaining, reset: decision.resetSec },
    };
  },
};
