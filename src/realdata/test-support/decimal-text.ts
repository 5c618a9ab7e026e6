// Exact arithmetic on decimal text ("0.4855", "120.500000"): prices and sizes come as decimal
// strings and the mapping is defined on their decimal values, so fixtures and the reference never
// route them through binary floats. A value is a bigint of units of 10^-scale.

/** A decimal value: `units` × 10^-`scale`. */
export interface Decimal {
  units: bigint;
  scale: number;
}

const DECIMAL_TEXT = /^(-?)(\d*)(?:\.(\d*))?$/;

/** Use to read decimal text ("0.48", ".48", "100", "-1.5"); throws on anything else (exponents included). */
export function parseDecimal(text: string): Decimal {
  const m = DECIMAL_TEXT.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(`not decimal text: '${text}'`);
  const frac = m[3] ?? '';
  const units = BigInt(`${m[2] || '0'}${frac}`);
  return { units: m[1] === '-' ? -units : units, scale: frac.length };
}

/** `value` as units of 10^-scale; throws when that would drop a non-zero digit. */
export function unitsAt(value: Decimal, scale: number): bigint {
  if (scale === value.scale) return value.units;
  if (scale >= value.scale) return value.units * 10n ** BigInt(scale - value.scale);
  const div = 10n ** BigInt(value.scale - scale);
  if (value.units % div !== 0n) throw new Error(`${decimalText(value)} has more than ${scale} decimals`);
  return value.units / div;
}

/** Use to compare two decimals: negative, 0 or positive as a - b is. */
export function compareDecimal(a: Decimal, b: Decimal): number {
  if (a.scale === b.scale) return a.units < b.units ? -1 : a.units > b.units ? 1 : 0;
  const scale = Math.max(a.scale, b.scale);
  const d = unitsAt(a, scale) - unitsAt(b, scale);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** a - b, exactly. */
export function subtractDecimal(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { units: unitsAt(a, scale) - unitsAt(b, scale), scale };
}

/** (a + b) / 2, exactly (one more decimal at most). */
export function midpointDecimal(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale) + 1;
  return { units: ((unitsAt(a, scale) + unitsAt(b, scale)) * 10n) / 20n, scale };
}

/** Use to get exactly `decimals` decimals, rounding half up (away from zero for a half: values here are non-negative). */
export function roundHalfUp(value: Decimal, decimals: number): Decimal {
  if (value.scale <= decimals) return { units: unitsAt(value, decimals), scale: decimals };
  const div = 10n ** BigInt(value.scale - decimals);
  const sign = value.units < 0n ? -1n : 1n;
  const abs = value.units * sign;
  return { units: sign * ((abs + div / 2n) / div), scale: decimals };
}

/**
 * The value as JSON prints the nearest double for values msnap handles (no exponent: between
 * 1e-6 and 1e21, at most 15 significant digits): "0.480" -> "0.48", "100.000000" -> "100".
 */
export function jsonNumberText(value: Decimal): string {
  const negative = value.units < 0n;
  let digits = (negative ? -value.units : value.units).toString();
  if (value.scale > 0) digits = digits.padStart(value.scale + 1, '0');
  const whole = value.scale > 0 ? digits.slice(0, -value.scale) : digits;
  const frac = value.scale > 0 ? digits.slice(-value.scale).replace(/0+$/, '') : '';
  const text = frac === '' ? whole : `${whole}.${frac}`;
  return negative && text !== '0' ? `-${text}` : text;
}

/** The value as plain decimal text with exactly its scale's decimals ("0.4800" at scale 4). */
export function decimalText(value: Decimal): string {
  const negative = value.units < 0n;
  let digits = (negative ? -value.units : value.units).toString();
  if (value.scale === 0) return `${negative ? '-' : ''}${digits}`;
  digits = digits.padStart(value.scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -value.scale)}.${digits.slice(-value.scale)}`;
}
