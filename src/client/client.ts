// The one HTTP client core every command uses: auth, plan-aware pacing, retries, error mapping,
// normalisation and pagination. Commands never call `request` themselves.
import { Agent, request, type Dispatcher } from 'undici';
import type { Market, Snapshot } from '../domain/market.js';
import { AuthError, HttpError, MsnapError, WindowError } from '../errors.js';
import { VERSION } from '../version.js';
import { backoffMs, parseRetryAfter, rateLimitDelayMs } from './backoff.js';
import { errorForStatus, NO_KEY_MESSAGE, unreachableError } from './error-map.js';
import { redactKey } from './mask-key.js';
import {
  asObject,
  MalformedBodyError,
  normalizeLimits,
  normalizeMarket,
  normalizeSnapshot,
  toEpochMs,
  toNumber,
  type Limits,
} from './normalize.js';
import { Pacer, type RateHeaders, type Ticket } from './pacer.js';
import { paceStateFile, StateFile } from './state-file.js';

export type { Limits } from './normalize.js';
export type { Dispatcher } from 'undici';

/** How to reach the service and, for tests, every source of time and chance. */
export interface ClientOptions {
  /** e.g. http://127.0.0.1:8787 (a trailing slash is fine). */
  baseUrl: string;
  /** Missing: every request fails with AuthError saying how to set one. */
  apiKey?: string;
  /** Header that carries the key; default `x-api-key`. */
  authScheme?: 'x-api-key' | 'bearer';
  /** undici dispatcher; tests pass a MockAgent; default a keep-alive Agent the client owns. */
  dispatcher?: Dispatcher;
  /** Epoch ms clock. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** The service's `warning` (clamping), once per distinct text. */
  onWarning?: (message: string) => void;
  /** Every HTTP attempt (status 0 for a network failure); the URL never holds the key. */
  onRequest?: (info: { url: string; status: number; ms: number; attempt: number }) => void;
  /** Retries of a GET on network errors and 5xx; default 5. */
  maxRetries?: number;
  /** Consecutive 429s tolerated per request before RateLimitedError; default 10. */
  maxRateLimitRetries?: number;
  /** Pace requests under the key's limits; default true. */
  pacing?: boolean;
  /** Headers timeout and body idle timeout per attempt; default 30 s. */
  timeoutMs?: number;
  /** Share the key's pace with other msnap processes through a state file in this directory. */
  paceStateDir?: string;
}

/** Query of the markets list; names as the CLI flags, sent as the contract's parameters. */
export interface MarketsQuery {
  coin?: string;
  marketType?: string;
  status?: string;
  limit?: number;
  offset?: number;
  startTime?: number;
  endTime?: number;
}

/** One page of the markets list. */
export interface MarketsPage {
  markets: Market[];
  total: number;
  limit: number;
  offset: number;
  warning?: string;
}

/** A market listing that stopped at the plan's data window rather than at the end of the data. */
export interface WindowEnd {
  /** The service's own words (its clamping warning or its 403 message). */
  message: string;
  /** From /api/v1/limits, when it was read. */
  plan?: string;
  /** How many markets of `marketType` the window holds, when known. */
  cap?: number;
  marketType?: string;
}

/** Query of one page of a market's snapshots. */
export interface SnapshotsQuery {
  limit?: number;
  offset?: number;
  from?: number;
  to?: number;
  includeOrderbook?: boolean;
}

/** What `snapshots()` and `snapshotPages()` stream: a market's snapshots within from/to. */
export interface SnapshotsStreamQuery {
  from?: number;
  to?: number;
  includeOrderbook?: boolean;
  /** Rows asked per request; the service may clamp it (default DEFAULT_SNAPSHOT_PAGE). */
  pageSize?: number;
  /** Told after each page arrives (page number from 1, its rows, the service's total). */
  onPage?: (p: { page: number; rows: number; total: number }) => void;
}

/** One page of a market's snapshots. */
export interface SnapshotsPage {
  market: Market | null;
  snapshots: Snapshot[];
  total: number;
  limit: number;
  offset: number;
  warning?: string;
}

/** The at-timestamp answer: the nearest snapshot and how far from `ts` it lies. */
export interface AtResult {
  market_id: string;
  ts: number;
  delta_ms: number;
  snapshot: Snapshot;
}

/** Counters for `--verbose` and the benches (429s received must stay 0 when pacing). */
export interface ClientStats {
  requests: number;
  responses429: number;
  retries: number;
  pacedMs: number;
}

/** Default page size of snapshot exports: the local maximum; a hosted service clamps lower. */
export const DEFAULT_SNAPSHOT_PAGE = 10_000;
/** Page size of `markets({ all })`: the local maximum. */
export const DEFAULT_MARKETS_PAGE = 1000;
/** The most markets a hosted page is known to hold, whatever `limit` asks. */
const HOSTED_MARKETS_PAGE = 100;
/** Nothing ever answered and the connection is refused: fail fast after this many retries. */
export const FIRST_CONTACT_RETRIES = 2;

type Query = Record<string, string | number | boolean | undefined>;

interface Answer {
  body: unknown;
  ms: number;
  /** With `lazy`: the 2xx body, read and parsed only when called (an HttpError when it is not JSON). */
  later?: () => Promise<unknown>;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const NO_LISTENER_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** The network error code of `err` (undici wraps causes; happy-eyeballs aggregates them), if it is one we retry. */
function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    const inner = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(inner)) {
      for (const x of inner) {
        const c = (x as { code?: unknown }).code;
        if (typeof c === 'string' && NETWORK_CODES.has(c)) return c;
      }
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function rateHeaders(headers: Record<string, string | string[] | undefined>): RateHeaders {
  const date = header(headers, 'date');
  const parsedDate = date ? Date.parse(date) : NaN;
  return {
    limit: toNumber(header(headers, 'x-ratelimit-limit')),
    remaining: toNumber(header(headers, 'x-ratelimit-remaining')),
    reset: toNumber(header(headers, 'x-ratelimit-reset')),
    serverDate: Number.isNaN(parsedDate) ? undefined : parsedDate,
  };
}

/** Use one per process and key: every command's requests go through it. */
export class MsnapClient {
  private readonly baseUrl: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly maxRetries: number;
  private readonly maxRateLimitRetries: number;
  private readonly timeoutMs: number;
  private readonly pacer: Pacer | undefined;
  private readonly warned = new Set<string>();
  private limitsOnce: Promise<void> | undefined;
  private knownLimits: Limits | undefined;
  private everAnswered = false;
  private readonly counters = { requests: 0, responses429: 0, retries: 0 };

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.ownsDispatcher = !opts.dispatcher;
    this.dispatcher = opts.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000, connections: 8 });
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = opts.random ?? Math.random;
    this.maxRetries = opts.maxRetries ?? 5;
    this.maxRateLimitRetries = opts.maxRateLimitRetries ?? 10;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    const shared = opts.paceStateDir && opts.apiKey ? new StateFile(paceStateFile(opts.paceStateDir, this.baseUrl, opts.apiKey), { now: this.now }) : undefined;
    this.pacer = opts.pacing === false ? undefined : new Pacer(this.now, this.sleep, shared);
  }

  /** Status, time and version of the service, with the round-trip time of the answering attempt. */
  async health(): Promise<{ status: string; time: number; version: string; rttMs: number }> {
    const { body, ms } = await this.get('/api/health', {});
    const b = this.object(body, '/api/health');
    return {
      status: typeof b['status'] === 'string' ? b['status'] : 'unknown',
      time: toEpochMs(b['time']) ?? 0,
      version: typeof b['version'] === 'string' ? b['version'] : 'unknown',
      rttMs: ms,
    };
  }

  /** The key's plan, limits, data window, keys and usage; also teaches the pacer the exact limits. */
  async limits(): Promise<Limits> {
    const { body } = await this.get('/api/v1/limits', {});
    const limits = this.parse(() => normalizeLimits(body), '/api/v1/limits');
    this.knownLimits = limits;
    this.pacer?.learn({ perMinute: limits.rate_limit.requests_per_minute, burst: limits.rate_limit.burst_per_second });
    return limits;
  }

  /** One page of the markets list, as the server gave it (its `limit` may be clamped). */
  async marketsPage(q: MarketsQuery): Promise<MarketsPage> {
    const page = await this.fetchMarketsPage(q);
    if (page.warning !== undefined) this.warn(page.warning);
    return page;
  }

  // A page without reporting its warning: a listing decides whether the warning concerns the user.
  private async fetchMarketsPage(q: MarketsQuery): Promise<MarketsPage> {
    const path = '/api/v1/markets';
    const { body } = await this.get(path, {
      coin: q.coin,
      market_type: q.marketType,
      status: q.status,
      limit: q.limit,
      offset: q.offset,
      start_time: q.startTime,
      end_time: q.endTime,
    });
    const b = this.object(body, path);
    const now = this.now();
    const raw = Array.isArray(b['markets']) ? (b['markets'] as unknown[]) : [];
    const markets = this.parse(() => raw.map((m) => normalizeMarket(m, now)), path);
    return this.envelope(b, { markets }, markets.length, q.offset ?? 0);
  }

  /**
   * Markets newest first: one page (up to `limit`, default 100), up to `max`, or every one (`all`).
   * New markets keep appearing at the top while we page, shifting offsets: each page overlaps
   * the previous by one item, items already covered are dropped, and if the overlap shows that
   * items vanished above us (a status filter), we step back so none is skipped.
   * Clamping warnings caused by our own page sizes are dropped; when the listing comes up short
   * at the data window the last page's warning is reported, or, for `all`, `onWindowEnd`
   * (when given) hears of it instead: the caller asked for everything there is.
   */
  async *markets(
    q: MarketsQuery & { all?: boolean; max?: number; onWindowEnd?: (end: WindowEnd) => void },
  ): AsyncGenerator<Market> {
    const wanted = q.all ? Infinity : (q.max ?? q.limit ?? 100);
    const pageLimit = q.limit ?? (q.all || q.max !== undefined ? DEFAULT_MARKETS_PAGE : 100);
    // More than one page is likely (the hosted service holds at most 100 markets a page): learn
    // the exact limits before the first request rather than pacing on a guess.
    if (wanted > Math.min(pageLimit, HOSTED_MARKETS_PAGE)) await this.ensureLimits();
    let yielded = 0;
    let pos = q.offset ?? 0; // offset of the next unseen market in the current list
    let cursor: { start: number; ids: Set<string> } | undefined; // oldest start yielded, ids at it
    let lastTotal: number | undefined;
    let recent = new Set<string>();
    let previous = new Set<string>();
    const covered = (m: Market): boolean =>
      recent.has(m.market_id) ||
      previous.has(m.market_id) ||
      (cursor !== undefined && (m.start_time > cursor.start || (m.start_time === cursor.start && cursor.ids.has(m.market_id))));
    let stalls = 0;
    let asked = 0;
    while (yielded < wanted) {
      const first = cursor === undefined && yielded === 0;
      // A server that pages lower than asked turned one request into several: pace them exactly.
      if (!first) await this.ensureLimits();
      const overlap = first || pos === 0 ? 0 : 1;
      let offset = pos - overlap;
      let step = 1;
      let page: MarketsPage;
      for (;;) {
        const limit = Number.isFinite(wanted) ? Math.min(pageLimit, wanted - yielded + overlap) : pageLimit;
        try {
          page = await this.fetchMarketsPage({ ...q, offset, limit });
        } catch (err) {
          // A later page past a builder window that shrank under us: the window ends here.
          if (err instanceof WindowError && !first) {
            this.windowEnd(q, err.message, false);
            return;
          }
          throw err;
        }
        asked = limit;
        const head = page.markets[0];
        if (first || offset === 0 || !head || covered(head)) break;
        // The item just before our position is one we never saw: items vanished above us.
        const shrink = lastTotal !== undefined ? Math.max(0, lastTotal - page.total) : 0;
        step = Math.max(step * 2, shrink + 1);
        offset = Math.max(0, offset - step);
      }
      previous = recent;
      recent = new Set<string>();
      let fresh = 0;
      for (const m of page.markets) {
        const seen = covered(m);
        recent.add(m.market_id);
        if (seen) continue;
        if (!cursor || m.start_time < cursor.start) cursor = { start: m.start_time, ids: new Set([m.market_id]) };
        else cursor.ids.add(m.market_id);
        fresh++;
        yielded++;
        yield m;
        if (yielded >= wanted) return;
      }
      const newPos = offset + page.markets.length;
      lastTotal = page.total;
      if (page.markets.length === 0 || newPos >= page.total) {
        // Short of what was wanted, on a page cut below what we asked: the data window ended it.
        if (page.warning !== undefined && page.limit < asked) this.windowEnd(q, page.warning, true);
        return;
      }
      stalls = fresh === 0 && newPos <= pos ? stalls + 1 : 0;
      if (stalls >= 2) return;
      pos = newPos;
    }
  }

  private windowEnd(q: MarketsQuery & { all?: boolean; onWindowEnd?: (end: WindowEnd) => void }, message: string, isWarning: boolean): void {
    if (!q.all || !q.onWindowEnd) {
      if (isWarning) this.warn(message);
      return;
    }
    const cap = q.marketType !== undefined ? this.knownLimits?.data_window?.[q.marketType as keyof NonNullable<Limits['data_window']>] : undefined;
    q.onWindowEnd({
      message: redactKey(message, this.opts.apiKey),
      ...(this.knownLimits ? { plan: this.knownLimits.plan } : {}),
      ...(cap !== undefined && cap > 0 ? { cap } : {}),
      ...(q.marketType !== undefined ? { marketType: q.marketType } : {}),
    });
  }

  // The service's `warning` (clamping), once per distinct text.
  private warn(warning: string): void {
    if (this.warned.has(warning)) return;
    this.warned.add(warning);
    this.opts.onWarning?.(redactKey(warning, this.opts.apiKey));
  }

  /** One market by id. */
  async market(id: string): Promise<Market> {
    const path = `/api/v1/markets/${encodeURIComponent(id)}`;
    const { body } = await this.get(path, {});
    const b = this.object(body, path);
    const now = this.now();
    return this.parse(() => normalizeMarket(b['market'] ?? b, now), path);
  }

  /** One page of a market's snapshots, as the server gave it (its `limit` may be clamped). */
  async snapshotsPage(id: string, q: SnapshotsQuery, signal?: AbortSignal): Promise<SnapshotsPage> {
    const page = await this.fetchSnapshotsPage(id, q, signal);
    if (page.warning !== undefined) this.warn(page.warning);
    return page;
  }

  // A page without reporting its warning: an export pages by what it is given, so a clamp of
  // its own page size is no news to the user.
  private async fetchSnapshotsPage(id: string, q: SnapshotsQuery, signal?: AbortSignal): Promise<SnapshotsPage> {
    return (await this.fetchSnapshotsPageLater(id, q, signal, false))();
  }

  // The page's answer now, its body when called: `lazy` leaves a page fetched ahead in the socket
  // until it is wanted (see get). A body that then fails to arrive is fetched again.
  private async fetchSnapshotsPageLater(id: string, q: SnapshotsQuery, signal?: AbortSignal, lazy = true): Promise<() => Promise<SnapshotsPage>> {
    const path = `/api/v1/markets/${encodeURIComponent(id)}/snapshots`;
    const query = {
      limit: q.limit,
      offset: q.offset,
      start_time: q.from,
      end_time: q.to,
      include_orderbook: q.includeOrderbook ? 'true' : undefined,
    };
    const answer = await this.get(path, query, signal, lazy);
    return async () => {
      let body = answer.body;
      if (answer.later) {
        try {
          body = await answer.later();
        } catch (err) {
          if (!networkCode(err) || signal?.aborted) throw err;
          body = (await this.get(path, query, signal)).body;
        }
      }
      return this.snapshotsPageOf(id, q, path, body);
    };
  }

  private snapshotsPageOf(id: string, q: SnapshotsQuery, path: string, body: unknown): SnapshotsPage {
    const b = this.object(body, path);
    const now = this.now();
    const raw = Array.isArray(b['snapshots']) ? (b['snapshots'] as unknown[]) : [];
    return this.parse(() => {
      const snapshots = new Array<Snapshot>(raw.length);
      for (let i = 0; i < raw.length; i++) snapshots[i] = normalizeSnapshot(raw[i], id);
      const market = b['market'] !== undefined && b['market'] !== null ? normalizeMarket(b['market'], now) : null;
      return this.envelope(b, { market, snapshots }, snapshots.length, q.offset ?? 0);
    }, path);
  }

  /**
   * Every snapshot of a market (within from/to), oldest first, in constant memory: at most the
   * page being yielded and the next one, which is fetched while the caller consumes this one.
   * Pages advance by the rows actually returned, so a server that clamps `limit` loses nothing.
   */
  async *snapshots(id: string, q: SnapshotsStreamQuery): AsyncGenerator<Snapshot> {
    for await (const page of this.snapshotPages(id, q)) yield* page;
  }

  /**
   * `snapshots()` a page at a time (never an empty page): for exports, which render a page as one
   * piece instead of paying an await per row. The next page is fetched while this one is used.
   */
  async *snapshotPages(id: string, q: SnapshotsStreamQuery): AsyncGenerator<Snapshot[]> {
    await this.ensureLimits();
    let ask = q.pageSize ?? DEFAULT_SNAPSHOT_PAGE;
    let offset = 0;
    let page = 0;
    let controller = new AbortController();
    const fetchPage = (at: number, limit: number, signal: AbortSignal): Promise<() => Promise<SnapshotsPage>> => {
      const p = this.fetchSnapshotsPageLater(id, { limit, offset: at, from: q.from, to: q.to, includeOrderbook: q.includeOrderbook }, signal);
      // Fetched ahead: its failure surfaces when awaited, never as an unhandled rejection.
      p.catch(() => undefined);
      return p;
    };
    let next: Promise<() => Promise<SnapshotsPage>> | undefined = fetchPage(offset, ask, controller.signal);
    let finished = false;
    try {
      while (next) {
        const current = await (await next)();
        page++;
        const rows = current.snapshots.length;
        q.onPage?.({ page, rows, total: current.total });
        if (current.limit > 0 && current.limit < ask) ask = current.limit;
        const nextOffset = offset + rows;
        if (rows > 0 && nextOffset < current.total) {
          controller = new AbortController();
          next = fetchPage(nextOffset, ask, controller.signal);
        } else {
          next = undefined;
        }
        if (rows > 0) yield current.snapshots;
        offset = nextOffset;
      }
      finished = true;
    } finally {
      // The caller stopped early (`| head`): drop the page fetched ahead.
      if (!finished && next) controller.abort();
    }
  }

  /** The snapshot nearest to `ts` in a market (404 when none within 2 s). */
  async at(marketId: string, ts: number): Promise<AtResult> {
    const path = '/v1/snapshots/at-timestamp';
    const { body } = await this.get(path, { market: marketId, ts });
    const b = this.object(body, path);
    return this.parse(() => {
      const snapshot = normalizeSnapshot(b['snapshot'], marketId);
      const asked = toEpochMs(b['ts']) ?? ts;
      return {
        market_id: typeof b['market_id'] === 'string' ? b['market_id'] : marketId,
        ts: asked,
        delta_ms: toNumber(b['delta_ms']) ?? snapshot.time - asked,
        snapshot,
      };
    }, path);
  }

  /** Counters since the client was made. */
  stats(): ClientStats {
    return { ...this.counters, pacedMs: this.pacer?.stats.pacedMs ?? 0 };
  }

  /** Close the keep-alive connections (only of a dispatcher the client created). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Learn the exact limits once before a multi-request job; a service without /limits falls back to headers. */
  private ensureLimits(): Promise<void> {
    if (!this.pacer || this.pacer.learned) return Promise.resolve();
    this.limitsOnce ??= this.limits().then(
      () => undefined,
      (err: unknown) => {
        // Auth problems are the user's to see now; anything else only costs us exact pacing.
        if (err instanceof AuthError) throw err;
        if (err instanceof MsnapError) return undefined;
        throw err;
      },
    );
    return this.limitsOnce;
  }

  private envelope<T extends object>(b: Record<string, unknown>, items: T, count: number, askedOffset: number): T & { total: number; limit: number; offset: number; warning?: string } {
    const warning = typeof b['warning'] === 'string' && b['warning'] !== '' ? b['warning'] : undefined;
    const out = {
      ...items,
      total: toNumber(b['total']) ?? askedOffset + count,
      limit: toNumber(b['limit']) ?? count,
      offset: toNumber(b['offset']) ?? askedOffset,
    };
    return warning === undefined ? out : { ...out, warning };
  }

  private object(body: unknown, path: string): Record<string, unknown> {
    return this.parse(() => asObject(body, path), path);
  }

  private parse<T>(fn: () => T, path: string): T {
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

  /** One GET with pacing, retries and error mapping; resolves with the parsed 2xx body. */
  private async get(path: string, query: Query, signal?: AbortSignal, lazy = false): Promise<Answer> {
    const key = this.opts.apiKey;
    if (!key) throw new AuthError(NO_KEY_MESSAGE, 'get a key from your account page, then `msnap keys add NAME`');
    const url = this.url(path, query);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `msnap/${VERSION}`,
    };
    if (this.opts.authScheme === 'bearer') headers['authorization'] = `Bearer ${key}`;
    else headers['x-api-key'] = key;

    let retries = 0;
    let limited = 0;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const ticket: Ticket | undefined = this.pacer ? await this.pacer.acquire() : undefined;
      const started = this.now();
      this.counters.requests++;
      let status: number;
      let resHeaders: Record<string, string | string[] | undefined>;
      let text: string;
      let later: Answer['later'];
      try {
        const res = await request(url, {
          method: 'GET',
          headers,
          dispatcher: this.dispatcher,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
          signal,
        });
        status = res.statusCode;
        resHeaders = res.headers;
        const lazyOk = lazy && status >= 200 && status < 300;
        // A page fetched ahead stays in the socket until it is wanted: read now, it would be
        // parsed into objects that outlive young collections while the current page is written.
        later = lazyOk ? async () => this.jsonBody(await res.body.text(), res.headers, res.statusCode, url) : undefined;
        text = lazyOk ? '' : await res.body.text();
      } catch (err) {
        if (ticket) this.pacer?.done(ticket, undefined);
        const ms = this.now() - started;
        this.opts.onRequest?.({ url, status: 0, ms, attempt });
        const code = networkCode(err);
        if (!code || signal?.aborted) throw err;
        const budget = !this.everAnswered && NO_LISTENER_CODES.has(code) ? Math.min(FIRST_CONTACT_RETRIES, this.maxRetries) : this.maxRetries;
        if (retries >= budget) throw unreachableError(this.baseUrl, code);
        await this.sleep(backoffMs(retries, this.random));
        retries++;
        this.counters.retries++;
        continue;
      }
      this.everAnswered = true;
      const rate = rateHeaders(resHeaders);
      if (ticket) this.pacer?.done(ticket, rate);
      const ms = this.now() - started;
      this.opts.onRequest?.({ url, status, ms, attempt });
      if (later) return { body: undefined, ms, later };
      if (status >= 200 && status < 300) return { body: this.jsonBody(text, resHeaders, status, url), ms };
      const body = this.parseBody(text, resHeaders);
      if (status === 429) {
        this.counters.responses429++;
        limited++;
        if (limited > this.maxRateLimitRetries) throw errorForStatus(status, body, url, key);
        const bodyRetry = body && typeof body === 'object' ? toNumber((body as Record<string, unknown>)['retry_after']) : undefined;
        const seconds = parseRetryAfter(header(resHeaders, 'retry-after'), this.now()) ?? bodyRetry ?? 1;
        const until = this.now() + rateLimitDelayMs(seconds, this.random);
        this.counters.retries++;
        // With a pacer the pause holds every request of the key; without one, just this one.
        if (this.pacer) this.pacer.pauseUntil(until);
        else await this.sleep(until - this.now());
        continue;
      }
      if (status >= 500 && retries < this.maxRetries) {
        const wait = Math.max(backoffMs(retries, this.random), (parseRetryAfter(header(resHeaders, 'retry-after'), this.now()) ?? 0) * 1000);
        await this.sleep(Math.min(wait, 60_000));
        retries++;
        this.counters.retries++;
        continue;
      }
      throw errorForStatus(status, body, url, key);
    }
  }

  private jsonBody(text: string, headers: Record<string, string | string[] | undefined>, status: number, url: string): unknown {
    const body = this.parseBody(text, headers);
    if (body === undefined) throw new HttpError(`unexpected answer from ${url}: not JSON`, status, url, redactKey(text.slice(0, 200), this.opts.apiKey));
    return body;
  }

  private parseBody(text: string, headers: Record<string, string | string[] | undefined>): unknown {
    if (text === '') return undefined;
    const type = header(headers, 'content-type') ?? '';
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Not JSON (a proxy's HTML page, a plain-text error): keep short text for the message.
      return type.includes('json') ? undefined : text.length <= 300 ? text : undefined;
    }
  }
}
