// Every TypeScript block of the docs and the README (```ts or ```typescript) type-checks with
// `tsc --strict` against the built package as a user imports it: `msnap`, `msnap/store`,
// `msnap/server`, `msnap/backtest` resolved through package.json's exports to dist/'s
// declarations. A block meant as a fragment says so in its fence (```ts nocheck); none does today.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, ROOT } from './support/msnap-process.js';

interface Block {
  /** Where it stands: `docs/library.md:66` (the fence's line). */
  where: string;
  code: string;
}

const FENCE = /^```(ts|typescript)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;

/** The checked TypeScript blocks of one Markdown text (`nocheck` in the fence's info leaves one out). */
function tsBlocks(file: string, text: string): Block[] {
  const out: Block[] = [];
  for (const m of text.matchAll(FENCE)) {
    if (/\bnocheck\b/.test(m[2]!)) continue;
    out.push({ where: `${file}:${text.slice(0, m.index).split('\n').length}`, code: m[3]! });
  }
  return out;
}

function docBlocks(): Block[] {
  const files = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  return files.flatMap((f) => tsBlocks(f, readFileSync(path.join(ROOT, f), 'utf8')));
}

const TSCONFIG = {
  compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], noEmit: true },
  include: ['blocks/*.ts'],
};

let project: string;
const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/** A project whose `msnap` is this repository (its package.json exports and dist/), holding `blocks`. */
function projectWith(blocks: Block[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'msnap-docs-ts-'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'docs-blocks', private: true, type: 'module' }));
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(ROOT, path.join(dir, 'node_modules', 'msnap'), 'dir');
  symlinkSync(path.join(ROOT, 'node_modules', '@types'), path.join(dir, 'node_modules', '@types'), 'dir');
  mkdirSync(path.join(dir, 'blocks'));
  // One module per block (`export {}`: a block without imports is a module too, so top-level await works and names never clash).
  for (const b of blocks) writeFileSync(path.join(dir, 'blocks', `${b.where.replace(/[/:.]/g, '_')}.ts`), `${b.code}\nexport {};\n`);
  return dir;
}

async function check(dir: string): Promise<{ exitCode: number | undefined; output: string }> {
  const r = await execa('node', [tsc, '-p', 'tsconfig.json'], { cwd: dir, reject: false });
  return { exitCode: r.exitCode, output: (r.stdout + r.stderr).trim() };
}

const made: string[] = [];

beforeAll(async () => {
  await buildIfStale();
});

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('the TypeScript blocks of the docs', () => {
  it('finds the blocks of library.md, backtest.md and bots.md, and leaves out a nocheck block', () => {
    const where = docBlocks().map((b) => b.where.split(':')[0]);
    for (const f of ['docs/library.md', 'docs/backtest.md', 'docs/bots.md']) expect(where).toContain(f);
    const text = '# t\n\n```ts\nconst a: number = 1;\n```\n\n```ts nocheck\nnot checked\n```\n\n```typescript\nconst b = 2;\n```\n';
    expect(tsBlocks('x.md', text)).toEqual([
      { where: 'x.md:3', code: 'const a: number = 1;\n' },
      { where: 'x.md:11', code: 'const b = 2;\n' },
    ]);
  });

  it('type-check with tsc --strict against the built package', async () => {
    project = projectWith(docBlocks());
    made.push(project);
    const r = await check(project);
    expect(r.output).toBe('');
    expect(r.exitCode).toBe(0);
  }, 120_000);

  it('fail to type-check where a block misuses the API (the check is real)', async () => {
    const dir = projectWith([
      { where: 'bad.md:1', code: "import { apiMarketSource } from 'msnap/backtest';\nawait apiMarketSource('not a client', []).next();\n" },
    ]);
    made.push(dir);
    const r = await check(dir);
    expect(r.exitCode).not.toBe(0);
    expect(r.output).toMatch(/bad_md_1\.ts\(2,\d+\): error TS2345/);
  }, 120_000);
});
