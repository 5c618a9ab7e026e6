// Where source files sit and how long they grow. A file holds one idea whatever its length (issue 32 retired the 300-line cut, which split files
// where the count ran out); past 600 lines a file must say in its header why it is one idea
// (a line `// One idea: …` among its first ten). Test files and test-support are exempt (tables of
// cases grow long without losing clarity).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const MAX_LINES = 600;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test-support' || name === 'node_modules' ? [] : sources(path);
    return /\.(ts|js|cjs|mjs)$/.test(name) && !/\.test\.(ts|js)$/.test(name) ? [path] : [];
  });
}

describe('file length', () => {
  it(`keeps every source file in src/, bench/ and scripts/ at ${MAX_LINES} lines or fewer, or saying why`, () => {
    const files = ['src', 'bench', 'scripts'].flatMap((d) => sources(join(ROOT, d)));
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, 'utf8') }))
      .map((f) => ({ file: f.file, lines: f.text.split('\n').length - 1, says: f.text.split('\n').slice(0, 10).some((l) => l.startsWith('// One idea:')) }))
      .filter((f) => f.lines > MAX_LINES && !f.says);
    expect(long).toEqual([]);
  });
});

describe('folder size', () => {
  // A folder of src/ is scanned at a glance: past ~20 source files it is split by idea into
  // sub-folders (issue 32). cli/commands holds one file per command and is the one exception.
  const MAX_FILES = 20;
  const EXEMPT = new Set(['src/cli/commands']);

  function folders(dir: string): string[] {
    return [dir, ...readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() && name !== 'test-support' ? folders(path) : [];
    })];
  }

  it(`keeps every folder of src/ at ${MAX_FILES} source files or fewer (tests aside)`, () => {
    const all = folders(join(ROOT, 'src'));
    expect(all.length).toBeGreaterThan(20);
    const crowded = all
      .map((dir) => ({ dir: relative(ROOT, dir), files: readdirSync(dir).filter((n) => /\.ts$/.test(n) && !/\.test\.ts$/.test(n)).length }))
      .filter((f) => f.files > MAX_FILES && !EXEMPT.has(f.dir));
    expect(crowded).toEqual([]);
  });
});

describe('architecture map', () => {
  // docs/architecture.md maps every folder of src/ (issue 32): a new folder without its line fails.
  const map = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  function folders(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() && name !== 'test-support' ? [path, ...folders(path)] : [];
    });
  }

  it('names every folder of src/, as src/NAME/ or as NAME/ under its parent', () => {
    const all = folders(join(ROOT, 'src')).map((d) => relative(ROOT, d));
    expect(all.length).toBeGreaterThan(20);
    const unnamed = all.filter((dir) => {
      const base = dir.split('/').at(-1)!;
      return !map.includes(`${dir}/`) && !new RegExp(`(^|[\\s(])${base}/`, 'm').test(map);
    });
    expect(unnamed).toEqual([]);
  });
});
