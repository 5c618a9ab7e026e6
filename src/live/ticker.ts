// The clock side of serve --live: advances the world every tick (125 ms, the snapshot interval),
// never waiting for another process's write lock, and says once when ticks fail.
import type { AdvanceSummary } from './live-world.js';

/** What the ticker drives: LiveWorld, or a fake in tests. */
export interface Advancer {
  advance(now: number, opts: { wait?: boolean }): AdvanceSummary | undefined;
}

/** Options of startTicker; `every` schedules the tick (tests pass their own and call it). */
export interface TickerOptions {
  world: Advancer;
  now: () => number;
  intervalMs?: number;
  /** Called with a line when ticks start failing (once, until one succeeds again). */
  warn: (line: string) => void;
  every?: (fn: () => void, ms: number) => () => void;
}

/** A running ticker. */
export interface Ticker {
  /** Runs one tick now (the scheduler calls this too). */
  tick(): void;
  stop(): void;
}

/** Use in serve --live: advances the world on every tick until stopped. */
export function startTicker(opts: TickerOptions): Ticker {
  let failing = false;
  const tick = (): void => {
    try {
      opts.world.advance(opts.now(), { wait: false });
      failing = false;
    } catch (err) {
      // Another process writing the file (import, keys): this tick is skipped, the next catches up.
      if ((err as { code?: string }).code === 'SQLITE_BUSY') return;
      if (!failing) opts.warn(`msnap serve: live update failed: ${err instanceof Error ? err.message : String(err)} (serving what is stored)`);
      failing = true;
    }
  };
  const every = opts.every ?? defaultEvery;
  const cancel = every(tick, opts.intervalMs ?? 125);
  return { tick, stop: cancel };
}

function defaultEvery(fn: () => void, ms: number): () => void {
  const timer = setInterval(fn, ms);
  // The server keeps the process alive; the ticker alone must not.
  timer.unref();
  return () => clearInterval(timer);
}
