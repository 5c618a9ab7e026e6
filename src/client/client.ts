// The one HTTP client core every command uses: the service's endpoints over one transport
// (auth, pacing, retries, error mapping), in the API version (dialect) chosen for the run, with the
// market listing and the snapshot pager on top. Commands never call `request` themselves.
import type { Market, Snapshot } from '../domain/market.js';
import { AuthError, HttpError, MsnapError, NotFoundError } from '../errors.js';
import { chooseAuto, v1Gone } from './dialect-choice.js';
import type { ApiChoice, ApiName, Dialect, DialectLimits } from './dialects/dialect.js';
import { v1 } from './dialects/v1.js';
import { v4 } from './dialects/v4.js';
import { listMarkets } from './markets/market-listing.js';
import { reportWindowEnd } from './markets/window-end.js';
import { redactKey } from './mask-key.js';
import { mergeNewestFirst, slice } from './markets/merged-listing.js';
import { withSnapshotCounts } from './pages/snapshot-counts.js';
import type { SnapshotPage } from './pages/row-page.js';
import { pageSnapshots, SERVICE_PAGES_AHEAD } from './pages/snapshot-pager.js';
import { PaperClient } from './paper/paper-client.js';
import { Transport, type ClientStats, type TransportOptions } from './transport/transport.js';
import type {
  ApiCapabilities,
  AtOptions,
  AtResult,
  Health,
  Limits,
  MarketsListingQuery,
  MarketsPage,
  MarketsQuery,
  MsnapApi,
  ServiceClock,
  SnapshotsPage,
  SnapshotsQuery,
  SnapshotsStreamQuery,
} from './types.js';

export type { Dispatcher } from 'undici';
export type * from './types.js';
export type { ApiChoice, ApiName } from './dialects/dialect.js';
export { API_CHOICES } from './dialects/dialect.js';
export { DEFAULT_MARKETS_PAGE } from './markets/market-listing.js';
export { DEFAULT_SNAPSHOT_PAGE } from './pages/snapshot-pager.js';
export { FIRST_CONTACT_RETRIES, type ClientStats } from './transport/transport.js';

/** How to reach the service, for tests every source of time and chance, and where warnings go. */
export interface ClientOptions extends TransportOptions {
  /** The service's `warning` (clamping), once per distinct text. */
  onWarning?: (message: string) => void;
  /** API version: v1 (the default here), v4, or auto (probe /v4/health on first use; the CLI's default). */
  api?: ApiChoice;
  /** Something the user should know about the run (v1 retired, so v4 was taken), once. */
  onNote?: (message: string) => void;
}

/** Use one per process and key: every command's requests go through it. */
export class MsnapClient implements MsnapApi {
  private readonly transport: Transport;
  private readonly warned = new Set<string>();
  private dialectOnce: Promise<Dialect> | undefined;
  private limitsOnce: Promise<void> | undefined;
  private paper: PaperClient | undefined;
  private knownLimits: Limits | undefined;
  // auto's probe answers, kept for the first limits() and health() so they cost no second request.
  private probeAnswer: DialectLimits | undefined;
  private probeHealth: Health | undefined;

  constructor(private readonly opts: ClientOptions) {
    this.transport = new Transport(opts);
  }

  /** The API version this client speaks; with `auto`, the first call probes for v4. */
  async api(): Promise<ApiName> {
    return (await this.dialect()).name;
  }

  private dialect(): Promise<Dialect> {
    return (this.dialectOnce ??= this.choose());
  }

  private async choose(): Promise<Dialect> {
    const api = this.opts.api ?? 'v1';
    if (api !== 'auto') return api === 'v4' ? v4 : v1;
    const choice = await chooseAuto(this.transport);
    this.probeHealth = choice.health;
    if (choice.limits) {
      this.probeAnswer = choice.limits;
      this.learn(choice.limits);
    }
    return choice.dialect;
  }

  // One call in the run's dialect; a v1 the service has retired (410) hands it, and the run, to v4.
  private async onDialect<T>(call: (d: Dialect) => Promise<T>): Promise<T> {
    const d = await this.dialect();
    try {
      return await call(d);
    } catch (err) {
      if (!v1Gone(d, err)) throw err;
      return call(this.retireV1(err as HttpError));
    }
  }

  // As onDialect for a stream: restarted in v4 when v1's 410 came before anything was yielded.
  private async *streamOnDialect<T>(make: (d: Dialect) => AsyncGenerator<T>): AsyncGenerator<T> {
    const d = await this.dialect();
    let yielded = false;
    try {
      for await (const item of make(d)) {
        yielded = true;
        yield item;
      }
    } catch (err) {
      if (yielded || !v1Gone(d, err)) throw err;
      yield* make(this.retireV1(err as HttpError));
    }
  }

  private retireV1(err: HttpError): Dialect {
    this.dialectOnce = Promise.resolve(v4);
    this.limitsOnce = undefined;
    this.opts.onNote?.(`${err.url.split('?')[0]} answered 410 Gone: the service has retired API v1, so this run speaks v4 (--api v4 skips the v1 attempt)`);
    return v4;
  }

  private learn(answer: DialectLimits): void {
    this.knownLimits = answer.limits;
    this.transport.pacer?.learn(answer.pace);
  }

  /** Status, time and version of the service, with the round-trip time of the answering attempt. */
  async health(): Promise<Health> {
    await this.dialect();
    const probed = this.probeHealth;
    this.probeHealth = undefined;
    return probed ?? this.onDialect((d) => d.health(this.transport));
  }

  /** The key's plan, limits, data window, keys and usage; also teaches the pacer the exact limits. */
  async limits(): Promise<Limits> {
    return this.onDialect(async (d) => {
      let answer = this.probeAnswer;
      this.probeAnswer = undefined;
      if (!answer) {
        answer = await d.limits(this.transport);
        this.learn(answer);
      }
      return d.completeLimits ? d.completeLimits(this.transport, answer.limits) : answer.limits;
    });
  }

  /** One page of the markets list, as the server gave it (its `limit` may be clamped). */
  async marketsPage(q: MarketsQuery): Promise<MarketsPage> {
    const page = await this.onDialect((d) => d.marketsPage(this.transport, q));
    if (page.warning !== undefined) this.warn(page.warning);
    return page;
  }

  /**
   * Markets newest first: one page (up to `limit`, default 100), up to `max`, or every one (`all`).
   * Clamping warnings caused by our own page sizes are dropped; when the listing comes up short
   * at the data window the last page's warning is reported, or, for `all`, `onWindowEnd`
   * (when given) hears of it instead: the caller asked for everything there is.
   * A dialect that lists one coin at a time (v4) is asked for each coin and the lists merged.
   */
  async *markets(q: MarketsListingQuery): AsyncGenerator<Market> {
    yield* this.streamOnDialect((d) => this.marketsIn(d, q));
  }

  private async *marketsIn(d: Dialect, q: MarketsListingQuery): AsyncGenerator<Market> {
    const coins = d.listCoins(q.coin);
    let stream: AsyncIterable<Market>;
    if (coins.length === 1) {
      stream = this.listing(d, { ...q, coin: coins[0] }, true);
    } else {
      // As v1 lists every coin: the offset applies to the merged list, and no per-coin window note.
      const offset = q.offset ?? 0;
      const wanted = q.all ? Infinity : (q.max ?? q.limit ?? 100);
      const per = q.all ? { all: true } : { offset: 0, max: offset + wanted };
      const lists = coins.map((coin) => this.listing(d, { ...q, ...per, coin }, false));
      stream = slice(mergeNewestFirst(lists), offset, wanted);
    }
    if (!d.marketsCounted) stream = withSnapshotCounts(stream, (id) => this.countSnapshots(d, id), d.countless);
    yield* stream;
    // Without both coin and type the service never clamps: the window shortens such a list
    // silently, so say what it held back (the limits are known: `all` read them first).
    const window = this.knownLimits?.data_window;
    if (q.all && q.onWindowEnd && (q.coin === undefined || q.marketType === undefined) && window) {
      const cap = q.marketType !== undefined ? window[q.marketType] : undefined;
      q.onWindowEnd({
        message: '',
        plan: this.knownLimits!.plan,
        ...(cap !== undefined && q.marketType !== undefined ? { cap, marketType: q.marketType } : { window }),
        perCoin: q.coin === undefined,
      });
    }
  }

  private listing(d: Dialect, q: MarketsListingQuery, windowNotes: boolean): AsyncGenerator<Market> {
    return listMarkets(q, {
      page: (pq) => d.marketsPage(this.transport, pq),
      beforeManyRequests: () => this.ensureLimits(),
      windowEnd: (message, isWarning) => {
        if (windowNotes) this.windowEnd(q, message, isWarning);
      },
      // A clamp is said in the user's terms, which need the plan's window: a one-page listing has
      // not asked for the limits yet (auto learns the dialect from the keyless health).
      clamped: async () => {
        // Without them (none answered) the service's own warning is said instead.
        if (windowNotes && !this.knownLimits && q.max !== undefined && q.marketType !== undefined) await this.ensureLimits().catch(() => undefined);
      },
    });
  }

  private async countSnapshots(d: Dialect, id: string): Promise<number> {
    return (await d.snapshotsPage(this.transport, id, { limit: 1, offset: 0 })).total;
  }

  private windowEnd(q: MarketsListingQuery, message: string, isWarning: boolean): void {
    reportWindowEnd(q, message, isWarning, { limits: this.knownLimits, apiKey: this.opts.apiKey, warn: (w) => this.warn(w) });
  }

  // The service's `warning` (clamping), once per distinct text.
  private warn(warning: string): void {
    if (this.warned.has(warning)) return;
    this.warned.add(warning);
    this.opts.onWarning?.(redactKey(warning, this.opts.apiKey));
  }

  /** One market by id. */
  async market(id: string): Promise<Market> {
    return this.onDialect((d) => d.market(this.transport, id));
  }

  /** One page of a market's snapshots, as the server gave it (its `limit` may be clamped). */
  async snapshotsPage(id: string, q: SnapshotsQuery, signal?: AbortSignal): Promise<SnapshotsPage> {
    const page = await this.onDialect((d) => d.snapshotsPage(this.transport, id, q, signal));
    if (page.warning !== undefined) this.warn(page.warning);
    return page;
  }

  /** Every snapshot of a market (within from/to), oldest first, in constant memory. */
  async *snapshots(id: string, q: SnapshotsStreamQuery): AsyncGenerator<Snapshot> {
    for await (const page of this.snapshotPages(id, q)) yield* page.rows();
  }

  /**
   * `snapshots()` a page at a time (never an empty page): for exports, which render a page as one
   * piece instead of paying an await per row. The next pages are fetched while this one is used.
   * Its clamping warnings are not reported: an export pages by what it is given.
   */
  async *snapshotPages(id: string, q: SnapshotsStreamQuery): AsyncGenerator<SnapshotPage> {
    yield* this.streamOnDialect((d) => this.snapshotPagesIn(d, id, q));
  }

  private async *snapshotPagesIn(d: Dialect, id: string, q: SnapshotsStreamQuery): AsyncGenerator<SnapshotPage> {
    await this.ensureLimits();
    yield* pageSnapshots((pq, signal) => d.snapshotsPage(this.transport, id, pq, signal), q, SERVICE_PAGES_AHEAD);
  }

  /** The snapshot nearest to `ts` in a market (404 when none within 2 s), with its depth when asked. */
  async at(marketId: string, ts: number, opts: AtOptions = {}): Promise<AtResult> {
    return this.onDialect((d) => d.at(this.transport, marketId, ts, opts.includeOrderbook === true));
  }

  /** A service client: its dialect, its pace, paper trading and the live stream (both only msnap serve answers); no local text fast path. */
  capabilities(): ApiCapabilities {
    this.paper ??= new PaperClient(this.transport);
    return {
      service: { dialect: () => this.api(), paceEstimateMs: (requests) => this.paceEstimateMs(requests) },
      paper: this.paper,
      stream: this.transport,
      clock: () => this.clock(),
    };
  }

  /** msnap serve's data clock; undefined where the service has none (the hosted one) or answers otherwise. */
  private async clock(): Promise<ServiceClock | undefined> {
    try {
      const { body } = await this.transport.get('/v1/clock', {});
      const o = this.transport.object(body, '/v1/clock');
      const mode = o['mode'];
      if (typeof o['now'] !== 'number' || (mode !== 'static' && mode !== 'live' && mode !== 'replay')) return undefined;
      return { now: o['now'], mode, until: typeof o['until'] === 'number' ? o['until'] : null };
    } catch (err) {
      // Only what the answer said is taken as "unknown"; a dead service or a refused key is the run's error.
      if (err instanceof HttpError || err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /** The least time `requests` more requests take at the key's limits (undefined before they are known). */
  paceEstimateMs(requests: number): number | undefined {
    return this.transport.pacer?.estimateMs(requests);
  }

  /** Counters since the client was made. */
  stats(): ClientStats {
    return this.transport.stats();
  }

  /** Close the keep-alive connections (only of a dispatcher the client created). */
  close(): Promise<void> {
    return this.transport.close();
  }

  /** Learn the exact limits once before a multi-request job; a service without them falls back to headers. */
  private ensureLimits(): Promise<void> {
    const pacer = this.transport.pacer;
    if (!pacer || pacer.learned) return Promise.resolve();
    this.limitsOnce ??= this.dialect()
      .then((d) => d.limits(this.transport))
      .then(
        (answer) => this.learn(answer),
        (err: unknown) => {
          // Auth problems are the user's to see now, a retired v1 switches the run to v4; anything else only costs exact pacing.
          if (err instanceof AuthError || (err instanceof HttpError && err.status === 410)) throw err;
          if (err instanceof MsnapError) return undefined;
          throw err;
        },
      );
    return this.limitsOnce;
  }
}
