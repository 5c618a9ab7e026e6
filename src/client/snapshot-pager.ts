// A market's snapshots a page at a time, oldest first, in constant memory: at most the page
// being used and the next one, which is fetched while the caller consumes this one.
import type { Snapshot } from '../domain/market.js';
import type { SnapshotsPage, SnapshotsQuery, SnapshotsStreamQuery } from './types.js';

/** Default page size of snapshot exports: the local maximum; a hosted service clamps lower. */
export const DEFAULT_SNAPSHOT_PAGE = 10_000;

/** Fetches one page of the market being paged; `signal` aborts a page fetched ahead. */
export type SnapshotPageFetch = (q: SnapshotsQuery, signal: AbortSignal) => Promise<SnapshotsPage>;

/**
 * Use to stream a market's snapshots (never an empty page). Pages advance by the rows actually
 * returned, so a server that clamps `limit` loses nothing; a caller that stops early (`| head`)
 * aborts the page fetched ahead.
 */
export async function* pageSnapshots(read: SnapshotPageFetch, q: SnapshotsStreamQuery): AsyncGenerator<Snapshot[]> {
  let ask = q.pageSize ?? DEFAULT_SNAPSHOT_PAGE;
  let offset = 0;
  let page = 0;
  let controller = new AbortController();
  const fetchPage = (at: number, limit: number, signal: AbortSignal): Promise<SnapshotsPage> => {
    const p = read({ limit, offset: at, from: q.from, to: q.to, includeOrderbook: q.includeOrderbook }, signal);
    // Fetched ahead: its failure surfaces when awaited, never as an unhandled rejection.
    p.catch(() => undefined);
    return p;
  };
  let next: Promise<SnapshotsPage> | undefined = fetchPage(offset, ask, controller.signal);
  let finished = false;
  try {
    while (next) {
      const current = await next;
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
    if (!finished && next) controller.abort();
  }
}
