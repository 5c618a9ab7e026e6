// A dashboard visitor over real HTTP for the abuse tests: a keep-alive connection pool bound to
// one local address (127.0.0.2, 127.0.0.3, ... are distinct clients to the server), the CSRF
// cookie and token a browser would carry, and form posts. Plus the server process's RSS.
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

/** One answer: status, headers (lower-case names) and body text. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Use one per client address; `signIn`/`signUp` post the dashboard's forms with a valid CSRF token. */
export class DashboardClient {
  readonly pool: Pool;
  private csrf = '';
  private cookie = '';

  constructor(url: string, readonly localAddress = '127.0.0.1', connections = 4) {
    this.pool = new Pool(url, { connections, localAddress, pipelining: 1 });
  }

  /** GET `path` (with this client's cookies). */
  async get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    const r = await this.pool.request({ method: 'GET', path, headers: { ...(this.cookie ? { cookie: this.cookie } : {}), ...headers } });
    return { status: r.statusCode, headers: r.headers, body: await r.body.text() };
  }

  /** Reads the sign-in page once: the anonymous CSRF cookie and the token its forms carry. */
  async start(): Promise<this> {
    const page = await this.get('/signin');
    const set = page.headers['set-cookie'];
    const first = (Array.isArray(set) ? set : [set ?? '']).find((c) => c.startsWith('msnap_csrf='));
    if (!first) throw new Error(`no CSRF cookie on /signin (${page.status})`);
    this.cookie = first.split(';')[0]!;
    this.csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    return this;
  }

  /** POST a dashboard form to `path` with this client's CSRF token; the session cookie of a success is kept. */
  async post(path: string, fields: Record<string, string>): Promise<Answer> {
    const r = await this.pool.request({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookie },
      body: new URLSearchParams({ csrf: this.csrf, ...fields }).toString(),
    });
    return { status: r.statusCode, headers: r.headers, body: await r.body.text() };
  }

  /** A sign-in attempt; the status says how it went (303 in, 401 wrong, 429 throttled). */
  signIn(account: string, password: string): Promise<Answer> {
    return this.post('/signin', { account, password });
  }

  /** The Cookie header this client sends (its CSRF cookie, once `start` ran). */
  get cookieHeader(): string {
    return this.cookie;
  }

  /** The CSRF token its forms carry (once `start` ran). */
  get csrfToken(): string {
    return this.csrf;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** The resident set size of process `pid` in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]) / 1024;
}

/** Runs `task(i)` for i in [0, n) with `concurrency` in flight at once; resolves with every result. */
export async function runPool<T>(n: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}
