// The client interface over a local store (`--db FILE`, the library's openStore): markets, snapshots
// and at read the SQLite file (or a PostgreSQL store) directly, with no server, key or limits.
// Records are what `msnap serve` over the same store would send, so every renderer prints the
// same bytes as through the service.
import { existsSync } from 'node:fs';
import { parseMarketId, type Market, type Snapshot } from '../domain/market.js';
import { NotFoundError, UsageError } from '../errors.js';
import type { Store, SnapshotQuery } from '../store/store.js';
import { isPostgresUrl } from '../store/db-path.js';
import { openSqliteReader, openStore } from '../store/open-store.js';
import { VERSION } from '../version.js';
import { listMarkets } from '../client/markets/market-listing.js';
import { normalizeSnapshot } from '../client/normalize.js';
import { pageOf, type SnapshotPage } from '../client/pages/row-page.js';
import { DEFAULT_SNAPSHOT_PAGE, pageSnapshots } from '../client/pages/snapshot-pager.js';
import type { RowLayout } from '../domain/row-layout.js';
import type { ApiCapabilities, AtResult, Health, Limits, MarketsListingQuery, MarketsPage, MsnapApi, SnapshotsStreamQuery, TextPage } from '../client/types.js';

/** The service's page maxima, so pages (and a failure midway) fall where they would through serve. */
const MARKETS_MAX = 1000;
const SNAPSHOTS_MAX = 10_000;
/** As at-timestamp: the farthest a snapshot may lie from the asked time. */
const AT_TOLERANCE_MS = 2000;

/** What LocalApi reads: the Store's market reads and pages of snapshot records; SQLite also writes export text itself. */
export type ReadStore = Pick<Store, 'listMarkets' | 'getMarket' | 'nearestSnapshot' | 'close'> & {
  snapshotPage(marketId: string, q: SnapshotQuery): { snapshots: Snapshot[]; total: number } | Promise<{ snapshots: Snapshot[]; total: number }>;
  snapshotPageText?(marketId: string, q: SnapshotQuery, layout: RowLayout): { text: string | Uint8Array; count: number; total: number };
};

/**
 * Use for `--db FILE` and the library's openStore: opens the store read-only (an SQLite file, or a
 * postgres:// URL with every transaction read-only); a missing file or one that is no msnap store is a UsageError.
 */
export async function openLocalApi(path: string, now: () => number): Promise<LocalApi> {
  if (isPostgresUrl(path)) return new LocalApi(await openStore(path, { readonly: true }), now);
  if (!existsSync(path)) throw new UsageError(`no such database: ${path} (make one with msnap pull or msnap serve seed)`);
  return new LocalApi(await openSqliteReader(path), now);
}

/** Use where a command reads a local store: the MsnapApi of `msnap serve` over that file, without HTTP. */
export class LocalApi implements MsnapApi {
  /**
   * The pages snapshotPages gives, as text in `layout` straight from the stored values: what makes
   * a local export several times faster than the same export through serve. Same pages, so the
   * same progress and the same point of failure. Only where the store writes text itself (SQLite).
   */
  private readonly caps: ApiCapabilities;

  constructor(
    private readonly store: ReadStore,
    private readonly now: () => number,
  ) {
    const textOf = store.snapshotPageText?.bind(store);
    this.caps = textOf ? { snapshotText: (id, q, layout) => this.textPages(textOf, id, q, layout) } : {};
  }

  /** No service behind it; SQLite stores add the text fast path. */
  capabilities(): ApiCapabilities {
    return this.caps;
  }

  health(): Promise<Health> {
    return Promise.resolve({ status: 'ok', time: this.now(), version: VERSION, rttMs: 0 });
  }

  /** A local store has no plan: no limits and no data window. */
  limits(): Promise<Limits> {
    return Promise.resolve({
      plan: 'local',
      trial: null,
      rate_limit: { requests_per_minute: Infinity, burst_per_second: Infinity },
      data_window: null,
      api_keys: null,
      usage: null,
    });
  }

  markets(q: MarketsListingQuery): AsyncGenerator<Market> {
    return listMarkets(q, {
      page: (pq) => this.marketsPage(pq),
      beforeManyRequests: () => Promise.resolve(),
      windowEnd: () => undefined,
    });
  }

  private async marketsPage(q: MarketsListingQuery): Promise<MarketsPage> {
    const limit = Math.min(q.limit ?? 100, MARKETS_MAX);
    const offset = q.offset ?? 0;
    const { markets, total } = await this.store.listMarkets({
      ...(q.coin !== undefined ? { coin: q.coin } : {}),
      ...(q.marketType !== undefined ? { marketType: q.marketType } : {}),
      ...(q.status !== undefined ? { status: q.status } : {}),
      ...(q.startTime !== undefined ? { startFrom: q.startTime } : {}),
      ...(q.endTime !== undefined ? { startBefore: q.endTime } : {}),
      limit,
      offset,
      window: null,
      now: this.now(),
    });
    return { markets, total, limit, offset };
  }

  async market(id: string): Promise<Market> {
    return this.lookup(id);
  }

  async *snapshotPages(id: string, q: SnapshotsStreamQuery): AsyncGenerator<SnapshotPage> {
    const market = await this.lookup(id);
    const withOrderbook = q.includeOrderbook === true;
    yield* pageSnapshots(async (pq) => {
      const limit = Math.min(pq.limit ?? 1000, SNAPSHOTS_MAX);
      const page = await this.store.snapshotPage(market.market_id, {
        limit,
        offset: pq.offset ?? 0,
        ...(pq.from !== undefined ? { from: pq.from } : {}),
        ...(pq.to !== undefined ? { before: pq.to } : {}),
        includeOrderbook: withOrderbook,
      });
      // Orderbooks take the client's own reading, as they would after HTTP.
      const snapshots = withOrderbook ? page.snapshots.map((s) => normalizeSnapshot(s, market.market_id)) : page.snapshots;
      return { market, page: pageOf(snapshots), total: page.total, limit, offset: pq.offset ?? 0 };
    }, q);
  }

  private async *textPages(
    textOf: NonNullable<ReadStore['snapshotPageText']>,
    id: string,
    q: SnapshotsStreamQuery,
    layout: RowLayout,
  ): AsyncGenerator<TextPage> {
    const market = await this.lookup(id);
    const withOrderbook = q.includeOrderbook === true;
    const rowLayout = withOrderbook && layout.orderbook ? readDepthAsClient(layout) : layout;
    const limit = Math.min(q.pageSize ?? DEFAULT_SNAPSHOT_PAGE, SNAPSHOTS_MAX);
    let offset = 0;
    for (let page = 1; ; page++) {
      const r = textOf(
        market.market_id,
        {
          limit,
          offset,
          ...(q.from !== undefined ? { from: q.from } : {}),
          ...(q.to !== undefined ? { before: q.to } : {}),
          includeOrderbook: withOrderbook,
        },
        rowLayout,
      );
      q.onPage?.({ page, rows: r.count, total: r.total });
      if (r.count === 0) return;
      yield { text: r.text, rows: r.count };
      offset += r.count;
      if (offset >= r.total) return;
    }
  }

  async at(marketId: string, ts: number, opts: { includeOrderbook?: boolean } = {}): Promise<AtResult> {
    const market = await this.lookup(marketId);
    const stored = await this.store.nearestSnapshot(market.market_id, ts, opts.includeOrderbook === true);
    if (!stored || Math.abs(stored.time - ts) > AT_TOLERANCE_MS) {
      throw new NotFoundError(`No snapshot of market ${market.market_id} lies within 2,000 ms of ts ${ts}.`);
    }
    // Depth takes the client's own reading, as it would after HTTP.
    const snapshot = opts.includeOrderbook === true ? normalizeSnapshot(stored, market.market_id) : stored;
    return { market_id: market.market_id, ts, delta_ms: snapshot.time - ts, snapshot };
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private async lookup(id: string): Promise<Market> {
    const market = parseMarketId(id) ? await this.store.getMarket(id, this.now()) : undefined;
    if (!market) throw new NotFoundError(`No market with id ${JSON.stringify(id)}.`);
    return market;
  }
}

/**
 * The layout with its orderbook pieces fed the client's reading of the stored depth (what
 * normalizeSnapshot makes of it after HTTP), as JSON text; null for a side it does not keep.
 */
function readDepthAsClient(layout: RowLayout): RowLayout {
  const write = layout.orderbook!;
  return {
    ...layout,
    orderbook: (up, down) => {
      // As rowsToSnapshots: depth only where both sides are stored.
      if (up == null || down == null) return write(null, null);
      const s = normalizeSnapshot(
        { id: 0, market_id: '', time: 0, price: 0, price_up: 0, price_down: 0, orderbook_up: JSON.parse(up), orderbook_down: JSON.parse(down) },
        '',
      );
      return write(s.orderbook_up ? JSON.stringify(s.orderbook_up) : null, s.orderbook_down ? JSON.stringify(s.orderbook_down) : null);
    },
  };
}
