// A figure against its target: pass/fail, and how far off it is, so quick mode can fail CI only
// on a wide miss (a noisy shared machine drifts a few percent; a regression moves much more).

/** Fraction by which quick mode may miss a target before it exits non-zero. */
export const WIDE_MISS = 0.25;

/** A measured figure checked against `value <= max` (or `>= min`, or `== exactly`). */
export function judge({ value, max, min, exactly }) {
  if (value === null || value === undefined || Number.isNaN(value)) return { pass: false, miss: Infinity };
  if (exactly !== undefined) {
    const pass = value === exactly;
    return { pass, miss: pass ? 0 : Infinity };
  }
  if (max !== undefined) return { pass: value <= max, miss: Math.max(0, (value - max) / max) };
  return { pass: value >= min, miss: Math.max(0, (min - value) / min) };
}

/** The target as people read it: "<= 1.05", ">= 0.9x", "== 0". */
export function describeTarget({ max, min, exactly }, unit = '') {
  const n = (v) => v.toLocaleString('en-US');
  if (exactly !== undefined) return `= ${n(exactly)}${unit}`;
  if (max !== undefined) return `<= ${n(max)}${unit}`;
  return `>= ${n(min)}${unit}`;
}
