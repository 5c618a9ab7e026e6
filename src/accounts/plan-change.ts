// Moving an account to a plan (`serve accounts plan`): the same rules as creating one, so a
// trial ends when a paid plan is set and only enterprise carries its own limits.
import { UsageError } from '../errors.js';
import { ENTERPRISE_DEFAULT_LIMITS, type PlanName } from '../domain/plans.js';
import type { PlanChange } from '../store/account-auth-store.js';

/** Use to turn `--plan/--rpm/--burst` into the stored change; UsageError for limits off enterprise. */
export function planChange(plan: PlanName, opts: { rpm?: number; burst?: number } = {}): PlanChange {
  const enterprise = plan === 'enterprise';
  if (!enterprise && (opts.rpm !== undefined || opts.burst !== undefined)) {
    throw new UsageError(`--rpm and --burst are set per account only on the enterprise plan (not ${plan})`);
  }
  return {
    plan,
    // Setting a plan is the operator saying the account is paid for: the trial no longer applies.
    trialEndsAt: null,
    requestsPerMinute: enterprise ? (opts.rpm ?? ENTERPRISE_DEFAULT_LIMITS.requestsPerMinute) : null,
    burstPerSecond: enterprise ? (opts.burst ?? ENTERPRISE_DEFAULT_LIMITS.burstPerSecond) : null,
  };
}
