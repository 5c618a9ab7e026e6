// A market's snapshots a page at a time, oldest first, in constant memory: the page being used
// and at most `ahead` more, asked for or arrived. A page is asked for as soon as its start is
// known, not when the reader gets to it, so a service that answers more slowly than the reader
// uses pages is never left idle. Once a full page has shown how many rows the service gives per
// page, the page after one still on its way is asked for too, on the assumption that it will be
// full as well: the service then always holds the next request while the client reads a body.
// A page that comes back short (the market ends there, or the service gave fewer rows) cancels
// the pages asked for after it, and paging goes on from where it really ended.
import type { SnapshotPage } from './row-page.js';
import type { SnapshotsPage, SnapshotsQuery, SnapshotsStreamQuery } from '../types.js';

/** Default page size of snapshot exports: the local maximum; a hosted service clamps lower. */
export const DEFAULT_SNAPSHOT_PAGE = 10_000;

/** Fetches one page of the market being paged; `signal` aborts a page fetched ahead. */
export type SnapshotPageFetch = (q: SnapshotsQuery, signal: AbortSignal) => Promise<SnapshotsPage>;

/** A page asked for: where it starts, its answer, and once that came, where the page after it starts. */
interface Asked {
  /** Order of asking. */
  seq: number;
  at: number;
  page: Promise<SnapshotsPage>;
  controller: AbortController;
  /** Set when the page has arrived: the next page's start, undefined when this page is the last. */
  next?: { at: number | undefined };
}

/**
 * Pages a service client fetches beyond the one being used: with two, the service always has the
 * next request while the reader writes one page and the next waits, so neither side waits on the other.
 */
export const SERVICE_PAGES_AHEAD = 2;

/**
 * Use to stream a market's snapshots (never an empty page). Pages advance by the rows actually
 * returned, so a server that clamps `limit` loses nothing. Every fetch goes through `read` (and
 * so through the pacer) like any other request. A page that fails surfaces only after every page
 * before it, and nothing after it is handed on or asked for; a caller that stops early (`| head`)
 * aborts the pages asked for ahead. `ahead`: how many pages may be asked for beyond the one in
 * use (at least 1); with more than one, pages are asked for before the one before them arrived.
 */
export async function* pageSnapshots(read: SnapshotPageFetch, q: SnapshotsStreamQuery, ahead = 1): AsyncGenerator<SnapshotPage> {
  let ask = q.pageSize ?? DEFAULT_SNAPSHOT_PAGE;
  // A page came back with `ask` rows: the service gives that many (the start of a later page can be assumed).
  let full = false;
  let total: number | undefined;
  // The reader is done, or a page failed: nothing more is asked for.
  let stopped = false;
  let seq = 0;
  // Pages asked for and not yet handed to the reader, in order; `last` is the one asked for last.
  let queue: Asked[] = [];
  let last: Asked | undefined;

  // Where the next page starts: known once the last page asked for has arrived, else assumed
  // when pages are full and the market goes on past it; undefined when unknown or at the end.
  const nextStart = (): number | undefined => {
    if (!last) return 0;
    if (last.next) return last.next.at;
    if (ahead > 1 && full && total !== undefined && last.at + ask < total) return last.at + ask;
    return undefined;
  };

  // Cancels every page asked for after `asked` (they rest on an assumption it proved wrong, or it failed).
  const cancelAfter = (asked: Asked): void => {
    const keep = queue.filter((a) => a.seq <= asked.seq);
    for (const a of queue) if (a.seq > asked.seq) a.controller.abort();
    if (keep.length < queue.length || (last && last.seq > asked.seq)) last = asked;
    queue = keep;
  };

  const arrived = (asked: Asked, current: SnapshotsPage): void => {
    if (asked.controller.signal.aborted || stopped) return;
    if (current.limit > 0 && current.limit < ask) ask = current.limit;
    const rows = current.page.count;
    total = current.total;
    if (rows > 0 && rows === ask) full = true;
    const next = rows > 0 && asked.at + rows < current.total ? asked.at + rows : undefined;
    asked.next = { at: next };
    const following = queue.find((a) => a.seq > asked.seq);
    if (following && following.at !== next) cancelAfter(asked);
    askMore();
  };

  const askMore = (): void => {
    for (let at = nextStart(); at !== undefined && queue.length < Math.max(1, ahead) && !stopped; at = nextStart()) {
      const controller = new AbortController();
      const page = read({ limit: ask, offset: at, from: q.from, to: q.to, includeOrderbook: q.includeOrderbook, rowsAs: q.rowsAs }, controller.signal);
      const asked: Asked = { seq: seq++, at, page, controller };
      page.then(
        (current) => arrived(asked, current),
        // Its failure surfaces when the reader gets to it (never as an unhandled rejection);
        // nothing after it is asked for, and what was is cancelled.
        () => {
          if (asked.controller.signal.aborted) return;
          cancelAfter(asked);
          stopped = true;
        },
      );
      queue.push(asked);
      last = asked;
    }
  };

  let finished = false;
  try {
    askMore();
    let pages = 0;
    for (let next = queue.shift(); next; next = queue.shift()) {
      const current = await next.page;
      // A place freed in the queue: ask for the next page if its start is known.
      askMore();
      pages++;
      const rows = current.page.count;
      q.onPage?.({ page: pages, rows, total: current.total });
      if (rows > 0) yield current.page;
    }
    finished = true;
  } finally {
    stopped = true;
    if (!finished) for (const a of queue) a.controller.abort();
  }
}
