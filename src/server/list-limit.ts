// Limit clamping shared by the list endpoints: above the endpoint maximum, or (builder, coin and
// type given) past the data window, the limit shrinks and the response says so in `warning`.

/** The limit a list will use and the warnings that explain any reduction. */
export interface ClampedLimit {
  limit: number;
  warnings: string[];
}

/** Use for a list's `limit`: default when absent, clamped to `max` with a warning. */
export function clampToMax(requested: number | undefined, defaultLimit: number, max: number): ClampedLimit {
  if (requested === undefined) return { limit: defaultLimit, warnings: [] };
  if (requested <= max) return { limit: requested, warnings: [] };
  return { limit: max, warnings: [`limit ${requested} is above the maximum of ${max}; clamped to ${max}.`] };
}

/** The `warning` field: absent when nothing was clamped. */
export function warningField(warnings: string[]): { warning?: string } {
  return warnings.length > 0 ? { warning: warnings.join(' ') } : {};
}
