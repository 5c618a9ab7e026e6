// The clock a server answers at: the wall clock (static or --live), or a replay of stored history
// (`serve --replay FROM --speed N --until TO`) that starts at FROM, runs N times as fast as the
// wall clock and stops at TO. Only what the data shows follows it: Date headers, rate limits,
// sessions and keys stay on the wall clock.

/** How the server's data clock runs: `static` (a store served as is), `live` (--live) or `replay`. */
export type ClockMode = 'replay' | 'live' | 'static';

/** The body of GET /v1/clock. */
export interface ClockReading {
  now: number;
  speed: number;
  mode: ClockMode;
  /** Where a replay stops; null when the clock never stops. */
  until: number | null;
}

/** The data clock of a server: `now()` is the instant every answer is computed at. */
export interface ServerClock {
  now(): number;
  read(): ClockReading;
}

/** Use for a server whose data follows the wall clock (`wall`: epoch ms; tests pass their own). */
export function wallClock(mode: 'live' | 'static', wall: () => number): ServerClock {
  return { now: wall, read: () => ({ now: wall(), speed: 1, mode, until: null }) };
}

/** Options of replayClock; `wall` is the time source (epoch ms), so tests move it by hand. */
export interface ReplayOptions {
  from: number;
  until: number;
  /** > 0; 1 = wall speed. */
  speed: number;
  wall: () => number;
}

/** Use for `serve --replay`: starts at `from` when called, runs `speed` times wall speed, stops at `until`. */
export function replayClock(opts: ReplayOptions): ServerClock {
  if (!(opts.speed > 0) || !Number.isFinite(opts.speed)) throw new RangeError(`replay speed must be a finite number > 0; got ${opts.speed}`);
  const started = opts.wall();
  // A wall clock that steps back (NTP) holds the replay where it was rather than rewinding it.
  let last = opts.from;
  const now = () => {
    const t = Math.min(opts.until, opts.from + Math.floor((opts.wall() - started) * opts.speed));
    last = Math.max(last, t);
    return Math.min(last, opts.until);
  };
  return { now, read: () => ({ now: now(), speed: opts.speed, mode: 'replay', until: opts.until }) };
}
