// The reference's decimal rounding, written from docs/backtest-model.md alone.

// Decimal rounding, half away from zero: a decimal tie such as 0.0175 × 10^5 lands a hair off .5 in
// binary, so a 1e-7 unit of slack counts it as the tie it stands for.
export const round = (x: number, d: number): number => {
  const f = 10 ** d;
  const r = (Math.sign(x) * Math.round(Math.abs(x) * f + 1e-7)) / f;
  return Object.is(r, -0) ? 0 : r;
};
export const r6 = (x: number): number => round(x, 6);
export const r5 = (x: number): number => round(x, 5);
