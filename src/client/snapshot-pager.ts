// A market's snapshots a page at a time, oldest first, in constant memory: the page being used
// and at most `ahead` more, fetched or being fetched. The next page is asked for as soon as the
// one before it has arrived (its rows say where the next begins), not when the reader gets to it,
// so a service that answers more slowly than the reader uses pages is never left idle.
import type { Snapshot } from '../domain/market.js';
import type { SnapshotsPage, SnapshotsQuery, SnapshotsStreamQuery } from './types.js';

/** Default page size of snapshot exports: the local maximum; a hosted service clamps lower. */
export const DEFAULT_SNAPSHOT_PAGE = 10_000;

/** Fetches one page of the market being paged; `signal` aborts a page fetched ahead. */
export type SnapshotPageFetch = (q: SnapshotsQuery, signal: AbortSignal) => Promise<SnapshotsPage>;

/**
 * Use to stream a market's snapshots (never an empty page). Pages advance by the rows actually
 * returned, so a server that clamps `limit` loses nothing. Every fetch goes through `read` (and
 * so through the pacer) like any other request. A page that fails surfaces only after every page
 * before it, and nothing is asked for past it; a caller that stops early (`| head`) aborts the
 * pages fetched ahead. `ahead`: how many pages may be fetched beyond the one in use (at least 1).
 */
export async function* pageSnapshots(read: SnapshotPageFetch, q: SnapshotsStreamQuery, ahead = 1): AsyncGenerator<Snapshot[]> {
  let ask = q.pageSize ?? DEFAULT_SNAPSHOT_PAGE;
  const controller = new AbortController();
  // Pages asked for and not yet handed to the reader, in order.
  const queue: Promise<SnapshotsPage>[] = [];
  // Where the next page to ask for starts, once known; undefined while unknown or at the end.
  let nextAt: number | undefined = 0;

  const askMore = (): void => {
    while (nextAt !== undefined && queue.length < Math.max(1, ahead) && !controller.signal.aborted) {
      const at = nextAt;
      nextAt = undefined;
      const page = read({ limit: ask, offset: at, from: q.from, to: q.to, includeOrderbook: q.includeOrderbook }, controller.signal);
      page.then(
        (current) => {
          if (current.limit > 0 && current.limit < ask) ask = current.limit;
          const rows = current.snapshots.length;
          if (rows > 0 && at + rows < current.total) {
            nextAt = at + rows;
            askMore();
          }
        },
        // Fetched ahead: its failure surfaces when the reader gets to it (never as an unhandled
        // rejection), and nothing after it is asked for.
        () => undefined,
      );
      queue.push(page);
    }
  };

  let finished = false;
  try {
    askMore();
    let pages = 0;
    for (let next = queue.shift(); next; next = queue.shift()) {
      const current = await next;
      // A place freed in the queue: ask for the next page if its start is known.
      askMore();
      pages++;
      const rows = current.snapshots.length;
      q.onPage?.({ page: pages, rows, total: current.total });
      if (rows > 0) yield current.snapshots;
    }
    finished = true;
  } finally {
    if (!finished) controller.abort();
  }
}
