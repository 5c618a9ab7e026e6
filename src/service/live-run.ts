// `serve --live` inside `msnap serve`: catch the database's synthetic world up to the clock before
// listening (so `msnap at BTC 5m now` answers from the first request), then tick while serving.
import type { BulkLoadStore } from '../store/bulk-store.js';
import { explainStoreError } from './store-use.js';

/** A caught-up world, ready to tick once the server listens. */
export interface LiveRun {
  start(): void;
  stop(): void;
  /** The clock the world is written up to (the live stream shows nothing after it). */
  through(): number;
  /** Runs `fn` after every tick that wrote (the stream reads right after the write); returns the cancel. */
  onAdvance(fn: () => void): () => void;
}

/** Use in startService before listening: undefined (with a log line) when the database holds no seeded world. */
export async function prepareLive(store: BulkLoadStore, deps: { now: () => number; log: (line: string) => void }, db: string): Promise<LiveRun | undefined> {
  const [{ LiveWorld, CATCH_UP_MS }, { startTicker }] = await Promise.all([import('../live/live-world.js'), import('../live/ticker.js')]);
  const world = new LiveWorld(store.bulk);
  let caughtUp;
  try {
    caughtUp = world.advance(deps.now());
  } catch (err) {
    throw explainStoreError(err, db);
  }
  if (!caughtUp) {
    deps.log(`msnap serve: --live: ${db} holds no seeded world (\`msnap serve seed\` or --demo makes one); serving it as stored`);
    return undefined;
  }
  const hours = CATCH_UP_MS / 3_600_000;
  deps.log(
    `msnap serve: live: seed ${world.state()!.seed} runs on; caught up ${caughtUp.snapshots} snapshots (at most the last ${hours} h), ` +
      `opened ${caughtUp.opened} markets, resolved ${caughtUp.resolved}`,
  );
  let through = caughtUp.through;
  const listeners = new Set<() => void>();
  // The ticker's world, noting how far each advance wrote and telling who reads after it.
  const tracked = {
    advance(now: number, opts: { wait?: boolean }) {
      const summary = world.advance(now, opts);
      if (summary) {
        through = summary.through;
        for (const fn of listeners) fn();
      }
      return summary;
    },
  };
  let ticker: { stop(): void } | undefined;
  return {
    start() {
      ticker ??= startTicker({ world: tracked, now: deps.now, warn: deps.log });
    },
    stop() {
      ticker?.stop();
    },
    through: () => through,
    onAdvance(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}
