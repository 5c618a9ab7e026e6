// Prices and sizes as the sources publish them (decimal text, or Parquet decimals read as
// numbers) turned into exact integers of a fixed unit, so the displayed-price rule works on
// decimal values and never on binary fractions (REALDATA.md).

/** Prices are kept in units of 0.0001 (PMXT's decimal(9,4); Polymarket's finest tick). */
export const PRICE_DECIMALS = 4;
/** Sizes are kept in units of 0.000001 (PMXT's decimal(18,6)). */
export const SIZE_DECIMALS = 6;

const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/**
 * Use to read a decimal string ("0.48", "120.5", "1e-2" is refused) as an integer count of
 * 10^-decimals; digits beyond `decimals` round half up. NaN when the text is not a plain decimal.
 */
export function parseScaled(text: string, decimals: number): number {
  const m = /^\s*(-?)(\d*)(?:\.(\d*))?\s*$/.exec(text);
  if (!m || (m[2] === '' && (m[3] === undefined || m[3] === ''))) return Number.NaN;
  const frac = m[3] ?? '';
  const whole = m[2] === '' ? 0 : Number(m[2]);
  let scaled = whole * POW10[decimals]! + Number((frac.slice(0, decimals) || '0').padEnd(decimals, '0'));
  if (frac.length > decimals && frac.charCodeAt(decimals) >= 53 /* '5' */) scaled += 1;
  return m[1] === '-' ? -scaled : scaled;
}

/** Use for a value a Parquet reader gave as a number (a decimal column): the nearest count of 10^-decimals. */
function scaleNumber(value: number, decimals: number): number {
  return Math.round(value * POW10[decimals]!);
}

/** Use to read a price or size that may come as text, a number or a bigint; NaN for anything else. */
export function scaledValue(value: unknown, decimals: number): number {
  if (typeof value === 'string') return parseScaled(value, decimals);
  if (typeof value === 'number') return Number.isFinite(value) ? scaleNumber(value, decimals) : Number.NaN;
  if (typeof value === 'bigint') return Number(value) * POW10[decimals]!;
  return Number.NaN;
}
