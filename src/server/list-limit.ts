// Limit clamping shared by the list endpoints: above the endpoint maximum, or (builder, coin and
// type given) past the data window, the limit shrinks and the response says so in `warning`.

/** A list's default and maximum `limit` (each dialect has its own). */
export interface ListLimits {
  default: number;
  max: number;
}

/** The limit a list will use and the warnings that explain any reduction. */
export interface ClampedLimit {
  limit: number;
  warnings: string[];
}

/** What every list result carries besides its items: how it was paged and whether to count. */
export interface ListPage {
  total: number;
  limit: number;
  offset: number;
  /** Items on this page. */
  count: number;
  /** Every clamp of the limit, in one sentence each; empty when none. */
  warnings: string[];
  /** False when the caller asked not to be told the total (v4 include_total=false). */
  includeTotal: boolean;
}

/** Use for a list's `limit`: default when absent, clamped to `max` with a warning. */
export function clampToMax(requested: number | undefined, limits: ListLimits): ClampedLimit {
  if (requested === undefined) return { limit: limits.default, warnings: [] };
  if (requested <= limits.max) return { limit: requested, warnings: [] };
  return { limit: limits.max, warnings: [`limit ${requested} is above the maximum of ${limits.max}; clamped to ${limits.max}.`] };
}

/** The `warning` text: undefined when nothing was clamped. */
export function warningText(warnings: readonly string[]): string | undefined {
  return warnings.length > 0 ? warnings.join(' ') : undefined;
}
