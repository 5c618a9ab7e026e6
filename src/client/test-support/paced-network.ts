// A virtual clock and a simulated network between client Pacers and the server's own KeyLimiter,
// so pacing can be checked over thousands of requests in well under a second of real time:
// random one-way delays (with rare spikes, hence reordering), a server clock off by a fixed
// skew, the headers the server really sends, and the client's reaction to a 429.
import { KeyLimiter, type LimitConfig } from '../../ratelimit/key-limiter.js';
import { mulberry32 } from '../../random/prng.js';
import type { Pacer, RateHeaders } from '../pacing/pacer.js';

/** A seeded PRNG in [0, 1) (the seeder's mulberry32): the same seed gives the same run. */
export const seededRandom = mulberry32;

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

/** Use as the `now`/`sleep` of the code under test; `run` advances time from timer to timer. */
export class VirtualClock {
  private timers: Timer[] = [];
  private seq = 0;
  constructor(public t: number) {}

  readonly now = (): number => this.t;

  readonly sleep = (ms: number): Promise<void> => new Promise((resolve) => this.at(this.t + Math.max(0, ms), resolve));

  /** Call `fire` when the clock reaches `at` (timers at one instant fire in the order set). */
  at(at: number, fire: () => void): void {
    const timer = { at: Math.max(at, this.t), seq: this.seq++, fire };
    let i = this.timers.length;
    while (i > 0 && (this.timers[i - 1]!.at > timer.at || (this.timers[i - 1]!.at === timer.at && this.timers[i - 1]!.seq > timer.seq))) i--;
    this.timers.splice(i, 0, timer);
  }

  /** Fire timers in time order, letting every promise settle in between, until `done` settles. */
  async run<T>(done: Promise<T>): Promise<T> {
    let settled = false;
    const result = done.finally(() => {
      settled = true;
    });
    for (;;) {
      // A macrotask turn drains every microtask the last timer set off.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (settled) return result;
      const next = this.timers.shift();
      if (!next) throw new Error('simulation stalled: nothing scheduled and the work is not done');
      this.t = next.at;
      next.fire();
    }
  }
}

/** How the simulated network delays one message (ms, one way). */
export type DelayModel = (random: () => number) => number;

/** 1-200 ms uniform, and with probability `spikeRate` a further 1 s. */
export function noisyDelay(spikeRate: number): DelayModel {
  return (random) => 1 + Math.floor(random() * 200) + (random() < spikeRate ? 1000 : 0);
}

/** What the server saw of one request. */
export interface Arrival {
  /** True time of arrival. */
  at: number;
  admitted: boolean;
  /** Minute slots left as the server reported (0 on a refusal: the minute limit refused it). */
  remaining: number;
}

/** One server key with its limiter on a skewed clock, reached through a delaying network. */
export class SimulatedServer {
  readonly arrivals: Arrival[] = [];
  private readonly limiter: KeyLimiter;

  constructor(
    private readonly clock: VirtualClock,
    config: LimitConfig,
    private readonly skewMs: number,
    private readonly delay: DelayModel,
    private readonly random: () => number,
  ) {
    this.limiter = new KeyLimiter(config, clock.t + skewMs);
  }

  /** Send one request now: resolves at the client when the answer is back, with its headers. */
  request(): Promise<{ status: number; headers: RateHeaders; retryAfterSec: number }> {
    const there = this.delay(this.random);
    const back = this.delay(this.random);
    return new Promise((resolve) => {
      this.clock.at(this.clock.t + there, () => {
        const serverNow = this.clock.t + this.skewMs;
        const d = this.limiter.take(serverNow);
        this.arrivals.push({ at: this.clock.t, admitted: d.admitted, remaining: d.remaining });
        const headers: RateHeaders = {
          limit: d.limit,
          remaining: d.remaining,
          reset: d.resetSec,
          // An HTTP Date has whole seconds.
          serverDate: Math.floor(serverNow / 1000) * 1000,
        };
        this.clock.at(this.clock.t + back, () => resolve({ status: d.admitted ? 200 : 429, headers, retryAfterSec: d.retryAfterSec }));
      });
    });
  }
}

/**
 * Issue `count` requests through `pacer` with `concurrency` callers, as the client core does:
 * acquire, send, `done` with the headers, and on a 429 pause the key for Retry-After (+ jitter)
 * and send again. Resolves when every request got a 2xx.
 */
export async function drive(
  pacer: Pacer,
  server: SimulatedServer,
  clock: VirtualClock,
  opts: { count: number; concurrency: number; random: () => number; onRequest?: () => Promise<void> },
): Promise<void> {
  let left = opts.count;
  const one = async (): Promise<void> => {
    for (;;) {
      const ticket = await pacer.acquire();
      const res = await server.request();
      pacer.done(ticket, res.headers);
      if (res.status !== 429) return;
      pacer.pauseUntil(clock.t + res.retryAfterSec * 1000 + Math.floor(opts.random() * 250));
    }
  };
  const worker = async (): Promise<void> => {
    while (left > 0) {
      left--;
      await one();
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
}

/** Milliseconds from the first to the n-th admission under `config`, each sent the moment it would be admitted. */
export function minimumMs(n: number, config: LimitConfig): number {
  const limiter = new KeyLimiter(config, 0);
  let now = 0;
  for (let i = 0; i < n; i++) {
    for (;;) {
      const d = limiter.take(now);
      if (d.admitted) break;
      now += Math.max(1, d.waitMs);
    }
  }
  return now;
}
