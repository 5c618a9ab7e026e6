import { describe, expect, it } from 'vitest';
import type { AdvanceSummary } from './live-world.js';
import { startTicker, type Advancer } from './ticker.js';

/** A world that records the clock of every advance, failing with the queued errors first. */
function recorder(errors: unknown[] = []) {
  const seen: { now: number; wait: boolean | undefined }[] = [];
  const world: Advancer = {
    advance(now, opts): AdvanceSummary | undefined {
      const err = errors.shift();
      if (err) throw err;
      seen.push({ now, wait: opts.wait });
      return { opened: 0, resolved: 0, snapshots: 0, orderbooks: 0, through: now };
    },
  };
  return { world, seen };
}

describe('startTicker', () => {
  it('advances the world to the clock on every tick, never waiting for a lock, until stopped', () => {
    const { world, seen } = recorder();
    let clock = 1_000;
    let scheduled: { fn: () => void; ms: number } | undefined;
    let cancelled = false;
    const ticker = startTicker({
      world,
      now: () => clock,
      warn: () => {},
      every: (fn, ms) => {
        scheduled = { fn, ms };
        return () => (cancelled = true);
      },
    });
    expect(scheduled!.ms).toBe(125);
    scheduled!.fn();
    clock += 130;
    scheduled!.fn();
    expect(seen).toEqual([
      { now: 1_000, wait: false },
      { now: 1_130, wait: false },
    ]);
    ticker.stop();
    expect(cancelled).toBe(true);
  });

  it('skips a tick quietly when another process holds the lock, and warns once while ticks fail', () => {
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const { world, seen } = recorder([busy, new Error('disk I/O error'), new Error('disk I/O error'), undefined, new Error('disk full')]);
    const warnings: string[] = [];
    const ticker = startTicker({ world, now: () => 5, warn: (l) => warnings.push(l), every: () => () => {} });
    for (let i = 0; i < 5; i++) ticker.tick();
    expect(seen).toHaveLength(1);
    expect(warnings).toEqual([
      'msnap serve: live update failed: disk I/O error (serving what is stored)',
      'msnap serve: live update failed: disk full (serving what is stored)',
    ]);
  });
});
