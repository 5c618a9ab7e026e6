// Reading JSON from its bytes without parsing it: byte codes, skipping a value, and copying a
// number or a string whose text is exactly what JavaScript would print (the snapshot page scan's
// building blocks, snapshot-page-scan.ts).

const TAB = 0x09;
/** The byte line feed. */
export const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
/** The byte `"`. */
export const QUOTE = 0x22;
/** The byte `,`. */
export const COMMA = 0x2c;
/** The byte `-`. */
export const MINUS = 0x2d;
/** The byte `.`. */
export const DOT = 0x2e;
/** The byte `0`. */
export const ZERO = 0x30;
/** The byte `9`. */
export const NINE = 0x39;
/** The byte `:`. */
export const COLON = 0x3a;
/** The byte `[`. */
export const LBRACKET = 0x5b;
const BACKSLASH = 0x5c;
/** The byte `]`. */
export const RBRACKET = 0x5d;
/** The byte `{`. */
export const LBRACE = 0x7b;
/** The byte `}`. */
export const RBRACE = 0x7d;
const TILDE = 0x7e;

// JavaScript prints a number in plain notation from 1e-6 up to 1e21 and with the shortest digits
// that read back as the same double. A decimal of at most 15 significant digits is such a
// shortest form (any two of them are distinct doubles), so its text is what `${n}` gives.
/** Significant digits a copied number may have. */
export const MAX_DIGITS = 15;
/** Zeros a copied number may have after `0.` */
export const MAX_LEADING_FRACTION_ZEROS = 5;


// Byte classes, looked up once per byte: digits, and what a CSV cell may hold unquoted.
const DIGIT = new Uint8Array(256).fill(1, ZERO, NINE + 1);
const PLAIN = new Uint8Array(256).fill(1, SPACE, TILDE + 1);
PLAIN[QUOTE] = PLAIN[BACKSLASH] = PLAIN[COMMA] = 0;

/** The bytes of an ASCII text. */
export function bytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** After the JSON white space at `i`. */
export function skipSpace(b: Uint8Array, i: number): number {
  for (let c = b[i]; c === SPACE || c === LF || c === CR || c === TAB; c = b[++i]);
  return i;
}

/** After the string starting at `i` (a `"`), escapes skipped; -1 when unterminated. */
function stringEnd(b: Uint8Array, i: number): number {
  for (let j = i + 1; j < b.length; j++) {
    const c = b[j];
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++;
  }
  return -1;
}

/** After the JSON value starting at `i` (loosely: the envelope is JSON.parse'd afterwards); -1 when cut short. */
export function valueEnd(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === QUOTE) return stringEnd(b, i);
  if (c === LBRACE || c === LBRACKET) {
    let depth = 0;
    for (let j = i; j < b.length; j++) {
      const d = b[j];
      if (d === QUOTE) {
        j = stringEnd(b, j) - 1;
        if (j < 0) return -1;
      } else if (d === LBRACE || d === LBRACKET) {
        depth++;
      } else if (d === RBRACE || d === RBRACKET) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  for (let d = b[j]; d !== undefined && d !== COMMA && d !== RBRACE && d !== RBRACKET && d !== SPACE && d !== LF && d !== CR && d !== TAB; d = b[++j]);
  return j === i ? -1 : j;
}

/**
 * The number at `i` copied to `out` at `o` (byte for byte: the output grows by end - i), and
 * where it ends, when its text is exactly how JavaScript prints its value; else -1. Refused:
 * an exponent, `-0`, a leading zero, a trailing fraction zero, more than 15 digits (counted
 * from the first non-zero one, trailing integer zeros included), more than 5 zeros after `0.`.
 */
export function copyNumber(b: Uint8Array, i: number, out: Uint8Array, o: number): number {
  const start = i;
  let c = b[i]!;
  if (c === MINUS) {
    out[o++] = c;
    c = b[++i]!;
  }
  const intStart = i;
  while (DIGIT[c] === 1) {
    out[o++] = c;
    c = b[++i]!;
  }
  const intDigits = i - intStart;
  if (intDigits === 0 || (intDigits > 1 && b[intStart] === ZERO)) return -1;
  let digits = b[intStart] === ZERO ? 0 : intDigits;
  if (c === DOT) {
    out[o++] = c;
    c = b[++i]!;
    const fraction = i;
    while (DIGIT[c] === 1) {
      out[o++] = c;
      c = b[++i]!;
    }
    if (i === fraction || b[i - 1] === ZERO) return -1;
    if (digits === 0) {
      let z = fraction;
      while (b[z] === ZERO) z++;
      if (z - fraction > MAX_LEADING_FRACTION_ZEROS) return -1;
      digits = i - z;
    } else {
      digits += i - fraction;
    }
  } else if (digits === 0 && start !== intStart) {
    return -1;
  }
  return digits > MAX_DIGITS || c === 0x65 || c === 0x45 ? -1 : i;
}

/** The text of the string at `i` (just after its `"`) copied to `out` at `o`, and where its closing `"` is, when CSV can hold it unquoted; else -1. */
export function copyText(b: Uint8Array, i: number, out: Uint8Array, o: number): number {
  let c = b[i]!;
  while (PLAIN[c] === 1) {
    out[o++] = c;
    c = b[++i]!;
  }
  return c === QUOTE ? i : -1;
}

/** Where the string whose text starts at `i` (after its `"`) ends, at its closing `"`, when CSV can hold it unquoted; else -1. */
export function plainTextEnd(b: Uint8Array, i: number): number {
  let c = b[i]!;
  while (PLAIN[c] === 1) c = b[++i]!;
  return c === QUOTE ? i : -1;
}
