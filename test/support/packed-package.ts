// The package as a user gets it: `npm pack` run in a copy of the working tree that has no dist/
// (what a fresh clone holds), and the tarball installed into an empty project with no source tree.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { ROOT } from './msnap-process.js';

/** A packed tarball and the paths it holds. */
export interface Packed {
  tarball: string;
  files: string[];
  version: string;
}

/** Use once per test file: packs a clean copy of the tree (tracked and new files, as git sees them). */
export async function packFreshTree(): Promise<Packed> {
  const work = mkdtempSync(path.join(tmpdir(), 'msnap-pack-'));
  const tree = path.join(work, 'tree');
  // Not the repository itself: prepack empties dist/, which the other test files run from.
  const { stdout } = await execa('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT });
  for (const file of stdout.split('\0')) {
    // A tracked file deleted in the working tree is not part of it.
    if (file === '' || file === 'node_modules' || !existsSync(path.join(ROOT, file))) continue;
    mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(tree, file), { dereference: false, errorOnExist: false });
  }
  // The dev dependencies `npm ci` would install, so `prepare` can compile.
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'), 'dir');
  const out = path.join(work, 'out');
  mkdirSync(out);
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', out], { cwd: tree, env: { npm_config_loglevel: 'error' } });
  const [info] = JSON.parse(packed.stdout) as [{ filename: string; version: string; files: { path: string }[] }];
  return { tarball: path.join(out, info.filename), files: info.files.map((f) => f.path), version: info.version };
}

/** The version of a package the repository's own install holds (better-sqlite3: its native build is reused). */
export function repoVersion(name: string): string {
  return (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** What else a test project holds: files written before the install, packages installed beside msnap. */
export interface ProjectExtras {
  files?: Record<string, string>;
  packages?: string[];
}

/**
 * Use to install a tarball into a new project and return its directory.
 *
 * Installed with --ignore-scripts, then the repository's compiled better-sqlite3 binding is copied
 * in: a real install compiles it from source (~2 min on this machine, measured in docs/library.md),
 * which would dominate the test without testing anything of ours. The same version is pinned so the
 * copied binding matches its JavaScript; everything else comes from the registry as a user's would.
 */
export async function installTarball(tarball: string, extra: ProjectExtras = {}): Promise<string> {
  const project = mkdtempSync(path.join(tmpdir(), 'msnap-consumer-'));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  for (const [name, text] of Object.entries(extra.files ?? {})) {
    mkdirSync(path.dirname(path.join(project, name)), { recursive: true });
    writeFileSync(path.join(project, name), text);
  }
  const sqlite = repoVersion('better-sqlite3');
  await execa(
    'npm',
    ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', tarball, `better-sqlite3@${sqlite}`, ...(extra.packages ?? [])],
    { cwd: project, env: { npm_config_loglevel: 'error' } },
  );
  const binding = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
  mkdirSync(path.dirname(path.join(project, binding)), { recursive: true });
  cpSync(path.join(ROOT, binding), path.join(project, binding));
  return project;
}
