// A full disk end to end with the built CLI: stdout on /dev/full (as `> file` on a full disk),
// `-o /dev/full`, and, when the test runs as root, a 64 KB tmpfs that fills mid-export. Every
// format and command ends with one line (`cannot write …: no space left on device`), exit 10,
// no stack trace, no "written" summary, and no partial file left behind.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, CLEAN_ENV } from './support/msnap-process.js';
import { startSeededService, type SeededService } from './support/seeded-service.js';

const FULL = 'no space left on device';
let svc: SeededService;
let small: string;
let mounted = false;
let marketStart = 0;

beforeAll(async () => {
  // Two full 5m markets: 2,400 snapshots each, ~150 KB of CSV, more than the tmpfs holds.
  svc = await startSeededService('disk-full', ['--days', '1', '--full', '5m=2,15m=0,1hr=0,4hr=0,24hr=0']);
  const markets = JSON.parse(String((await svc.run(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '3', '--json'])).stdout)) as Array<{ start_time: number; snapshot_count: number }>;
  marketStart = markets.find((m) => m.snapshot_count === 2400)!.start_time;
  small = path.join(svc.dir, 'small');
  mkdirSync(small);
  if (process.getuid?.() === 0) {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', small]);
      mounted = true;
    } catch {
      // No mount privilege in this container: the /dev/full cases still run.
    }
  }
}, 180_000);

afterAll(async () => {
  if (mounted) execFileSync('umount', [small]);
  await svc?.close();
});

/** Runs the built CLI with its stdout on `file` (opened with `flags`, as a shell's `>` or `>>`). */
async function toFile(args: string[], file: string, flags = 'w'): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(file, flags);
  try {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: svc.dir,
      env: { ...process.env, ...CLEAN_ENV, ...svc.env, MSNAP_CONFIG_DIR: path.join(svc.dir, 'cfg') } as NodeJS.ProcessEnv,
      stdio: ['ignore', fd, 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, stderr };
  } finally {
    closeSync(fd);
  }
}

const FORMATS = ['csv', 'ndjson', 'json', 'parquet'];

describe('stdout on a full disk (/dev/full)', () => {
  it('an export in every format: one line, exit 10, no "written"', async () => {
    for (const format of FORMATS) {
      const r = await toFile(['snapshots', 'BTC', '5m', '--format', format], '/dev/full');
      expect([format, r.code, r.stderr]).toEqual([format, 10, `msnap: cannot write stdout: ${FULL}\n`]);
    }
  }, 60_000);

  it('every other command, help included', async () => {
    for (const args of [
      ['markets', '--coin', 'BTC', '--limit', '3', '--csv'],
      ['at', 'BTC', '5m', String(marketStart + 5000), '--json'],
      ['limits', '--json'],
      ['health', '--ndjson'],
      ['quality', 'BTC', '5m', '--json'],
      ['chart', 'BTC', '5m'],
      ['--help'],
    ]) {
      const r = await toFile(args, '/dev/full');
      expect([args[0], r.code, r.stderr]).toEqual([args[0], 10, `msnap: cannot write stdout: ${FULL}\n`]);
    }
  }, 60_000);
});

describe('-o /dev/full', () => {
  it('every format fails with one line naming the file and never says "written"', async () => {
    for (const format of FORMATS) {
      const r = await svc.run(['snapshots', 'BTC', '5m', '-o', '/dev/full', '--format', format]);
      expect([format, r.exitCode, r.stderr]).toEqual([format, 10, `msnap: cannot write /dev/full: ${FULL}`]);
    }
  }, 60_000);
});

describe('a tmpfs that fills mid-export (root only)', () => {
  it.skipIf(process.getuid?.() !== 0)('-o FILE: the old file stays, no temp file is left, in every format', async () => {
    expect(mounted).toBe(true);
    const target = path.join(small, 'keep.out');
    writeFileSync(target, 'the previous export\n');
    // 16 KB left free: every format's output outgrows it.
    writeFileSync(path.join(small, 'filler'), Buffer.alloc(44 * 1024));
    for (const format of FORMATS) {
      const r = await svc.run(['snapshots', 'BTC', '5m', '--last', '2', '-o', target, '--format', format]);
      expect([format, r.exitCode, r.stderr]).toEqual([format, 10, `msnap: cannot write ${target}: ${FULL}`]);
      expect(readFileSync(target, 'utf8')).toBe('the previous export\n');
      expect(readdirSync(small).sort()).toEqual(['filler', 'keep.out']);
    }
    rmSync(path.join(small, 'filler'));
  }, 60_000);

  it.skipIf(process.getuid?.() !== 0)('> FILE and >> FILE: one line, exit 10, the file cut back to what it held', async () => {
    const file = path.join(small, 'out.csv');
    const r = await toFile(['snapshots', 'BTC', '5m', '--last', '2', '--csv'], file);
    expect([r.code, r.stderr]).toEqual([10, `msnap: cannot write stdout: ${FULL}\n`]);
    expect(statSync(file).size).toBe(0);
    writeFileSync(file, 'kept\n');
    const appended = await toFile(['snapshots', 'BTC', '5m', '--last', '2', '--ndjson'], file, 'a');
    expect(appended.code).toBe(10);
    expect(readFileSync(file, 'utf8')).toBe('kept\n');
  }, 60_000);

  it.skipIf(process.getuid?.() !== 0)('pull into a store on the full disk: one line and a hint, exit 10, no half-made store', async () => {
    const db = path.join(small, 'mirror.db');
    const r = await svc.run(['pull', 'BTC', '5m', '--last', '2', '--db', db]);
    expect([r.exitCode, r.stderr]).toEqual([10, expect.any(String)]);
    expect(String(r.stderr).split('\n')).toEqual([
      `msnap: cannot write ${db}: ${FULL}`,
      'hint: free some space and run it again (what was written stays; pull continues where it stopped)',
    ]);
    expect(existsSync(db)).toBe(false);
  }, 60_000);
});
