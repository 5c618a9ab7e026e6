// Polling a market for new snapshots within the key's pace: where the service offers no stream
// (the hosted one), or the stream went away. Each poll asks only for what is newer than the last
// snapshot handed on; a market is over once a poll finds nothing new and the service says it is
// resolved (then one last poll takes what arrived in between).
import type { Market, Snapshot } from '../../domain/market.js';
import type { Limits, MsnapApi } from '../types.js';
import type { SnapshotCursor } from './watch-cursor.js';

/** Polls come at least this far apart: snapshots arrive 8 a second, a person reads far slower. */
const MIN_POLL_MS = 1000;
/** The share of the key's minute limit a watch may use: the rest stays for the key's other work. */
const POLL_SHARE = 0.25;

/** Use to pick the poll interval from the key's limits (undefined: unknown, so the least). */
export function pollIntervalMs(limits: Limits | undefined): number {
  const perMinute = limits?.rate_limit.requests_per_minute;
  if (!perMinute) return MIN_POLL_MS;
  return Math.max(MIN_POLL_MS, Math.ceil(60_000 / (perMinute * POLL_SHARE)));
}

/** What polling needs besides the client: the orderbook flag, the interval, a stoppable sleep. */
export interface PollOptions {
  includeOrderbook: boolean;
  intervalMs: number;
  /** Resolves after ms, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  signal: AbortSignal;
  /** True once the service's data can no longer change (a replay past its end); absent: never asked. */
  ended?: () => Promise<boolean>;
}

/** How a polled market's watch ended: it resolved, the replay ended before it did, or `signal` stopped it. */
export type PollEnd = 'resolved' | 'ended' | 'stopped';

/**
 * Use for one poll: the market's snapshots newer than the cursor (all of them the first time), a
 * page at a time as they arrive, each row once.
 */
export async function* newSnapshots(client: MsnapApi, id: string, cursor: SnapshotCursor, includeOrderbook: boolean): AsyncGenerator<Snapshot[]> {
  // From the last time handed on, inclusive: a snapshot sharing that millisecond is not lost.
  const q = { includeOrderbook, ...(cursor.lastTime !== undefined ? { from: cursor.lastTime } : {}) };
  for await (const page of client.snapshotPages(id, q)) {
    const fresh = cursor.take(page.rows());
    if (fresh.length > 0) yield fresh;
  }
}

/**
 * Use to watch `market` by polling until it resolves, the replay ends (`opts.ended`) or `signal`
 * aborts, from where the cursor stands. Yields new snapshots, oldest first; returns how it ended.
 */
export async function* pollMarket(client: MsnapApi, market: Market, cursor: SnapshotCursor, opts: PollOptions): AsyncGenerator<Snapshot[], PollEnd> {
  const id = market.market_id;
  let last: PollEnd | undefined = market.status === 'resolved' ? 'resolved' : undefined;
  while (!opts.signal.aborted) {
    let any = false;
    for await (const rows of newSnapshots(client, id, cursor, opts.includeOrderbook)) {
      any = true;
      yield rows;
    }
    if (last) return last;
    // Nothing new: has it ended? (While rows keep coming it has not: no request is spent asking.)
    if (!any) {
      if ((await client.market(id)).status === 'resolved') last = 'resolved';
      else if ((await opts.ended?.()) === true) last = 'ended';
      // One more poll takes what became visible between the last one and the end.
      if (last) continue;
    }
    await opts.sleep(opts.intervalMs, opts.signal);
  }
  return 'stopped';
}
