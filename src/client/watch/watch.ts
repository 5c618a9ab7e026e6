// `watch`: a market's snapshots as they arrive, oldest first, each once; with `follow`, the next
// markets of its series after it. From the service's live stream where it offers one (history
// so far by HTTP, then the stream's frames), else by polling within the key's pace; a stream
// that goes away mid-watch hands over to polling where it stood.
import { parseMarketId, type Market, type Snapshot } from '../../domain/market.js';
import { NotFoundError } from '../../errors.js';
import { StreamFeed } from './stream-feed.js';
import type { StreamOpening } from './stream-events.js';
import type { MsnapApi, ServiceClock } from '../types.js';
import { SnapshotCursor } from './watch-cursor.js';
import { newSnapshots, pollIntervalMs, pollMarket, type PollOptions } from './watch-poll.js';
import { firstMarket, marketStartingFrom, newestMarket, targetSeries, type WatchTarget } from './watch-series.js';

export type { WatchTarget } from './watch-series.js';

/** `stream`: the stream or fail; `poll`: never the stream; `auto`: the stream where offered. */
export type WatchMode = 'auto' | 'stream' | 'poll';

/** How to watch. */
export interface WatchOptions {
  follow: boolean;
  includeOrderbook: boolean;
  mode: WatchMode;
  /** Poll interval; default from the key's limits (watch-poll.ts). */
  intervalMs?: number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Ends the watch (Ctrl-C): what was handed on stays complete. */
  signal: AbortSignal;
  /** Something the user should know (the stream refused, lost, or the replay ended). */
  note(message: string): void;
  /** Told as each market's watch begins, and how (`stream` or `poll`). */
  onMarket?(market: Market, via: 'stream' | 'poll'): void;
}

/** Use to watch a target: new snapshots, oldest first, until its (last) market resolves or `signal`. */
export async function* watchSnapshots(client: MsnapApi, target: WatchTarget, opts: WatchOptions): AsyncGenerator<Snapshot[]> {
  const series = targetSeries(target);
  const intervalMs = opts.intervalMs ?? pollIntervalMs(await client.limits().catch(() => undefined));
  const clock = client.capabilities().clock;
  const poll: PollOptions = {
    includeOrderbook: opts.includeOrderbook,
    intervalMs,
    sleep: opts.sleep,
    signal: opts.signal,
    ...(clock ? { ended: async () => replayEnded(await clock()) } : {}),
  };
  const next = (end: number) => nextMarket(client, series, end, poll, opts.note);
  // An unknown market, or none active without --follow, fails before any stream is opened.
  const first = await firstMarket(client, target);
  if (!first && 'coin' in target && !opts.follow) {
    throw new NotFoundError(`no ${series.coin} ${series.marketType} market is active now`, 'add --follow to wait for the next one');
  }
  const named = !first && 'marketId' in target ? await yetToOpen(client, target.marketId, series, opts) : first;
  const feed = opts.mode === 'poll' ? undefined : await openFeed(client, series, opts);
  let market = named;
  try {
    if (!market && 'marketId' in target) market = await next(parseMarketId(target.marketId)!.startTime);
    else if (!market) market = await next((await newestMarket(client, series))?.end_time ?? 0);
    if (market && 'marketId' in target && !named && market.market_id !== target.marketId) throw new NotFoundError(`market ${target.marketId} not found`);
    while (market && !opts.signal.aborted) {
      const cursor = new SnapshotCursor();
      const live = feed?.state === 'open' && market.status === 'active';
      opts.onMarket?.(market, live ? 'stream' : 'poll');
      if (live) {
        yield* streamMarket(client, market, cursor, feed!, poll);
        if (feed!.state === 'end') {
          opts.note(REPLAY_ENDED);
          return;
        }
        if (feed!.state === 'lost') {
          opts.note(`the stream closed (${feed!.lostBecause}); polling from here`);
          feed!.stream.close();
          if ((yield* pollMarket(client, market, cursor, poll)) === 'ended') return opts.note(REPLAY_ENDED);
        }
        feed!.drop(market.market_id);
      } else if ((yield* pollMarket(client, market, cursor, poll)) === 'ended') {
        return opts.note(REPLAY_ENDED);
      }
      if (!opts.follow) return;
      market = await next(market.end_time);
    }
  } finally {
    feed?.stream.close();
  }
}

// A market id the service did not know: unknown (NotFoundError), unless it starts after the
// series' newest market, so it has yet to open (undefined: the watch waits for it). It may have
// opened since it was asked for: then it is asked for again.
async function yetToOpen(client: MsnapApi, id: string, series: ReturnType<typeof targetSeries>, opts: WatchOptions): Promise<Market | undefined> {
  const start = parseMarketId(id)!.startTime;
  const newest = await newestMarket(client, series);
  if (newest && start <= newest.start_time) return client.market(id);
  opts.note(`${id} has not opened yet: waiting for it`);
  return undefined;
}

// The stream of the series, or undefined to poll (with a note when the service refused one).
async function openFeed(client: MsnapApi, series: ReturnType<typeof targetSeries>, opts: WatchOptions): Promise<StreamFeed | undefined> {
  const stream = client.capabilities().stream;
  const opening: StreamOpening = stream
    ? await stream.openStream({ coins: [series.coin], marketTypes: [series.marketType], orderbook: opts.includeOrderbook })
    : { absent: true };
  if ('stream' in opening) return new StreamFeed(opening.stream);
  const why = 'absent' in opening ? 'the service offers no stream' : opening.refused;
  if (opts.mode === 'stream') throw new NotFoundError(`no live stream: ${why}`, 'drop --stream to poll instead');
  if ('refused' in opening) opts.note(`no live stream (${why}); polling instead`);
  return undefined;
}

const REPLAY_ENDED = 'the replay has ended: no more snapshots will come';

/** True for a replay clock that has reached its end (nothing the service shows will change). */
function replayEnded(clock: ServiceClock | undefined): boolean {
  return clock?.mode === 'replay' && clock.until !== null && clock.now >= clock.until;
}

// The market after `end` in the series, waiting for it to open (undefined: stopped first, or the
// replay ended). An empty look asks the service's clock (the first one, and each one while a
// replay runs), so a wait that could only end by Ctrl-C is said: a replay past its end ends the
// watch, a static store's wait is noted once.
async function nextMarket(client: MsnapApi, series: ReturnType<typeof targetSeries>, end: number, poll: PollOptions, note: (message: string) => void): Promise<Market | undefined> {
  let first = true;
  let replaying = false;
  while (!poll.signal.aborted) {
    const next = await marketStartingFrom(client, series, end);
    if (next) return next;
    if (first || replaying) {
      const clock = await client.capabilities().clock?.();
      if (replayEnded(clock)) {
        note(REPLAY_ENDED);
        return undefined;
      }
      if (first && clock?.mode === 'static') {
        note(
          `no ${series.coin} ${series.marketType} market after ${new Date(end).toISOString()} yet, and this msnap serve's data is static ` +
            '(no --live or --replay): one comes only if a recorder writes to its store; waiting (Ctrl-C ends the watch)',
        );
      }
      replaying = clock?.mode === 'replay';
      first = false;
    }
    await poll.sleep(poll.intervalMs, poll.signal);
  }
  return undefined;
}

// One market from the stream: its history so far by HTTP, then its frames (the stream was
// subscribed first, so nothing falls between), until it resolves or the stream ends.
async function* streamMarket(client: MsnapApi, market: Market, cursor: SnapshotCursor, feed: StreamFeed, poll: PollOptions): AsyncGenerator<Snapshot[]> {
  const id = market.market_id;
  yield* newSnapshots(client, id, cursor, poll.includeOrderbook);
  while (!poll.signal.aborted) {
    const fresh = cursor.take(feed.take(id));
    if (fresh.length > 0) yield fresh;
    if (feed.isResolved(id)) {
      // What the service holds is the whole market: a frame lost on the way shows here.
      yield* newSnapshots(client, id, cursor, poll.includeOrderbook);
      return;
    }
    if (feed.state !== 'open') return;
    await feed.pump(poll.signal);
  }
}
