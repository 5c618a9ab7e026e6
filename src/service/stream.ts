// GET /v1/stream inside `msnap serve`: in live and replay mode a stream hub reads what becomes
// visible on the data clock (the replay clock, or how far the live world is written); a static
// server has no stream (the path is a 404 like any unknown one).
import { hashApiKey } from '../accounts/api-key.js';
import type { SharedLimiter } from '../ratelimit/shared-limiter.js';
import type { ServerClock } from '../replay/server-clock.js';
import type { Store } from '../store/store.js';
import type { StreamLimits } from '../stream/stream-budget.js';
import type { StreamHub } from '../stream/stream-hub.js';
import type { LiveRun } from './live-run.js';

/** Use in startService before listening: the hub (start it once listening), or undefined in static mode. */
export async function prepareStream(clock: ServerClock, store: Store, live: LiveRun | undefined, limiter: SharedLimiter, wall: () => number, log: (line: string) => void, limits: Partial<StreamLimits> = {}): Promise<StreamHub | undefined> {
  const mode = clock.read().mode;
  if (mode === 'static') return undefined;
  // Loaded only when a stream can run: ws is not part of any other command's startup.
  const { StreamHub } = await import('../stream/stream-hub.js');
  if (mode === 'live' && live) {
    // Live: read right after each write of the world, so a snapshot waits for one tick, not two.
    return new StreamHub({ store, clock, visibleThrough: () => live.through(), every: (fn) => live.onAdvance(fn), wall, limiter, hashKey: hashApiKey, log, limits });
  }
  return new StreamHub({ store, clock, visibleThrough: () => clock.now(), wall, limiter, hashKey: hashApiKey, log, limits });
}
