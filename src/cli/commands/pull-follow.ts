// `msnap pull COIN TYPE --follow`: after the first pull, keep the mirror current. It sleeps until
// the next market of the pair ends (plus a settle delay, so the service has written its last
// snapshots), lists the pair's newest markets, pulls each that ended, and sleeps again: one listing
// per market, every request through the client's pacer and the key's data window. A stop
// (Ctrl-C, SIGTERM) ends the wait or lets the market being pulled finish, then closes the store.
import { MARKET_DURATION_MS, type Coin, type Market, type MarketType } from '../../domain/market.js';
import type { MsnapApi } from '../../client/types.js';
import { HttpError, RateLimitedError, UnreachableError } from '../../errors.js';
import { storeName } from '../../store/db-path.js';
import { openStore } from '../../store/open-store.js';
import { explainStoreError } from '../../service/store-use.js';
import type { CliDeps } from '../deps.js';
import { counted } from '../output/terminal/count-text.js';
import { pullMarket } from './pull-market.js';
import type { SnapshotsOptions } from './snapshots.js';

/** After a market's end, the service has written its last snapshots by then (a live world ticks, a recorder lags a second). */
export const FOLLOW_SETTLE_MS = 5_000;
/** With no market of the pair open on the service (none listed yet), ask again this often. */
export const FOLLOW_IDLE_MS = 30_000;

/** What a follow did, for its closing line. */
export interface FollowSummary {
  markets: number;
  rows: number;
  listings: number;
}

/**
 * When to look next: the earliest end among the listed markets still running (or ended within the
 * settle delay), plus the delay; with none, after FOLLOW_IDLE_MS. Never later than one market's length. Pure.
 */
export function nextLook(listed: readonly Pick<Market, 'end_time'>[], now: number, type: MarketType, settleMs = FOLLOW_SETTLE_MS): number {
  const ends = listed.map((m) => m.end_time + settleMs).filter((t) => t > now);
  const next = ends.length > 0 ? Math.min(...ends) : now + FOLLOW_IDLE_MS;
  return Math.min(next, now + MARKET_DURATION_MS[type]);
}

/** The markets of the pair that ended by `now - settleMs` and have snapshots, oldest first. Pure. */
export function endedMarkets(listed: readonly Market[], now: number, settleMs = FOLLOW_SETTLE_MS): Market[] {
  return listed.filter((m) => m.end_time + settleMs <= now && m.snapshot_count > 0).sort((a, b) => a.start_time - b.start_time);
}

/** True for a failure a follower waits out (the service away, overloaded or limiting after the client's own retries); anything else ends it. */
export function passingTrouble(err: unknown): boolean {
  return err instanceof UnreachableError || err instanceof RateLimitedError || (err instanceof HttpError && err.status >= 500);
}

/** The pair's markets that start at or after `since`, newest first (a few: one listing request). */
async function listSince(client: MsnapApi, coin: Coin, type: MarketType, since: number): Promise<Market[]> {
  const out: Market[] = [];
  for await (const m of client.markets({ coin, marketType: type, all: true, startTime: since })) out.push(m);
  return out;
}

/** Use after the first pull: follows until stopped; returns what it pulled. */
export async function runFollow(opts: SnapshotsOptions & { db: string; target: { coin: Coin; marketType: MarketType } }, deps: CliDeps): Promise<FollowSummary> {
  const { coin, marketType: type } = opts.target;
  const duration = MARKET_DURATION_MS[type];
  const stop = new AbortController();
  const unregister = deps.onStop(() => stop.abort(), { sigterm: true });
  const client = await deps.client();
  const store = await openStore(opts.db, { cacheMiB: 32 });
  const progress = await deps.progress(`following ${coin} ${type}`, { resultAtEnd: true });
  const s: FollowSummary = { markets: 0, rows: 0, listings: 0 };
  // From the market running now (the first pull may have taken it in part) and any that ended
  // within the settle delay; those that ended before are the first pull's (--last, --from).
  let since = deps.now() - duration - FOLLOW_SETTLE_MS;
  try {
    const writer = store.mirrorWriter({ baseUrl: await deps.serviceUrl(), dialect: (await client.capabilities().service?.dialect()) ?? 'v1', pulledAt: deps.now() });
    while (!stop.signal.aborted) {
      let listed: Market[] = [];
      try {
        listed = await listSince(client, coin, type, since);
        s.listings++;
        for (const m of endedMarkets(listed, deps.now())) {
          const before = await writer.local(m.market_id);
          // A market already complete costs no snapshot request (its record is refreshed: a winner set late).
          const rows = await pullMarket(client, writer, m, opts, before, () => undefined);
          if (rows >= 0) {
            s.markets++;
            s.rows += rows;
            deps.info(`pulled ${m.market_id}: ${counted(rows, 'snapshot')}${before.exists ? ' (completed)' : ''}`);
          }
          since = Math.max(since, m.start_time);
          if (stop.signal.aborted) break;
        }
      } catch (err) {
        // The pages stored so far stay; the next look continues after them.
        if (!passingTrouble(err)) throw err;
        listed = [];
        deps.warn(`${(err as Error).message}; trying again in ${FOLLOW_IDLE_MS / 1000} s`);
      }
      const wake = nextLook(listed, deps.now(), type);
      progress.update({ unit: 'markets', pages: s.markets, rows: s.rows, extra: `next look ${new Date(wake).toISOString().slice(11, 19)}Z` });
      await deps.sleep(Math.max(0, wake - deps.now()), stop.signal).catch(() => undefined);
    }
  } catch (err) {
    throw explainStoreError(err, opts.db);
  } finally {
    progress.stop();
    unregister();
    await store.close();
  }
  deps.info(`stopped following ${coin} ${type}: ${counted(s.markets, 'market')} pulled into ${storeName(opts.db)}, ${counted(s.rows, 'snapshot')}`);
  return s;
}
