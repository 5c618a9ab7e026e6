import { describe, expect, it } from 'vitest';
import { configFromMinuteLimit, LOG_MARGIN_MS, PaceModel, Pacer, type SharedPace, type SharedRecord } from './pacer.js';
import { INITIAL_RESERVE_MS } from './round-trips.js';

function fakeClock(start = 1_000_000) {
  const c = {
    t: start,
    now: () => c.t,
    sleep: async (ms: number) => {
      c.t += Math.max(0, ms);
    },
  };
  return c;
}

/** Send times of `n` requests as fast as the model allows, each answered at once, from time 0. */
function pacedSends(m: PaceModel, n: number): number[] {
  let t = 0;
  const sends: number[] = [];
  for (let i = 0; i < n; i++) {
    t += m.waitMs(t);
    m.onSend(t);
    m.onDone(t);
    sends.push(t);
  }
  return sends;
}

describe('PaceModel', () => {
  it('keeps a reserve of refill before the last burst token, then spaces sends at the refill rate', () => {
    const sends = pacedSends(new PaceModel({ perMinute: 250, burst: 12 }, 0), 14);
    // 11 at once: the 12th token is used only once INITIAL_RESERVE_MS of refill is in reserve.
    expect(sends.slice(0, 11)).toEqual(Array(11).fill(0));
    expect(sends[11]).toBe(INITIAL_RESERVE_MS);
    expect(sends[13]! - sends[12]!).toBeGreaterThanOrEqual(83);
    expect(sends[13]! - sends[12]!).toBeLessThanOrEqual(84);
  });

  it('estimates the least time n more sends take: the minute cap holds a builder run after its fast start', () => {
    const m = new PaceModel({ perMinute: 250, burst: 12 }, 0);
    const sends = pacedSends(m, 250);
    const at = sends.at(-1)!;
    expect(at).toBeLessThan(21_000);
    // The next 153 wait for the first sends to leave the minute window, 60 s after them.
    expect(m.estimateMs(153, at)).toBeGreaterThanOrEqual(60_000 - at);
    expect(m.estimateMs(0, at)).toBe(0);
    // The model itself is untouched: its next send still waits for the window.
    expect(m.waitMs(at)).toBeGreaterThan(30_000);
  });

  it('frees a minute slot only LOG_MARGIN_MS after the request completed plus 60 s', () => {
    const m = new PaceModel({ perMinute: 2, burst: 10 }, 0);
    m.onSend(0);
    m.onDone(500); // completed at 500: the server saw it at some time <= 500
    m.onSend(600);
    m.onDone(600);
    expect(m.waitMs(700)).toBe(500 + LOG_MARGIN_MS + 60_000 - 700);
  });

  it('counts in-flight requests against the minute limit', () => {
    const m = new PaceModel({ perMinute: 2, burst: 10 }, 0);
    m.onSend(0);
    m.onSend(0);
    expect(m.waitMs(10)).toBe(Infinity);
    m.onDone(20);
    // Both slots are taken for a minute: one by the completed request, one by the one in flight.
    expect(m.waitMs(20)).toBe(20 + LOG_MARGIN_MS + 60_000 - 20);
  });

  it('assumes foreign requests are the newest, except the one Reset names', () => {
    const m = new PaceModel({ perMinute: 3, burst: 10 }, 0);
    m.addForeign(3, 1000, 30_000);
    // One slot frees when the server's oldest leaves (30 s), the others a full minute from now.
    expect(m.waitMs(1000)).toBe(30_000 + LOG_MARGIN_MS - 1000);
  });
});

describe('PaceModel.reconfigure', () => {
  it('charges the sends of the last second against the new burst (a guess that refilled faster forgot them)', () => {
    // Guessed burst 3; one send at 0; the real burst 1 arrives at 500: the server has 0.5 tokens.
    const m = new PaceModel({ perMinute: 60, burst: 3 }, 0);
    m.onSend(0);
    m.onDone(10);
    m.reconfigure({ perMinute: 60, burst: 1 }, 500);
    expect(m.waitMs(500)).toBe(500);
  });

  it('replays every send since the bucket was last full, not just the last second', () => {
    // Real burst 2, guessed 12: two sends at 0 empty it, one at 600 takes the 1.2 refilled; at
    // 1200 the server holds 1.4 tokens, so the next send may go once 1 + reserve is back.
    const m = new PaceModel({ perMinute: 250, burst: 12 }, 0);
    for (const t of [0, 0, 600]) m.onSend(t);
    m.reconfigure({ perMinute: 250, burst: 2 }, 1200);
    expect(m.waitMs(1200)).toBe(0);
    m.onSend(1200);
    // 0.4 left: 1.06 needs 330 ms more.
    expect(m.waitMs(1200)).toBeGreaterThanOrEqual(330);
    expect(m.waitMs(1200)).toBeLessThanOrEqual(331);
  });

  it('never carries a debt: a send the new burst could not have admitted charges nothing below empty', () => {
    const m = new PaceModel({ perMinute: 60, burst: 20 }, 0);
    for (let i = 0; i < 10; i++) m.onSend(0);
    m.reconfigure({ perMinute: 60, burst: 2 }, 0);
    expect(m.waitMs(0)).toBe(530);
  });

  it('keeps another process having emptied the bucket', () => {
    const m = new PaceModel({ perMinute: 60, burst: 3 }, 0);
    m.addForeign(1, 100);
    m.reconfigure({ perMinute: 60, burst: 2 }, 100);
    expect(m.waitMs(100)).toBe(530);
  });
});

describe('PaceModel with a burst of 1', () => {
  it('sends only once every earlier request is answered, then a full second after that answer', () => {
    const m = new PaceModel({ perMinute: 60, burst: 1 }, 0);
    m.onSend(0);
    // In flight: it may reach the server at any moment, so nothing else may go.
    expect(m.waitMs(5000)).toBe(Infinity);
    m.onDone(5300);
    expect(m.waitMs(5300)).toBe(1000);
    expect(m.waitMs(6300)).toBe(0);
  });
});

describe('PaceModel with a larger reserve', () => {
  it('holds back the refill of the reserve, but never more than a full bucket', () => {
    const m = new PaceModel({ perMinute: 250, burst: 12 }, 0);
    m.reserveMs = 250; // 3 tokens of refill
    expect(pacedSends(m, 12).filter((t) => t === 0)).toHaveLength(9);
    const full = new PaceModel({ perMinute: 250, burst: 12 }, 0);
    full.reserveMs = 5000;
    const sends = pacedSends(full, 3);
    // Only a full bucket is used: one send, then one per refilled token.
    expect(sends[0]).toBe(0);
    expect(sends[1]).toBe(84);
  });
});

describe('Pacer', () => {
  it('admits concurrent callers first in, first out, never beyond the limits', async () => {
    const c = fakeClock();
    const p = new Pacer(c.now, c.sleep);
    p.learn({ perMinute: 250, burst: 5 });
    const order: number[] = [];
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        p.acquire().then((t) => {
          order.push(i);
          times.push(c.t);
          p.done(t, undefined);
        }),
      ),
    );
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Token-bucket inequality over every pair of sends.
    for (let j = 0; j < times.length; j++) {
      for (let i = 0; i < j; i++) expect(j - i + 1).toBeLessThanOrEqual(5 + ((times[j]! - times[i]!) * 5) / 1000 + 1e-9);
    }
  });

  it('lets only one request out until the first answer tells it the limits', async () => {
    const c = fakeClock();
    const p = new Pacer(c.now, c.sleep);
    const t1 = await p.acquire();
    let second = false;
    const pending = p.acquire().then((t) => {
      second = true;
      return t;
    });
    await new Promise((r) => setImmediate(r));
    expect(second).toBe(false);
    p.done(t1, { limit: 250, remaining: 249, reset: 1000 });
    const t2 = await pending;
    expect(second).toBe(true);
    expect(p.config).toEqual(configFromMinuteLimit(250));
    expect(p.config).toEqual({ perMinute: 250, burst: 12 });
    p.done(t2, undefined);
  });

  it('holds back when the headers show another process using the key', async () => {
    const c = fakeClock(100_000);
    const p = new Pacer(c.now, c.sleep);
    p.learn({ perMinute: 10, burst: 10 });
    const t1 = await p.acquire();
    // The server counts 10 used (us + 9 others) and nothing left; its oldest leaves at 130 s.
    p.done(t1, { limit: 10, remaining: 0, reset: 130, serverDate: c.t });
    const before = c.t;
    const t2 = await p.acquire();
    expect(c.t - before).toBeGreaterThanOrEqual(30_000 - 1000);
    p.done(t2, undefined);
  });

  it('limits learned after a first answer under a guessed burst reach the shared state (no 429 next)', async () => {
    // One process's state file, in memory: what update() writes is what the next update() reads.
    let record: SharedRecord | undefined;
    const shared: SharedPace = {
      pid: 1,
      update: (fn) => {
        const r = fn(record && structuredClone(record));
        if (r.record) record = structuredClone(r.record);
        return r.value;
      },
    };
    const c = fakeClock();
    const p = new Pacer(c.now, c.sleep, shared);
    const limits = await p.acquire();
    // 600/min is no plan's: the burst is guessed (30); /limits then says 1.
    p.done(limits, { limit: 600, remaining: 599, reset: Math.ceil(c.t / 1000) + 60, serverDate: c.t });
    p.learn({ perMinute: 600, burst: 1 });
    const learnedAt = c.t;
    const next = await p.acquire();
    // The server's one token went to the limits request: the next may arrive a second later at the earliest.
    expect(c.t - learnedAt).toBeGreaterThanOrEqual(1000);
    p.done(next, undefined);
  });

  it('a pause holds every caller until it ends', async () => {
    const c = fakeClock();
    const p = new Pacer(c.now, c.sleep);
    p.learn({ perMinute: 250, burst: 12 });
    p.pauseUntil(c.t + 5000);
    const start = c.t;
    const t = await p.acquire();
    expect(c.t - start).toBeGreaterThanOrEqual(5000);
    p.done(t, undefined);
    expect(p.stats.pauses).toBe(1);
  });
});
