// The model's decimal rounding (docs/backtest-model.md: numbers to 6 decimals, fees to 5), written once so
// the engine, the report and the tests agree to the last digit.

// Binary doubles put a decimal half (0.144125) a hair below or above its true value; this much of
// a unit in the last kept place counts as the decimal it stands for.
const TIE_SLACK = 1e-7;

/** Use for every reported number: `x` rounded half away from zero to `decimals` places (never -0). */
function roundTo(x: number, decimals: number): number {
  if (!Number.isFinite(x)) return x;
  const scale = 10 ** decimals;
  const units = Math.floor(Math.abs(x) * scale + 0.5 + TIE_SLACK);
  if (units === 0) return 0;
  return (x < 0 ? -units : units) / scale;
}

/** Fees: 5 decimals, as the model rounds them before they touch cash. */
export function round5(x: number): number {
  return roundTo(x, 5);
}

/** Every other reported number: 6 decimals. */
export function round6(x: number): number {
  return roundTo(x, 6);
}

/** Shares a cash limit allows: `x` rounded down to 0.01 (a binary hair under a whole cent counts as it). */
export function floorHundredths(x: number): number {
  if (!(x > 0)) return 0;
  return Math.floor(x * 100 + TIE_SLACK) / 100;
}
