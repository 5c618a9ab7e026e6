// `-o PATH` end to end with the built CLI: a regular file is replaced atomically, but a symlink, a
// FIFO, a character device and a socket must survive an export as what they are (an export once
// replaced /dev/null with a regular file when run as root).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  createReadStream,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from './support/until.js';
import { buildIfStale, createKey, msnap, seed, spawnMsnap, startServe, type Served } from './support/msnap-process.js';

/** True when a thread of process `pid` waits in the kernel for the other end of a FIFO (Linux: wchan). */
function blockedOpeningFifo(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).some((task) => readFileSync(`/proc/${pid}/task/${task}/wchan`, 'utf8').trim() === 'wait_for_partner');
  } catch {
    return false;
  }
}

let dir: string;
let served: Served;
let env: Record<string, string>;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-otarget-'));
  const db = path.join(dir, 'data.db');
  await seed(db, ['--days', '1', '--full', '5m=1,15m=0,1hr=0,4hr=0,24hr=0']);
  const key = await createKey(db, 'o', 'pro');
  served = await startServe(db);
  env = { MSNAP_BASE_URL: served.url, MSNAP_API_KEY: key, MSNAP_CONFIG_DIR: path.join(dir, 'config') };
}, 120_000);

afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ARGS = ['markets', '--coin', 'BTC', '--type', '5m', '--limit', '3'];

describe('-o PATH', () => {
  it('replaces a regular file atomically and keeps its permissions', async () => {
    const target = path.join(dir, 'plain.csv');
    writeFileSync(target, 'old\n');
    chmodSync(target, 0o600);
    const r = await msnap([...ARGS, '-o', target], { env });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(readFileSync(target, 'utf8').split('\n')[0]).toMatch(/^market_id,/);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('follows a symlink: the link stays, its target gets the data', async () => {
    const real = path.join(dir, 'real.ndjson');
    writeFileSync(real, 'old\n');
    const link = path.join(dir, 'link.ndjson');
    symlinkSync('real.ndjson', link);
    const r = await msnap([...ARGS, '-o', link], { env });
    expect(r.exitCode).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('real.ndjson');
    const rows = readFileSync(real, 'utf8').trim().split('\n');
    expect(rows).toHaveLength(3);
    expect(JSON.parse(rows[0]!).coin).toBe('BTC');
  });

  it('follows a dangling symlink and creates its target', async () => {
    mkdirSync(path.join(dir, 'sub'));
    const link = path.join(dir, 'dangling.csv');
    symlinkSync(path.join('sub', 'made.csv'), link);
    const r = await msnap([...ARGS, '-o', link], { env });
    expect(r.exitCode).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(dir, 'sub', 'made.csv'), 'utf8').trim().split('\n')).toHaveLength(4);
  });

  it('streams into a FIFO in place: the reader gets every row, the FIFO stays a FIFO', async () => {
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const export_ = msnap([...ARGS, '--csv', '-o', fifo], { env });
    let got = '';
    await new Promise<void>((resolve, reject) => {
      const reader = createReadStream(fifo, 'utf8');
      reader.on('data', (d) => (got += d));
      reader.on('end', resolve);
      reader.on('error', reject);
    });
    const r = await export_;
    expect(r.exitCode).toBe(0);
    expect(got.trim().split('\n')).toHaveLength(4);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir).filter((f) => f.startsWith('pipe.tmp-'))).toEqual([]);
  });

  it('writes into a character device in place (a /dev/null made in the temp dir)', async (ctx) => {
    const dev = path.join(dir, 'null');
    try {
      execFileSync('mknod', [dev, 'c', '1', '3']);
    } catch {
      // mknod needs root (CI runs as root); say so instead of passing silently.
      ctx.skip();
    }
    const r = await msnap([...ARGS, '-o', dev], { env });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const st = lstatSync(dev);
    expect(st.isCharacterDevice()).toBe(true);
    expect(readdirSync(dir).filter((f) => f.startsWith('null.tmp-'))).toEqual([]);
  });

  it('writes into a Unix socket in place', async () => {
    const sock = path.join(dir, 'out.sock');
    let got = '';
    const server = createServer((c) => c.on('data', (d) => (got += d.toString('utf8'))).on('error', () => undefined));
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    const r = await msnap([...ARGS, '--ndjson', '-o', sock], { env });
    expect(r.exitCode).toBe(0);
    // The socket's reader may get the last bytes just after the writer exits.
    await until(() => got.trim().split('\n').length >= 3, 'three lines through the socket', 5_000);
    expect(got.trim().split('\n')).toHaveLength(3);
    // (Closing the server removes the socket file, so look first.)
    expect(lstatSync(sock).isSocket()).toBe(true);
    server.close();
  });

  it('-o - writes to stdout', async () => {
    const r = await msnap([...ARGS, '--csv', '-o', '-'], { env });
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout).split('\n')[0]).toMatch(/^market_id,/);
    expect(readdirSync(process.cwd()).filter((f) => f === '-' || f.startsWith('-.tmp-'))).toEqual([]);
  });

  it('a directory, an impossible path and an unknown extension are one usage line each', async () => {
    const cases: Array<[string, RegExp]> = [
      [dir, /^msnap: cannot write .*: it is a directory; give a file name$/],
      [path.join(dir, 'plain.csv', 'x.csv'), /^msnap: cannot write .*x\.csv: a part of the path is not a directory$/],
      [path.join(dir, 'x.xlsx'), /^msnap: cannot tell the output format from '\.xlsx'/],
      [path.join(dir, 'x.txt'), /^msnap: cannot tell the output format from '\.txt'/],
    ];
    for (const [target, message] of cases) {
      const r = await msnap([...ARGS, '-o', target], { env });
      expect(r.exitCode, target).toBe(2);
      expect(r.stderr, target).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(readdirSync(dir).filter((f) => f.startsWith('x.'))).toEqual([]);
  });

  it('SIGTERM while streaming into a FIFO exits without touching the FIFO', async () => {
    const fifo = path.join(dir, 'pipe2');
    execFileSync('mkfifo', [fifo]);
    // Nobody reads: the export blocks opening the FIFO until it is killed.
    const proc = spawnMsnap([...ARGS, '-o', fifo], { env });
    // SIGTERM once it is blocked there (a thread of it waits in the kernel for a reader), not
    // after a guessed time: a signal that came earlier would prove nothing about the FIFO.
    await until(() => blockedOpeningFifo(proc.pid!), 'the export to block opening the FIFO');
    proc.kill('SIGTERM');
    const r = await proc;
    expect([143, null]).toContain(r.exitCode ?? null);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });
});
