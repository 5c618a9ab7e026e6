// `serve --replay FROM [--speed N] [--until TO]`: the flags, checked, and the clock they make. The
// store the server and the dashboard read is then the store as it stood at the clock's `now`.
import { COINS, MARKET_TYPES } from '../domain/market.js';
import { UsageError } from '../errors.js';
import type { ServerClock } from '../replay/server-clock.js';
import type { Store } from '../store/store.js';
import { parseTime } from '../domain/time.js';

/** --replay, --speed and --until, checked; `until` undefined = the newest snapshot in the store. */
export interface ReplayFlags {
  from: number;
  until?: number;
  speed: number;
}

/** Raw values of the replay flags as commander hands them over. */
export interface RawReplayFlags {
  replay?: string;
  speed?: string;
  until?: string;
  live?: boolean;
}

/** The fastest replay: a week of history a second. */
const MAX_SPEED = 604_800;

/** Use in parseServeFlags: undefined without --replay; a UsageError for a bad TIME, speed, or --live alongside. */
export function parseReplayFlags(raw: RawReplayFlags, now: number): ReplayFlags | undefined {
  if (raw.replay === undefined) {
    if (raw.speed !== undefined || raw.until !== undefined) throw new UsageError('--speed and --until go with --replay FROM');
    return undefined;
  }
  if (raw.live === true) throw new UsageError('--replay plays stored history; it cannot run with --live (the synthetic present)');
  const from = parseTime(raw.replay, now, '--replay');
  const until = raw.until === undefined ? undefined : parseTime(raw.until, now, '--until');
  if (until !== undefined && until < from) throw new UsageError('--until must not be before --replay FROM');
  const speedText = raw.speed ?? '1';
  const speed = /^\d+(\.\d+)?$/.test(speedText) ? Number(speedText) : NaN;
  if (!(speed > 0 && speed <= MAX_SPEED)) throw new UsageError(`--speed must be a number > 0 and at most ${MAX_SPEED} (60 = a minute of history a second); got "${speedText.slice(0, 40)}"`);
  return { from, until, speed };
}

/**
 * Use in startService: the replay's clock, started now; TO defaults to the newest snapshot of
 * `store`. A FROM outside the stored data (after its newest snapshot, before its oldest market)
 * is a `warn`ing: the replay would show nothing new, or nothing for a while.
 */
export async function startReplayClock(flags: ReplayFlags, store: Store, wall: () => number, warn: (message: string) => void = () => {}): Promise<ServerClock> {
  // Loaded when a replay starts: the flag parser above runs at every CLI start.
  const { replayClock } = await import('../replay/server-clock.js');
  const newest = await newestSnapshotTime(store, wall());
  const iso = (t: number) => new Date(t).toISOString();
  if (newest !== undefined && flags.from > newest) {
    warn(`--replay ${iso(flags.from)} is after the newest stored snapshot (${iso(newest)}): nothing is left to replay`);
  } else if (newest !== undefined) {
    const oldest = await oldestMarketStart(store, wall());
    if (oldest !== undefined && flags.from < oldest) warn(`--replay ${iso(flags.from)} is before the oldest stored market (${iso(oldest)}): nothing shows until the clock reaches it`);
  }
  const until = flags.until ?? newest ?? flags.from;
  return replayClock({ from: flags.from, until: Math.max(until, flags.from), speed: flags.speed, wall });
}

/** The start of the oldest stored market of any series (the listing is newest first: its last). */
async function oldestMarketStart(store: Store, now: number): Promise<number | undefined> {
  let oldest: number | undefined;
  for (const coin of COINS) {
    for (const marketType of MARKET_TYPES) {
      const { total } = await store.listMarkets({ coin, marketType, limit: 1, offset: 0, window: null, now });
      if (total === 0) continue;
      const [m] = (await store.listMarkets({ coin, marketType, limit: 1, offset: total - 1, window: null, now })).markets;
      if (m && (oldest === undefined || m.start_time < oldest)) oldest = m.start_time;
    }
  }
  return oldest;
}

/** The newest snapshot's time: the last one of each series' newest market (markets of a series do not overlap). */
async function newestSnapshotTime(store: Store, now: number): Promise<number | undefined> {
  let newest: number | undefined;
  for (const coin of COINS) {
    for (const marketType of MARKET_TYPES) {
      const [m] = (await store.listMarkets({ coin, marketType, limit: 1, offset: 0, window: null, now })).markets;
      if (!m || m.snapshot_count === 0) continue;
      const last = await store.nearestSnapshot(m.market_id, Number.MAX_SAFE_INTEGER);
      if (last && (newest === undefined || last.time > newest)) newest = last.time;
    }
  }
  return newest;
}
