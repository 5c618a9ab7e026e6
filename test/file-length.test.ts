// Issue 24's rule: no non-test source file over 300 lines, so each file stays one idea a reader can
// hold. Test files and test-support are exempt (tables of cases grow long without losing clarity).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const MAX_LINES = 300;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test-support' || name === 'node_modules' ? [] : sources(path);
    return /\.(ts|js|cjs|mjs)$/.test(name) && !/\.test\.(ts|js)$/.test(name) ? [path] : [];
  });
}

describe('file length', () => {
  it(`keeps every source file in src/, bench/ and scripts/ at ${MAX_LINES} lines or fewer`, () => {
    const files = ['src', 'bench', 'scripts'].flatMap((d) => sources(join(ROOT, d)));
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
