// Numbers as they arrive in JSON bodies, headers and imported rows: a number, or a numeric string.

/** Use for a numeric field that may arrive as a number or a numeric string; undefined when absent or not numeric. */
export function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}
