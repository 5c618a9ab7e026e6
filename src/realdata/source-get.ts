// One GET of a public data source (Gamma, Binance): no key and no pacer, unlike the service
// client's Transport, but the same backoff and network-failure rules (src/client). Retries a 5xx,
// a 429 (waiting at least its Retry-After) and a network failure; never another 4xx.
import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { HttpError, NotFoundError, RateLimitedError, UnreachableError } from '../errors.js';
import { VERSION } from '../version.js';
import { backoffMs, parseRetryAfter, rateLimitDelayMs } from '../client/transport/backoff.js';
import { networkCode, reasonOf } from '../client/transport/network-failure.js';
import { Agent, request } from '../client/transport/undici-core.js';

/** How to reach a source; tests pass a fast `sleep` and a fixed `random`. */
export interface SourceGetOptions {
  /** undici dispatcher; default one made and closed by `withDispatcher`. */
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
  /** Retries of one GET after a 5xx, 429 or network failure; default 5. */
  maxRetries?: number;
  /** Connect, headers and body-idle timeout per attempt; default 30 s. */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). */
  random?: () => number;
}

/** The longest a 429's Retry-After is waited, so a bad header cannot hang an import. */
const MAX_RATE_LIMIT_WAIT_MS = 60_000;

/** Use to run `fn` with the caller's dispatcher, or with a keep-alive Agent made for it and closed after. */
export async function withDispatcher<T>(opts: SourceGetOptions | undefined, fn: (o: SourceGetOptions & { dispatcher: Dispatcher }) => Promise<T>): Promise<T> {
  if (opts?.dispatcher) return fn({ ...opts, dispatcher: opts.dispatcher });
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 8, connect: { timeout: opts?.timeoutMs ?? 30_000 } });
  try {
    return await fn({ ...opts, dispatcher: agent });
  } finally {
    await agent.close();
  }
}

/** Use for one GET of a source's URL: the 2xx body's bytes, or the MsnapError its failure means, naming the URL. */
export async function getSource(url: string, opts: SourceGetOptions & { dispatcher: Dispatcher }): Promise<Buffer> {
  const maxRetries = opts.maxRetries ?? 5;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  // An abort ends a wait between retries too.
  const sleep = opts.sleep ?? ((ms: number) => delay(ms, undefined, { signal: opts.signal }));
  const random = opts.random ?? Math.random;
  for (let retry = 0; ; retry++) {
    opts.signal?.throwIfAborted();
    let status: number;
    let bytes: Buffer;
    let retryAfter: string | undefined;
    try {
      const res = await request(url, {
        method: 'GET',
        headers: { accept: 'application/json, */*', 'user-agent': `msnap/${VERSION}` },
        dispatcher: opts.dispatcher,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: opts.signal,
      });
      status = res.statusCode;
      const h = res.headers['retry-after'];
      retryAfter = Array.isArray(h) ? h[0] : h;
      const body = await res.body.bytes();
      bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const code = networkCode(err);
      if (!code) throw err;
      if (retry >= maxRetries) {
        throw new UnreachableError(`cannot reach ${url} (${reasonOf(code, timeoutMs)}${retry ? `, ${retry + 1} tries` : ''})`, 'check the base URL and your network');
      }
      await sleep(backoffMs(retry, random));
      continue;
    }
    if (status >= 200 && status < 300) return bytes;
    const said = bytes.toString('utf8', 0, Math.min(bytes.length, 200)).replace(/\s+/g, ' ').trim();
    const retriable = status >= 500 || status === 429;
    if (retriable && retry < maxRetries) {
      const seconds = parseRetryAfter(retryAfter, Date.now());
      const wait = status === 429 ? rateLimitDelayMs(seconds ?? 1, random) : Math.max(backoffMs(retry, random), (seconds ?? 0) * 1000);
      await sleep(Math.min(wait, MAX_RATE_LIMIT_WAIT_MS));
      continue;
    }
    const tries = retry ? ` after ${retry + 1} tries` : '';
    if (status === 404) throw new NotFoundError(`${url} answered 404 Not Found`, 'check the base URL');
    if (status === 429) throw new RateLimitedError(`${url} still answered 429 (rate-limited)${tries}`, 'wait a minute, or ask for less at once');
    throw new HttpError(`${url} answered ${status}${tries}${said ? `: ${said}` : ''}`, status, url, said);
  }
}

/** Use for a source that answers JSON: the parsed 2xx body, or an HttpError naming the URL when it is not JSON. */
export async function getSourceJson(url: string, opts: SourceGetOptions & { dispatcher: Dispatcher }): Promise<unknown> {
  const bytes = await getSource(url, opts);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new HttpError(`${url} answered 200, but not with JSON: ${bytes.toString('utf8', 0, 80).replace(/\s+/g, ' ')}`, 200, url, undefined);
  }
}
