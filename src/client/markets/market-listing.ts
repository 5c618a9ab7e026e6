// Paging through the markets list, newest first, while new markets keep appearing at the top
// and shift every offset: each page overlaps the previous by one item, items already covered
// are dropped, and if the overlap shows that items vanished above us (a status filter), the
// listing steps back so none is skipped. It also decides when the plan's data window ended it.
import type { Market } from '../../domain/market.js';
import { WindowError } from '../../errors.js';
import type { MarketsListingQuery, MarketsPage, MarketsQuery } from '../types.js';

/** Page size of `markets({ all })`: the local maximum. */
export const DEFAULT_MARKETS_PAGE = 1000;
/** The most markets a hosted page is known to hold, whatever `limit` asks. */
const HOSTED_MARKETS_PAGE = 100;

/** What a listing needs from the service; tests give it an in-memory list. */
export interface ListingSource {
  /** One page, its warning not reported (the listing decides whether it concerns the user). */
  page(q: MarketsQuery): Promise<MarketsPage>;
  /** Before a request that may be one of several: learn the exact limits to pace them. */
  beforeManyRequests(): Promise<void>;
  /**
   * The listing came up short at the data window: `message` is the service's clamping warning
   * (`isWarning`) or its 403 message on a later page.
   */
  windowEnd(message: string, isWarning: boolean): void;
  /** A page came back clamped: get ready to say so (before its markets are written, so the note comes first). */
  clamped?(): Promise<void>;
}

/**
 * Use for every multi-page market listing: one page (up to `limit`, default 100), up to `max`,
 * or every market (`all`), newest first, each market once.
 */
export async function* listMarkets(q: MarketsListingQuery, source: ListingSource): AsyncGenerator<Market> {
  const wanted = q.all ? Infinity : (q.max ?? q.limit ?? 100);
  const pageLimit = q.limit ?? (q.all || q.max !== undefined ? DEFAULT_MARKETS_PAGE : 100);
  // More than one page is likely (the hosted service holds at most 100 markets a page): learn
  // the exact limits before the first request rather than pacing on a guess.
  if (wanted > Math.min(pageLimit, HOSTED_MARKETS_PAGE)) await source.beforeManyRequests();
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
    if (!first) await source.beforeManyRequests();
    const overlap = first || pos === 0 ? 0 : 1;
    let offset = pos - overlap;
    let step = 1;
    let page: MarketsPage;
    for (;;) {
      const limit = Number.isFinite(wanted) ? Math.min(pageLimit, wanted - yielded + overlap) : pageLimit;
      try {
        page = await source.page({ ...q, offset, limit });
      } catch (err) {
        // A later page past a builder window that shrank under us: the window ends here.
        if (err instanceof WindowError && !first) {
          source.windowEnd(err.message, false);
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
    if (page.warning !== undefined && page.limit < asked) await source.clamped?.();
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
    const more = page.nextOffset !== undefined ? page.nextOffset !== null : newPos < page.total;
    if (page.markets.length === 0 || !more) {
      // Short of what was wanted, on a page cut below what we asked: the data window ended it.
      if (page.warning !== undefined && page.limit < asked) source.windowEnd(page.warning, true);
      return;
    }
    stalls = fresh === 0 && newPos <= pos ? stalls + 1 : 0;
    if (stalls >= 2) return;
    pos = newPos;
  }
}
