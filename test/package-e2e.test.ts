// The package as published: `npm pack` from a tree with no dist/, the tarball's contents, and the
// installed binary run from a project that holds no source (an export compared with the repo's CLI).
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { installTarball, packFreshTree, type Packed } from './support/packed-package.js';
import { buildIfStale, CLEAN_ENV, msnap, ROOT } from './support/msnap-process.js';

let packed: Packed;
let project: string;

beforeAll(async () => {
  await buildIfStale();
  packed = await packFreshTree();
  project = await installTarball(packed.tarball);
}, 600_000);

function installed(args: string[], cwd: string) {
  return execa(path.join(project, 'node_modules/.bin/msnap'), args, { cwd, reject: false, env: { ...CLEAN_ENV }, stdin: 'ignore' });
}

describe('npm pack', () => {
  it('ships the compiled CLI, the licence and the changelog', () => {
    for (const file of ['bin/msnap.js', 'dist/cli/main.js', 'dist/dashboard/page/main.js', 'LICENSE', 'CHANGELOG.md', 'package.json']) {
      expect(packed.files).toContain(file);
    }
  });

  it('ships no tests, test support, source maps, sources, bench or fixtures', () => {
    const unwanted = packed.files.filter((f) => /(^|\/)test-support\/|\.test\.js$|\.map$|^(src|test|bench|fixtures|scripts|docs)\//.test(f));
    expect(unwanted).toEqual([]);
  });

  it("docs/library.md's tarball figures hold (within 15%: a few files more or less do not make them wrong)", () => {
    const text = readFileSync(path.join(ROOT, 'docs/library.md'), 'utf8');
    const m = /The tarball is (\d+) kB \((\d+) files/.exec(text);
    expect(m, 'docs/library.md states "The tarball is N kB (M files"').not.toBeNull();
    const kb = statSync(packed.tarball).size / 1000;
    expect(Math.abs(kb / Number(m![1]) - 1), `the tarball is ${Math.round(kb)} kB`).toBeLessThan(0.15);
    expect(Math.abs(packed.files.length / Number(m![2]) - 1), `the tarball holds ${packed.files.length} files`).toBeLessThan(0.15);
  });

  it('every module the CLI imports is in the tarball', () => {
    const js = new Set(packed.files.filter((f) => f.endsWith('.js')));
    const missing: string[] = [];
    for (const file of js) {
      const text = readFileSync(path.join(project, 'node_modules/msnap', file), 'utf8');
      for (const m of text.matchAll(/(?:from |import\()'(\.{1,2}\/[^']+)'/g)) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!));
        if (!js.has(target)) missing.push(`${file} -> ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('the installed msnap', () => {
  it('prints the package version', async () => {
    const r = await installed(['--version'], project);
    expect(r.exitCode).toBe(0);
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(r.stdout.trim()).toBe(version);
    expect(packed.version).toBe(version);
  });

  it('seeds a store and exports a market as the repository CLI does', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'msnap-pack-db-'));
    const db = path.join(dir, 'store.db');
    const seeded = await installed(['serve', 'seed', '--db', db, '--days', '1', '--full', '5m=1,15m=0,1hr=0,4hr=0,24hr=0'], dir);
    expect(seeded.exitCode, seeded.stderr).toBe(0);
    const listed = await installed(['markets', '--coin', 'BTC', '--type', '5m', '--db', db, '--limit', '5', '--ndjson'], dir);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const withRows = listed.stdout.split('\n').map((l) => JSON.parse(l) as { market_id: string; snapshot_count: number }).find((m) => m.snapshot_count > 0);
    expect(withRows).toBeDefined();
    const exported = await installed(['snapshots', withRows!.market_id, '--db', db, '--csv'], dir);
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(exported.stdout.split('\n').length).toBe(withRows!.snapshot_count + 1);
    const reference = await msnap(['snapshots', withRows!.market_id, '--db', db, '--csv'], { cwd: dir });
    expect(exported.stdout).toBe(reference.stdout);
  });

  it('a bad argument is a usage error (exit 2) worded as from the repository, with no stack', async () => {
    const args = ['snapshots', 'not-a-market', '--db', path.join(project, 'none.db')];
    const r = await installed(args, project);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).toBe((await msnap(args, { cwd: project })).stderr);
  });
});
