// One request to the service: auth header, pacer ticket, retries with backoff, 429 handling,
// error mapping and body parsing. Everything above it deals in parsed 2xx bodies, but snapshot
// pages, which read their bytes themselves (snapshot-page.ts).
import type { Dispatcher } from 'undici';
import { AuthError, HttpError } from '../../errors.js';
import { VERSION } from '../../version.js';
import { backoffMs, parseRetryAfter, rateLimitDelayMs } from './backoff.js';
import { errorForStatus, NO_KEY_MESSAGE, timeoutError, tlsError, unreachableError } from '../error-map.js';
import { redactKey } from '../mask-key.js';
import { asObject, MalformedBodyError, normalizeErrorBody } from '../normalize.js';
import { NO_LISTENER_CODES, TIMEOUT_CODES, TIMEOUT_RETRIES, reasonOf, tlsFailure, networkCode } from './network-failure.js';
import { Pacer, type Ticket } from '../pacing/pacer.js';
import type { Answer, ClientStats, ErrorMapper, Query, RawAnswer, TransportOptions } from './transport-types.js';
import { header, rateHeaders, bodyText, parseBody } from './response-body.js';
import { paceStateFile, StateFile } from '../pacing/state-file.js';
import { Agent, request } from './undici-core.js';
import type { StreamOpening, StreamSubscription } from '../watch/stream-events.js';

/** Nothing ever answered and the connection is refused: fail fast after this many retries. */
export const FIRST_CONTACT_RETRIES = 2;

export type { Answer, ClientStats, ErrorMapper, Query, RawAnswer, TransportOptions } from './transport-types.js';

/** Use for every request of one key: the client facade holds one and shares its pacer. */
export class Transport {
  /** The base URL without a trailing slash. */
  readonly baseUrl: string;
  /** The key's pacer; undefined when pacing is off. */
  readonly pacer: Pacer | undefined;
  /** The clock every part of the client reads. */
  readonly now: () => number;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly maxRetries: number;
  private readonly maxRateLimitRetries: number;
  private readonly timeoutMs: number;
  private everAnswered = false;
  private readonly counters = { requests: 0, responses429: 0, retries: 0 };

  constructor(private readonly opts: TransportOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.ownsDispatcher = !opts.dispatcher;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.dispatcher =
      opts.dispatcher ??
      new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000, connections: 8, connect: { timeout: this.timeoutMs } });
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = opts.random ?? Math.random;
    this.maxRetries = opts.maxRetries ?? 5;
    this.maxRateLimitRetries = opts.maxRateLimitRetries ?? 10;
    const shared = opts.paceStateDir && opts.apiKey ? new StateFile(paceStateFile(opts.paceStateDir, this.baseUrl, opts.apiKey), { now: this.now }) : undefined;
    this.pacer = opts.pacing === false ? undefined : new Pacer(this.now, this.sleep, shared);
  }

  /** True when requests carry a key (keyless, only public paths such as health answer). */
  get keyed(): boolean {
    return this.opts.apiKey !== undefined && this.opts.apiKey !== '';
  }

  /** Counters since the transport was made. */
  stats(): ClientStats {
    return { ...this.counters, pacedMs: this.pacer?.stats.pacedMs ?? 0 };
  }

  /** Close the keep-alive connections (only of a dispatcher the transport created). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Use on a 2xx body before reading fields: a JSON object, else an HttpError naming the path. */
  object(body: unknown, path: string): Record<string, unknown> {
    return this.parse(() => asObject(body, path), path);
  }

  /** Use around normalisation of a 2xx body: a body that breaks the contract becomes an HttpError. */
  parse<T>(fn: () => T, path: string): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof MalformedBodyError) {
        throw new HttpError(`unexpected answer from ${this.baseUrl}${path}: ${err.message}`, 200, this.baseUrl + path, undefined);
      }
      throw err;
    }
  }

  private url(path: string, query: Query): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  /** One GET with pacing, retries and error mapping (`mapError`, default the contract's); resolves with the parsed 2xx body. */
  async get(path: string, query: Query, signal?: AbortSignal, mapError: ErrorMapper = errorForStatus): Promise<Answer> {
    const raw = await this.getBytes(path, query, signal, mapError);
    return { body: this.json(raw), ms: raw.ms, rate: raw.rate };
  }

  /** Use on a `getBytes` answer: its JSON, or the HttpError `get` throws for a 2xx body that is not JSON. */
  json(raw: RawAnswer): unknown {
    const text = bodyText(raw.bytes);
    const body = parseBody(text, raw.headers);
    if (body === undefined) {
      throw new HttpError(`unexpected answer from ${raw.url}: not JSON`, raw.status, raw.url, redactKey(text.slice(0, 200), this.opts.apiKey));
    }
    return body;
  }

  /**
   * `get` without the parsing: the 2xx body's bytes, for a caller that reads them faster than
   * JSON.parse would (snapshot pages). Pacing, retries and errors are the same.
   */
  async getBytes(path: string, query: Query, signal?: AbortSignal, mapError: ErrorMapper = errorForStatus): Promise<RawAnswer> {
    return this.send(this.url(path, query), this.keyedHeaders(), signal, mapError, true);
  }

  /**
   * One POST of a JSON body (paper orders), paced and charged like a GET. Not idempotent, so it is
   * sent again only when the server cannot have acted on it: a refused connection, or a 429 (the
   * rate limit is checked before anything runs). A timeout or a 5xx is the caller's to look into.
   */
  async post(path: string, body: unknown, mapError: ErrorMapper = errorForStatus): Promise<Answer> {
    const headers = { ...this.keyedHeaders(), 'content-type': 'application/json' };
    const raw = await this.send(this.url(path, {}), headers, undefined, mapError, true, JSON.stringify(body));
    return { body: this.json(raw), ms: raw.ms, rate: raw.rate };
  }

  private keyedHeaders(): Record<string, string> {
    const key = this.opts.apiKey;
    if (!key) throw new AuthError(NO_KEY_MESSAGE, 'get a key from your account page, then `msnap keys add NAME`');
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': `msnap/${VERSION}` };
    if (this.opts.authScheme === 'bearer') headers['authorization'] = `Bearer ${key}`;
    else headers['x-api-key'] = key;
    return headers;
  }

  /**
   * The service's live stream (`/v1/stream`), subscribed to `sub`; `absent` where it has none. The
   * `ws` client is loaded only by a run that opens one; opening is charged as one request, so it
   * waits its turn in the pacer and shows in --verbose like one.
   */
  async openStream(sub: StreamSubscription): Promise<StreamOpening> {
    const { openSnapshotStream, streamUrl } = await import('../watch/snapshot-stream.js');
    const o = this.opts;
    const target = { baseUrl: this.baseUrl, now: this.now, ...(o.apiKey !== undefined ? { apiKey: o.apiKey } : {}), ...(o.authScheme ? { authScheme: o.authScheme } : {}) };
    return this.paced(streamUrl(this.baseUrl), () => openSnapshotStream(target, sub));
  }

  /**
   * A request made another way than this transport's GETs (the stream's WebSocket upgrade), paced
   * and counted like one: sent under a pace ticket; `attempt` resolves with its value and the
   * answer's headers (undefined: none came), which teach the pacer as a GET's do.
   */
  async paced<T>(
    url: string,
    attempt: () => Promise<{ value: T; status?: number; headers?: Record<string, string | string[] | undefined> }>,
  ): Promise<T> {
    const ticket: Ticket | undefined = this.pacer ? await this.pacer.acquire() : undefined;
    const started = this.now();
    this.counters.requests++;
    let answer: Awaited<ReturnType<typeof attempt>> | undefined;
    try {
      answer = await attempt();
      return answer.value;
    } finally {
      if (ticket) this.pacer?.done(ticket, answer?.headers ? rateHeaders(answer.headers) : undefined);
      this.opts.onRequest?.({ url, status: answer?.status ?? 0, ms: this.now() - started, attempt: 1 });
    }
  }

  /**
   * A GET of a public path (health) that sends no key, so it works without one. It takes no pace
   * ticket and teaches the pacer nothing: its rate headers are the address's, not the key's.
   */
  async getPublic(path: string, mapError: ErrorMapper = errorForStatus): Promise<Answer> {
    const raw = await this.send(this.url(path, {}), { accept: 'application/json', 'user-agent': `msnap/${VERSION}` }, undefined, mapError, false);
    return { body: this.json(raw), ms: raw.ms, rate: raw.rate };
  }

  private async send(
    url: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    mapError: ErrorMapper,
    paced: boolean,
    payload?: string,
  ): Promise<RawAnswer> {
    const key = this.opts.apiKey;
    const pacer = paced ? this.pacer : undefined;
    let retries = 0;
    let limited = 0;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const ticket: Ticket | undefined = pacer ? await pacer.acquire() : undefined;
      const started = this.now();
      this.counters.requests++;
      let status: number;
      let resHeaders: Record<string, string | string[] | undefined>;
      let bytes: Buffer;
      try {
        const res = await request(url, {
          method: payload === undefined ? 'GET' : 'POST',
          headers,
          ...(payload === undefined ? {} : { body: payload }),
          dispatcher: this.dispatcher,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
          signal,
        });
        status = res.statusCode;
        resHeaders = res.headers;
        const body = await res.body.bytes();
        bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      } catch (err) {
        if (ticket) pacer?.done(ticket, undefined);
        const ms = this.now() - started;
        this.opts.onRequest?.({ url, status: 0, ms, attempt });
        if (signal?.aborted) throw err;
        if (tlsFailure(err)) throw tlsError(this.baseUrl);
        const code = networkCode(err);
        if (!code) throw err;
        const timedOut = TIMEOUT_CODES.has(code);
        // A POST that may have reached the server is not sent twice.
        const budget = payload !== undefined && !NO_LISTENER_CODES.has(code)
          ? 0
          : timedOut
          ? Math.min(TIMEOUT_RETRIES, this.maxRetries)
          : !this.everAnswered && NO_LISTENER_CODES.has(code)
            ? Math.min(FIRST_CONTACT_RETRIES, this.maxRetries)
            : this.maxRetries;
        if (retries >= budget) {
          throw timedOut ? timeoutError(this.baseUrl, reasonOf(code, this.timeoutMs)) : unreachableError(this.baseUrl, code);
        }
        const waitMs = backoffMs(retries, this.random);
        // The quick first-contact retries of a refused connection end in their own message within a second.
        const quickFirstContact = !this.everAnswered && NO_LISTENER_CODES.has(code);
        if (!quickFirstContact) this.opts.onRetry?.({ reason: reasonOf(code, this.timeoutMs), waitMs, retry: retries + 1, of: budget });
        await this.sleep(waitMs);
        retries++;
        this.counters.retries++;
        continue;
      }
      this.everAnswered = true;
      const rate = rateHeaders(resHeaders);
      if (ticket) pacer?.done(ticket, rate);
      const ms = this.now() - started;
      this.opts.onRequest?.({ url, status, ms, attempt });
      if (status >= 200 && status < 300) return { bytes, ms, rate, status, url, headers: resHeaders };
      const body = parseBody(bodyText(bytes), resHeaders);
      if (status === 429) {
        this.counters.responses429++;
        limited++;
        if (limited > this.maxRateLimitRetries) throw mapError(status, body, url, key);
        const bodyRetry = normalizeErrorBody(body).retryAfter ?? undefined;
        const seconds = parseRetryAfter(header(resHeaders, 'retry-after'), this.now()) ?? bodyRetry ?? 1;
        const until = this.now() + rateLimitDelayMs(seconds, this.random);
        this.counters.retries++;
        // With a pacer the pause holds every request of the key; without one, just this one.
        if (pacer) pacer.pauseUntil(until);
        else await this.sleep(until - this.now());
        continue;
      }
      if (status >= 500 && payload === undefined && retries < this.maxRetries) {
        const wait = Math.max(backoffMs(retries, this.random), (parseRetryAfter(header(resHeaders, 'retry-after'), this.now()) ?? 0) * 1000);
        await this.sleep(Math.min(wait, 60_000));
        retries++;
        this.counters.retries++;
        continue;
      }
      throw mapError(status, body, url, key);
    }
  }
}
