// Real processes for the reliability tests: the built CLI and `msnap serve` run with execa, plus a
// raw-socket exchange for bytes no HTTP client would send. Nothing here is mocked.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type Options, type ResultPromise } from 'execa';

/** The repository root (where bin/msnap.js lives). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** Use in beforeAll: builds dist/ unless it is newer than every source (`npm test` has just built it). */
export async function buildIfStale(): Promise<void> {
  const entry = path.join(ROOT, 'dist/cli/main.js');
  if (existsSync(entry) && statSync(entry).mtimeMs >= newestSource(path.join(ROOT, 'src'))) return;
  await execa('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT, reject: false });
  await execa('npx', ['tsc', '-p', 'tsconfig.page.json'], { cwd: ROOT, reject: false });
}

/** Environment that keeps the outer shell's MSNAP_* settings out of a child. */
export const CLEAN_ENV: Record<string, string | undefined> = {
  MSNAP_API: undefined,
  MSNAP_API_KEY: undefined,
  MSNAP_BASE_URL: undefined,
  MSNAP_CONFIG_DIR: undefined,
  MSNAP_DB: undefined,
  NO_COLOR: '1',
};

/** The built CLI's launcher, absolute so children can run in a scratch directory. */
export const BIN = path.join(ROOT, 'bin/msnap.js');

/**
 * Use to run the built CLI once to completion; never rejects (check exitCode). It runs in `cwd`
 * (the test's temp dir, say), so a default ./msnap.db never lands in the repository.
 * `keepFinalNewline` leaves stdout and stderr exactly as written.
 */
export function msnap(
  args: string[],
  opts: { env?: Record<string, string | undefined>; input?: string; timeout?: number; cwd?: string; keepFinalNewline?: boolean } = {},
) {
  return execa('node', [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    reject: false,
    timeout: opts.timeout ?? 30_000,
    stripFinalNewline: opts.keepFinalNewline !== true,
    env: { ...CLEAN_ENV, ...opts.env },
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' as const }),
  });
}

/** Use to start a long-running CLI process (an export to kill, a server to restart). */
export function spawnMsnap(args: string[], opts: Options & { env?: Record<string, string | undefined> } = {}) {
  return execa('node', [BIN, ...args], {
    cwd: ROOT,
    reject: false,
    stdin: 'ignore',
    ...opts,
    env: { ...CLEAN_ENV, ...opts.env },
  });
}

/**
 * Use to stop a CLI process mid-way: runs `args` and SIGKILLs it once it has written `lines` stderr
 * lines starting with `prefix` (its progress); resolves to how it ended.
 */
export async function killAfterProgress(args: string[], prefix: string, lines: number, opts: { cwd?: string } = {}) {
  const child = spawnMsnap(args, opts);
  let seen = 0;
  await new Promise<void>((resolve) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString().split('\n').filter((l) => l.startsWith(prefix)).length;
      if (seen >= lines && !child.killed) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    void child.then(() => resolve());
  });
  return child;
}

/** `serve seed` into `db` (a small data set unless `args` say otherwise); throws when it fails. */
export async function seed(db: string, args: string[] = ['--days', '1', '--full', '5m=1,15m=0,1hr=0,4hr=0,24hr=0']): Promise<void> {
  const r = await msnap(['serve', 'seed', '--db', db, ...args], { timeout: 120_000, cwd: path.dirname(db) });
  if (r.exitCode !== 0) throw new Error(`serve seed failed (${r.exitCode}): ${r.stderr}`);
  if (!existsSync(db)) throw new Error(`serve seed did not write --db ${db}: ${r.stdout}`);
}

/** `serve keys create`: returns the new key (alone on stdout); throws when it fails. */
export async function createKey(db: string, account: string, plan: string, extra: string[] = []): Promise<string> {
  const r = await msnap(['serve', 'keys', 'create', '--db', db, '--account', account, '--plan', plan, ...extra], { cwd: path.dirname(db) });
  if (r.exitCode !== 0) throw new Error(`keys create failed (${r.exitCode}): ${r.stderr}`);
  const key = String(r.stdout).trim();
  if (!/^\S+$/.test(key)) throw new Error(`keys create printed more than a key: ${JSON.stringify(r.stdout)}`);
  return key;
}

/** A running `msnap serve` and everything it has printed so far. */
export interface Served {
  proc: ResultPromise;
  url: string;
  port: number;
  /** All stdout and stderr text so far (the secrets test greps it). */
  output(): string;
  /** SIGTERM and wait; resolves with the exit code and signal. */
  stop(): Promise<{ exitCode?: number; signal?: string }>;
}

/** Use to start `msnap serve --db db --port port` and wait for its listening line. */
export async function startServe(
  db: string,
  opts: { port?: number; env?: Record<string, string | undefined>; args?: string[] } = {},
): Promise<Served> {
  const proc = spawnMsnap(['serve', '--db', db, '--port', String(opts.port ?? 0), ...(opts.args ?? [])], { env: opts.env, all: false });
  let out = '';
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 30_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const m = /msnap serve listening on (http:\/\/127\.0\.0\.1:(\d+))\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void proc.then((r) => {
      clearTimeout(timer);
      reject(new Error(`serve exited early (${r.exitCode}): ${out}`));
    });
  });
  return {
    proc,
    url,
    port: Number(new URL(url).port),
    output: () => out,
    async stop() {
      if (proc.exitCode === null && !proc.killed) proc.kill('SIGTERM');
      const r = await proc;
      return { exitCode: r.exitCode, signal: r.signal };
    },
  };
}

/** What came back on a raw socket: all bytes, whether the server closed it, and how long that took. */
export interface RawAnswer {
  text: string;
  closedByServer: boolean;
  ms: number;
}

/**
 * Use to send bytes no HTTP client would send. Collects the answer until the server closes the
 * socket, `waitMs` passes, or (with `settleMs`) nothing more arrived for that long after the last
 * bytes; then the test closes it. `chunks` are written `gapMs` apart.
 */
export function rawExchange(
  port: number,
  chunks: string[] | string,
  opts: { waitMs?: number; gapMs?: number; settleMs?: number } = {},
): Promise<RawAnswer> {
  const parts = typeof chunks === 'string' ? [chunks] : chunks;
  const waitMs = opts.waitMs ?? 3000;
  let settle: NodeJS.Timeout | undefined;
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let settled = false;
    const finish = (closedByServer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(settle);
      socket.destroy();
      resolve({ text, closedByServer, ms: performance.now() - started });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (d) => {
      text += d.toString('latin1');
      // With settleMs, a socket the server keeps open (keep-alive) ends once the answers stop coming.
      if (opts.settleMs !== undefined) {
        clearTimeout(settle);
        settle = setTimeout(() => finish(false), opts.settleMs);
      }
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on('connect', async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
        if (settled || socket.destroyed) return;
        socket.write(part, 'latin1');
      }
    });
  });
}

/** One response parsed out of raw bytes: status, lower-cased headers, body. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Use to split raw socket text into the responses it holds (Content-Length framed, as msnap serve sends). */
export function parseRawResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const lines = rest.slice(0, headEnd).split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    // A body still arriving is not a response yet (callers parse as bytes come in).
    if (rest.length < headEnd + 4 + length) break;
    out.push({ status, headers, body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return out;
}
