// The one HTTP client core every command uses: the service's endpoints over one transport
// (auth, pacing, retries, error mapping), with the market listing and the snapshot pager on top.
// Commands never call `request` themselves.
import type { Market, Snapshot } from '../domain/market.js';
import { toNumber } from '../domain/numeric-field.js';
import { AuthError, MsnapError } from '../errors.js';
import { listMarkets } from './market-listing.js';
import { redactKey } from './mask-key.js';
import { normalizeLimits, normalizeMarket, normalizeSnapshot, toEpochMs } from './normalize.js';
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
export { DEFAULT_MARKETS_PAGE } from './market-listing.js';
export { DEFAULT_SNAPSHOT_PAGE } from './snapshot-pager.js';
export { FIRST_CONTACT_RETRIES, type ClientStats } from './transport.js';

/** How to reach the service, for tests every source of time and chance, and where warnings go. */
export interface ClientOptions extends TransportOptions {
  /** The service's `warning` (clamping), once per distinct text. */
  onWarning?: (message: string) => void;
}

/** Use one per process and key: every command's requests go through it. */
export class MsnapClient implements MsnapApi {
  /** The contract's v1 paths are the only ones this client speaks. */
  readonly dialect = 'v1';
  private readonly transport: Transport;
  private readonly warned = new Set<string>();
  private limitsOnce: Promise<void> | undefined;
  private knownLimits: Limits | undefined;

  constructor(private readonly opts: ClientOptions) {
    this.transport = new Transport(opts);
  }

  /** Status, time and version of the service, with the round-trip time of the answering attempt. */
  async health(): Promise<Health> {
    const { body, ms } = await this.transport.get('/api/health', {});
    const b = this.transport.object(body, '/api/health');
    return {
      status: typeof b['status'] === 'string' ? b['status'] : 'unknown',
      time: toEpochMs(b['time']) ?? 0,
      version: typeof b['version'] === 'string' ? b['version'] : 'unknown',
      rttMs: ms,
    };
  }

  /** The key's plan, limits, data window, keys and usage; also teaches the pacer the exact limits. */
  async limits(): Promise<Limits> {
    const { body } = await this.transport.get('/api/v1/limits', {});
    const limits = this.transport.parse(() => normalizeLimits(body), '/api/v1/limits');
    this.knownLimits = limits;
    this.transport.pacer?.learn({ perMinute: limits.rate_limit.requests_per_minute, burst: limits.rate_limit.burst_per_second });
    return limits;
  }

  /** One page of the markets list, as the server gave it (its `limit` may be clamped). */
  async marketsPage(q: MarketsQuery): Promise<MarketsPage> {
    const page = await this.fetchMarketsPage(q);
    if (page.warning !== undefined) this.warn(page.warning);
    return page;
  }

  private async fetchMarketsPage(q: MarketsQuery): Promise<MarketsPage> {
    const path = '/api/v1/markets';
    const { body } = await this.transport.get(path, {
      coin: q.coin,
      market_type: q.marketType,
      status: q.status,
      limit: q.limit,
      offset: q.offset,
      start_time: q.startTime,
      end_time: q.endTime,
    });
    const b = this.transport.object(body, path);
    const now = this.transport.now();
    const raw = Array.isArray(b['markets']) ? (b['markets'] as unknown[]) : [];
    const markets = this.transport.parse(() => raw.map((m) => normalizeMarket(m, now)), path);
    return envelope(b, { markets }, markets.length, q.offset ?? 0);
  }

  /**
   * Markets newest first: one page (up to `limit`, default 100), up to `max`, or every one (`all`).
   * Clamping warnings caused by our own page sizes are dropped; when the listing comes up short
   * at the data window the last page's warning is reported, or, for `all`, `onWindowEnd`
   * (when given) hears of it instead: the caller asked for everything there is.
   */
  async *markets(q: MarketsListingQuery): AsyncGenerator<Market> {
    yield* listMarkets(q, {
      page: (pq) => this.fetchMarketsPage(pq),
      beforeManyRequests: () => this.ensureLimits(),
      windowEnd: (message, isWarning) => this.windowEnd(q, message, isWarning),
    });
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
    const path = `/api/v1/markets/${encodeURIComponent(id)}`;
    const { body } = await this.transport.get(path, {});
    const b = this.transport.object(body, path);
    const now = this.transport.now();
    return this.transport.parse(() => normalizeMarket(b['market'] ?? b, now), path);
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
    const path = `/api/v1/markets/${encodeURIComponent(id)}/snapshots`;
    const { body } = await this.transport.get(
      path,
      {
        limit: q.limit,
        offset: q.offset,
        start_time: q.from,
        end_time: q.to,
        include_orderbook: q.includeOrderbook ? 'true' : undefined,
      },
      signal,
    );
    const b = this.transport.object(body, path);
    const now = this.transport.now();
    const raw = Array.isArray(b['snapshots']) ? (b['snapshots'] as unknown[]) : [];
    return this.transport.parse(() => {
      const snapshots = new Array<Snapshot>(raw.length);
      for (let i = 0; i < raw.length; i++) snapshots[i] = normalizeSnapshot(raw[i], id);
      const market = b['market'] !== undefined && b['market'] !== null ? normalizeMarket(b['market'], now) : null;
      return envelope(b, { market, snapshots }, snapshots.length, q.offset ?? 0);
    }, path);
  }

  /** Every snapshot of a market (within from/to), oldest first, in constant memory. */
  async *snapshots(id: string, q: SnapshotsStreamQuery): AsyncGenerator<Snapshot> {
    for await (const page of this.snapshotPages(id, q)) yield* page;
  }

  /**
   * `snapshots()` a page at a time (never an empty page): for exports, which render a page as one
   * piece instead of paying an await per row. The next page is fetched while this one is used.
   */
  async *snapshotPages(id: string, q: SnapshotsStreamQuery): AsyncGenerator<Snapshot[]> {
    await this.ensureLimits();
    yield* pageSnapshots((pq, signal) => this.fetchSnapshotsPage(id, pq, signal), q);
  }

  /** The snapshot nearest to `ts` in a market (404 when none within 2 s). */
  async at(marketId: string, ts: number): Promise<AtResult> {
    const path = '/v1/snapshots/at-timestamp';
    const { body } = await this.transport.get(path, { market: marketId, ts });
    const b = this.transport.object(body, path);
    return this.transport.parse(() => {
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
    return this.transport.stats();
  }

  /** Close the keep-alive connections (only of a dispatcher the client created). */
  close(): Promise<void> {
    return this.transport.close();
  }

  /** Learn the exact limits once before a multi-request job; a service without /limits falls back to headers. */
  private ensureLimits(): Promise<void> {
    const pacer = this.transport.pacer;
    if (!pacer || pacer.learned) return Promise.resolve();
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
}

// The paging fields of a list body, with what the request implies when the service omits them.
function envelope<T extends object>(
  b: Record<string, unknown>,
  items: T,
  count: number,
  askedOffset: number,
): T & { total: number; limit: number; offset: number; warning?: string } {
  const warning = typeof b['warning'] === 'string' && b['warning'] !== '' ? b['warning'] : undefined;
  const out = {
    ...items,
    total: toNumber(b['total']) ?? askedOffset + count,
    limit: toNumber(b['limit']) ?? count,
    offset: toNumber(b['offset']) ?? askedOffset,
  };
  return warning === undefined ? out : { ...out, warning };
}
