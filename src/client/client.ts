// The one HTTP client core every command uses: the service's endpoints over one transport
// (auth, pacing, retries, error mapping), in the API version (dialect) chosen for the run, with the
// market listing and the snapshot pager on top. Commands never call `request` themselves.
import type { Market, Snapshot } from '../domain/market.js';
import { AuthError, MsnapError, UnreachableError } from '../errors.js';
import type { ApiChoice, ApiName, Dialect, DialectLimits } from './dialects/dialect.js';
import { v1 } from './dialects/v1.js';
import { v4 } from './dialects/v4.js';
import { listMarkets } from './market-listing.js';
import { redactKey } from './mask-key.js';
import { mergeNewestFirst, slice } from './merged-listing.js';
import { withSnapshotCounts } from './snapshot-counts.js';
import type { SnapshotPage } from './row-page.js';
import { pageSnapshots } from './snapshot-pager.js';
import { Transport, type ClientStats, type TransportOptions } from './transport.js';
import type {
  AtResult,
  Health,
  Limits,
  MarketsListingQuery,
  MarketsPage,
  MarketsQuery,
  MsnapApi,
  SnapshotsPage,
  SnapshotsQuery,
  SnapshotsStreamQuery,
} from './types.js';

export type { Dispatcher } from 'undici';
export type * from './types.js';
export type { ApiChoice, ApiName } from './dialects/dialect.js';
export { API_CHOICES } from './dialects/dialect.js';
export { DEFAULT_MARKETS_PAGE } from './market-listing.js';
export { DEFAULT_SNAPSHOT_PAGE } from './snapshot-pager.js';
export { FIRST_CONTACT_RETRIES, type ClientStats } from './transport.js';

// Snapshot pages fetched beyond the one being used: with two, the service always has the next
// request while the reader writes one page and the next waits, so neither side waits on the other.
const PAGES_AHEAD = 2;

/** How to reach the service, for tests every source of time and chance, and where warnings go. */
export interface ClientOptions extends TransportOptions {
  /** The service's `warning` (clamping), once per distinct text. */
  onWarning?: (message: string) => void;
  /** API version: v1 (the default here), v4, or auto (probe /v4 on first use; the CLI's default). */
  api?: ApiChoice;
}

/** Use one per process and key: every command's requests go through it. */
export class MsnapClient implements MsnapApi {
  private readonly transport: Transport;
  private readonly warned = new Set<string>();
  private dialectOnce: Promise<Dialect> | undefined;
  private limitsOnce: Promise<void> | undefined;
  private knownLimits: Limits | undefined;
  // auto's probe answer, kept for the first limits() so `msnap limits` costs no second request.
  private probeAnswer: DialectLimits | undefined;

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

  // auto: v4 when its plan-limits answers 200, else v1 (whatever the failure, short of no service at all).
  private async choose(): Promise<Dialect> {
    const api = this.opts.api ?? 'v1';
    if (api !== 'auto') return api === 'v4' ? v4 : v1;
    try {
      this.probeAnswer = await v4.limits(this.transport);
      this.learn(this.probeAnswer);
      return v4;
    } catch (err) {
      if (err instanceof UnreachableError || !(err instanceof MsnapError)) throw err;
      return v1;
    }
  }

  private learn(answer: DialectLimits): void {
    this.knownLimits = answer.limits;
    this.transport.pacer?.learn(answer.pace);
  }

  /** Status, time and version of the service, with the round-trip time of the answering attempt. */
  async health(): Promise<Health> {
    return (await this.dialect()).health(this.transport);
  }

  /** The key's plan, limits, data window, keys and usage; also teaches the pacer the exact limits. */
  async limits(): Promise<Limits> {
    const d = await this.dialect();
    let answer = this.probeAnswer;
    this.probeAnswer = undefined;
    if (!answer) {
      answer = await d.limits(this.transport);
      this.learn(answer);
    }
    return d.completeLimits ? d.completeLimits(this.transport, answer.limits) : answer.limits;
  }

  /** One page of the markets list, as the server gave it (its `limit` may be clamped). */
  async marketsPage(q: MarketsQuery): Promise<MarketsPage> {
    const page = await (await this.dialect()).marketsPage(this.transport, q);
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
    const d = await this.dialect();
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
    });
  }

  private async countSnapshots(d: Dialect, id: string): Promise<number> {
    return (await d.snapshotsPage(this.transport, id, { limit: 1, offset: 0 })).total;
  }

  private windowEnd(q: MarketsListingQuery, message: string, isWarning: boolean): void {
    if (!q.all || !q.onWindowEnd) {
      if (!isWarning) return;
      // The last page's own clamp ("clamped to 104") means nothing to someone who asked for 5,000.
      const cap = q.marketType !== undefined ? this.knownLimits?.data_window?.[q.marketType] : undefined;
      if (q.max !== undefined && cap !== undefined && this.knownLimits) {
        const listed = Math.max(0, cap - (q.offset ?? 0));
        this.warn(
          `limit ${q.max.toLocaleString('en-US')} clamped to ${listed.toLocaleString('en-US')}: your ${this.knownLimits.plan} plan only includes the most recent ${cap.toLocaleString('en-US')} ${q.marketType} markets`,
        );
      } else {
        this.warn(message);
      }
      return;
    }
    const cap = q.marketType !== undefined ? this.knownLimits?.data_window?.[q.marketType] : undefined;
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
    return (await this.dialect()).market(this.transport, id);
  }

  /** One page of a market's snapshots, as the server gave it (its `limit` may be clamped). */
  async snapshotsPage(id: string, q: SnapshotsQuery, signal?: AbortSignal): Promise<SnapshotsPage> {
    const page = await (await this.dialect()).snapshotsPage(this.transport, id, q, signal);
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
    const d = await this.dialect();
    await this.ensureLimits();
    yield* pageSnapshots((pq, signal) => d.snapshotsPage(this.transport, id, pq, signal), q, PAGES_AHEAD);
  }

  /** The snapshot nearest to `ts` in a market (404 when none within 2 s). */
  async at(marketId: string, ts: number): Promise<AtResult> {
    return (await this.dialect()).at(this.transport, marketId, ts);
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
          // Auth problems are the user's to see now; anything else only costs us exact pacing.
          if (err instanceof AuthError) throw err;
          if (err instanceof MsnapError) return undefined;
          throw err;
        },
      );
    return this.limitsOnce;
  }
}
