// GET /v1/stream inside `msnap serve`: in live and replay mode a stream hub reads what becomes
// visible on the data clock (the replay clock, or how far the live world, or serve --record's
// recorder, has written). A static server has a stream only on a store `msnap record` writes into
// (from another process): it follows how far the recorder has written; any other static server
// has none (the path is a 404 like any unknown one).
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
  if (mode === 'static') return followRecording(clock, store, limiter, wall, log);
  // Loaded only when a stream can run: ws is not part of any other command's startup.
  const { StreamHub } = await import('../stream/stream-hub.js');
  if (mode === 'live' && live) {
    // Live: read right after each write of the world, so a snapshot waits for one tick, not two.
    return new StreamHub({ store, clock, visibleThrough: () => live.through(), every: (fn) => live.onAdvance(fn), wall, limiter, hashKey: hashApiKey, log, limits });
  }
  return new StreamHub({ store, clock, visibleThrough: () => clock.now(), wall, limiter, hashKey: hashApiKey, log, limits });
}

/** How often a static server asks how far a recorder in another process has written. */
const RECORDING_POLL_MS = 250;

async function followRecording(clock: ServerClock, store: Store, limiter: SharedLimiter, wall: () => number, log: (line: string) => void): Promise<StreamHub | undefined> {
  const first = await store.recordedThrough?.();
  if (first === undefined) return undefined;
  const { StreamHub } = await import('../stream/stream-hub.js');
  // Snapshots before the recorded end are committed; the hub reads (through, visible], so one ms less.
  let through = first - 1;
  const every = (fn: () => void, ms: number) => {
    const timer = setInterval(() => {
      void store.recordedThrough!().then(
        (t) => {
          if (t !== undefined) through = Math.max(through, t - 1);
          fn();
        },
        () => fn(),
      );
    }, Math.min(ms, RECORDING_POLL_MS));
    timer.unref();
    return () => clearInterval(timer);
  };
  return new StreamHub({ store, clock, visibleThrough: () => through, every, wall, limiter, hashKey: hashApiKey, log });
}
