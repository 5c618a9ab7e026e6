// Where a market listing meets the plan's data window: a one-shot listing gets a warning in the
// user's terms (their limit, their plan's window), an --all listing hands the end to its caller.
import { redactKey } from '../mask-key.js';
import type { Limits, MarketsListingQuery } from '../types.js';

/** What reportWindowEnd needs of the client: the limits it knows, the key to redact, its once-per-text warner. */
export interface WindowEndContext {
  limits: Limits | undefined;
  apiKey: string | undefined;
  warn(warning: string): void;
}

/** Use when a listing's page says the window ended it (`isWarning`: the service clamped the limit). */
export function reportWindowEnd(q: MarketsListingQuery, message: string, isWarning: boolean, ctx: WindowEndContext): void {
  if (!q.all || !q.onWindowEnd) {
    if (!isWarning) return;
    // The last page's own clamp ("clamped to 104") means nothing to someone who asked for 5,000.
    const cap = q.marketType !== undefined ? ctx.limits?.data_window?.[q.marketType] : undefined;
    if (q.max !== undefined && cap !== undefined && ctx.limits) {
      const listed = Math.max(0, cap - (q.offset ?? 0));
      ctx.warn(
        `limit ${q.max.toLocaleString('en-US')} clamped to ${listed.toLocaleString('en-US')}: your ${ctx.limits.plan} plan only includes the most recent ${cap.toLocaleString('en-US')} ${q.marketType} markets`,
      );
    } else {
      ctx.warn(message);
    }
    return;
  }
  const cap = q.marketType !== undefined ? ctx.limits?.data_window?.[q.marketType] : undefined;
  q.onWindowEnd({
    message: redactKey(message, ctx.apiKey),
    ...(ctx.limits ? { plan: ctx.limits.plan } : {}),
    ...(cap !== undefined && cap > 0 ? { cap } : {}),
    ...(q.marketType !== undefined ? { marketType: q.marketType } : {}),
  });
}
