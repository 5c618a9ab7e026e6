// A real PostgreSQL server for tests, in a temp directory: initdb, pg_ctl start on a free port of
// 127.0.0.1 (its unix socket in the same directory), fsync off. Tests stop and restart it to see
// the store survive an outage, and destroy it afterwards. Debian's binaries, nothing downloaded.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PG_ROOT = '/usr/lib/postgresql';
/** The superuser initdb creates; trust auth on 127.0.0.1 and the socket, so no password. */
const USER = 'msnap';

/** One server; `url` stays the same across stop/restart. */
export interface ThrowawayPostgres {
  url: string;
  port: number;
  dir: string;
  /** Fast shutdown (open connections are ended with 57P01), as an operator's restart does. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  restart(): Promise<void>;
  /** Stops it if running and deletes the directory. */
  destroy(): Promise<void>;
}

/** The bin directory of the newest PostgreSQL Debian installed, or undefined. */
export function postgresBinDir(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(path.join(PG_ROOT, v, 'bin', 'initdb')) && existsSync(path.join(PG_ROOT, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(PG_ROOT, versions[0], 'bin');
}

/** Use to decide whether suites that need a real PostgreSQL can run. */
export function postgresAvailable(): boolean {
  return postgresBinDir() !== undefined;
}

/**
 * Use as `describe.skipIf(skipWithoutPostgres('suite name'))`: true when PostgreSQL is missing,
 * after printing one line saying which suite is skipped and why (a skip is never silent).
 */
export function skipWithoutPostgres(suite: string): boolean {
  if (postgresAvailable()) return false;
  console.warn(`skipping "${suite}": no PostgreSQL server binaries under ${PG_ROOT}/*/bin (install Debian's postgresql package)`);
  return true;
}

const live = new Set<string>();
// A test run that dies before destroy() must not leave servers behind.
process.once('exit', () => {
  for (const data of live) {
    try {
      execFileSync(...asPostgresUser(path.join(postgresBinDir()!, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']), { stdio: 'ignore' });
    } catch {
      // already down
    }
  }
});

/** The file naming the test process that owns a throwaway server's directory. */
const OWNER = 'owner.pid';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A worker killed outright (SIGKILL, a crash) runs no exit hook: its server would run on. Each new
 * server first stops and removes those whose owning process is gone.
 */
function reapOrphans(bin: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith('msnap-pg-')) continue;
    const dir = path.join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(path.join(dir, OWNER), 'utf8'));
    } catch {
      continue;
    }
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    try {
      execFileSync(...asPostgresUser(path.join(bin, 'pg_ctl'), ['-D', path.join(dir, 'data'), '-m', 'immediate', 'stop']), { stdio: 'ignore' });
    } catch {
      // not running
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Use in beforeAll: a fresh, running server (about a second). */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(`no PostgreSQL binaries under ${PG_ROOT}`);
  reapOrphans(bin);
  const dir = mkdtempSync(path.join(tmpdir(), 'msnap-pg-'));
  writeFileSync(path.join(dir, OWNER), String(process.pid));
  const data = path.join(dir, 'data');
  // initdb refuses to run as root: the postgres user owns the directory and runs the server.
  if (isRoot()) {
    const ids = postgresUserIds();
    chownSync(dir, ids.uid, ids.gid);
  }
  await pg(bin, 'initdb', ['-D', data, '-U', USER, '--auth=trust', '--no-sync', '--locale=C', '-E', 'UTF8']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
  ].join(' ');
  const start = () => pg(bin, 'pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '30', 'start']);
  let running = false;
  const up = async () => {
    await start();
    running = true;
    live.add(data);
  };
  const down = async (mode: 'fast' | 'immediate') => {
    if (!running) return;
    await pg(bin, 'pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    running = false;
    live.delete(data);
  };
  await up();
  return {
    url: `postgres://${USER}@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop: () => down('fast'),
    restart: up,
    async destroy() {
      await down('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function isRoot(): boolean {
  return userInfo().uid === 0;
}

function postgresUserIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function asPostgresUser(cmd: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

async function pg(bin: string, tool: string, args: string[]): Promise<void> {
  const [cmd, argv] = asPostgresUser(path.join(bin, tool), args);
  try {
    await run(cmd, argv, { timeout: 60_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${tool} failed: ${(e.stderr ?? e.message).trim()}`);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}
