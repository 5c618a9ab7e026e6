// Prices and probabilities are stored as integers scaled by 1e4 (4 decimals kept), which keeps
// snapshot rows small; reading back divides by the same power of ten.

/** Stored integer = round(value * PRICE_SCALE); values keep 4 decimals. */
export const PRICE_SCALE = 10_000;

/** Use before storing a price or probability. */
export function toScaled(value: number): number {
  return Math.round(value * PRICE_SCALE);
}

/**
 * Use when reading a stored price back. Dividing an exact integer by an exact 1e4 is correctly
 * rounded, so the result is the double nearest the 4-decimal value and prints in shortest form
 * (971234512 -> 97123.4512), with no float noise.
 */
export function fromScaled(stored: number): number {
  return stored / PRICE_SCALE;
}

/**
 * Below this a stored value's 4-decimal text is exactly what JSON.stringify prints for value / 1e4
 * (the gap between neighbouring doubles is under 1e-4 there, so no shorter text reads back as the
 * same number); text writers that print digits themselves stop here.
 */
export const EXACT_SCALED_LIMIT = 1e15;
