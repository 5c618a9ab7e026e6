// The one check every fast path takes (docs/testing.md "Fast paths"): its output against the
// general path's on the same input, byte for byte, and proof that the fast path really ran (a fast
// path that silently falls back would pass any equality test). A difference fails with where it
// starts and the text around it, not two multi-megabyte strings.
import { expect } from 'vitest';

type Output = string | Uint8Array;

const CONTEXT = 60;

/** Where two outputs first differ, with CONTEXT bytes around it on each side; undefined when equal. */
export function firstDifference(fast: Output, general: Output): { offset: number; fast: string; general: string } | undefined {
  const a = Buffer.from(fast);
  const b = Buffer.from(general);
  if (a.equals(b)) return undefined;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const around = (x: Buffer) => x.subarray(Math.max(0, i - CONTEXT), i + CONTEXT).toString('utf8');
  return { offset: i, fast: around(a), general: around(b) };
}

/**
 * Use in a fast path's test: `fast` must equal `general` byte for byte, and `tookFastPath` (what
 * the test observed: no records built, a ready form used, a columnar reader called) must be true.
 */
export function expectSameOutput(what: string, fast: Output, general: Output, tookFastPath: boolean): void {
  expect(tookFastPath, `${what}: the fast path did not run (it fell back to the general one)`).toBe(true);
  expect(Buffer.byteLength(general as string), `${what}: the general path wrote nothing to compare`).toBeGreaterThan(0);
  const diff = firstDifference(fast, general);
  expect(diff, `${what}: the fast path's output differs from the general path's`).toBeUndefined();
}
