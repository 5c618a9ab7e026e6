// The count lookahead: in order, one request when the reader stops at the first market, a
// growing window while it keeps reading, failures surfacing at their market.
import { describe, expect, it } from 'vitest';
import { MAX_AHEAD, withSnapshotCounts } from './snapshot-counts.js';
import { market, T0 } from '../test-support/mock-service.js';
import type { Market } from '../../domain/market.js';

async function* list(starts: number[], pulled?: { n: number }): AsyncGenerator<Market> {
  for (const s of starts) {
    if (pulled) pulled.n++;
    yield market(s, { snapshot_count: 0 });
  }
}

describe('withSnapshotCounts', () => {
  it('asks one count when the reader stops at the first market', async () => {
    const asked: string[] = [];
    const count = async (id: string) => (asked.push(id), 42);
    for await (const m of withSnapshotCounts(list([T0, T0 - 300_000, T0 - 600_000]), count)) {
      expect(m.snapshot_count).toBe(42);
      break;
    }
    expect(asked).toHaveLength(1);
  });

  it('keeps the listing order whatever order the counts finish in, and never has more than MAX_AHEAD in flight', async () => {
    const starts = Array.from({ length: 40 }, (_, i) => T0 - i * 300_000);
    let inflight = 0;
    let most = 0;
    const count = async (id: string) => {
      inflight++;
      most = Math.max(most, inflight);
      // Some counts finish a few turns later than those after them (no timers: no real time).
      for (let i = 0; i < (id.endsWith('0') ? 5 : 0); i++) await Promise.resolve();
      inflight--;
      return Number(id.split('-').pop()) % 1000;
    };
    const got: Market[] = [];
    for await (const m of withSnapshotCounts(list(starts), count)) got.push(m);
    expect(got.map((m) => m.start_time)).toEqual(starts);
    expect(got.map((m) => m.snapshot_count)).toEqual(starts.map((s) => (s / 1000) % 1000));
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(MAX_AHEAD);
  });

  it('a failed count surfaces when its market is reached', async () => {
    const count = async (id: string) => {
      if (id.endsWith(String((T0 - 300_000) / 1000))) throw new Error('count failed');
      return 1;
    };
    const got: number[] = [];
    const err = await (async () => {
      for await (const m of withSnapshotCounts(list([T0, T0 - 300_000]), count)) got.push(m.start_time);
    })().catch((e: unknown) => e);
    expect(got).toEqual([T0]);
    expect((err as Error).message).toBe('count failed');
  });
});
