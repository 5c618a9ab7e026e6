// A real redis-server (Debian's package) for tests: its own free port and temp directory, no
// persistence unless a test asks for it, stopped and restarted on the same port to simulate an
// outage. Nothing is downloaded: a machine without the binary skips the suites, and says so.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REDIS_SERVER = '/usr/bin/redis-server';

/** Whether suites needing a real Redis can run here. */
export function redisAvailable(): boolean {
  return existsSync(REDIS_SERVER);
}

/** Use when a suite is skipped for want of Redis: one line on stderr, so no skip is silent. */
export function announceRedisSkip(suite: string): void {
  console.warn(`skipped: ${suite} (needs ${REDIS_SERVER}; install Debian's redis-server package to run it)`);
}

/** A running throwaway Redis; `destroy()` it in afterAll. */
export class ThrowawayRedis {
  private child: ChildProcess | undefined;
  private output = '';
  private readonly killOnExit = (): void => {
    this.child?.kill('SIGKILL');
  };

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {
    process.on('exit', this.killOnExit);
  }

  /** `redis://127.0.0.1:<port>/0`. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** Start one on a free port; resolves once it answers PING. */
  static async start(): Promise<ThrowawayRedis> {
    const redis = new ThrowawayRedis(await freePort(), mkdtempSync(path.join(tmpdir(), 'msnap-redis-')));
    await redis.restart();
    return redis;
  }

  /** Start again on the same port (after `stop`); with `stop({ keepData })` it reloads its data. */
  async restart(): Promise<void> {
    if (this.child) throw new Error('redis-server is already running');
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, '--logfile', ''];
    const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.output = '';
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString()).slice(-2000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    const deadline = Date.now() + 15_000;
    while ((await command(this.port, ['PING']).catch(() => '')) !== '+PONG') {
      if (!this.child) throw new Error(`redis-server exited at start:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not answer PING within 15 s:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /**
   * Stop the server; resolves once the process has exited. By default its data is lost (as in a
   * crash without persistence); `keepData` saves it first (SHUTDOWN SAVE), as a graceful restart
   * of a persistent Redis would.
   */
  async stop(opts: { keepData?: boolean } = {}): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (opts.keepData) await command(this.port, ['SHUTDOWN', 'SAVE']).catch(() => '');
    else child.kill('SIGTERM');
    await exited;
  }

  /** Freeze the process (SIGSTOP): connections stay open but nothing is answered. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  /** Undo `pause`. */
  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** Stop and delete the temp directory. */
  async destroy(): Promise<void> {
    this.resume();
    await this.stop();
    process.off('exit', this.killOnExit);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Send one command in RESP and return the first line of the reply ('' if the server closed). */
function command(port: number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(2000, () => socket.destroy(new Error('no reply within 2 s')));
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) socket.end();
    });
    socket.on('close', () => resolve(reply.split('\r\n')[0] ?? ''));
    socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
  });
}
