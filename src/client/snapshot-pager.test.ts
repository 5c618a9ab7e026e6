// The pager's page fetched ahead: asked for while the current page is used, its failure
// surfacing only after every page before it, and aborted when the reader stops early.
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../domain/market.js';
import { pageSnapshots, type SnapshotPageFetch } from './snapshot-pager.js';
import type { SnapshotsPage, SnapshotsQuery } from './types.js';

const ID = 'btc-updown-5m-1763769600';

/** A market of `total` rows served `size` at a time; `fail(offset)` may fail a page instead. */
function service(total: number, size: number, fail: (offset: number) => Error | undefined = () => undefined) {
  const asked: { offset: number; signal: AbortSignal }[] = [];
  const read: SnapshotPageFetch = async (q: SnapshotsQuery, signal: AbortSignal): Promise<SnapshotsPage> => {
    const offset = q.offset ?? 0;
    asked.push({ offset, signal });
    await new Promise((r) => setImmediate(r));
    const err = fail(offset);
    if (err) throw err;
    const snapshots: Snapshot[] = [];
    for (let i = offset; i < Math.min(total, offset + size); i++) snapshots.push({ id: i, market_id: ID, time: i, price: 1, price_up: 0.5, price_down: 0.5 });
    return { market: null, snapshots, total, limit: size, offset };
  };
  return { read, asked };
}

describe('pageSnapshots', () => {
  it('asks for the next page before the reader is done with this one', async () => {
    const s = service(25, 10);
    const seen: number[][] = [];
    for await (const page of pageSnapshots(s.read, { pageSize: 10 })) {
      // The page after this one is already asked for (none after the last).
      seen.push(s.asked.map((a) => a.offset));
      expect(page.length).toBeGreaterThan(0);
    }
    expect(seen).toEqual([[0, 10], [0, 10, 20], [0, 10, 20]]);
  });

  it('with two pages ahead, asks for the one after next while the reader holds a page, and no further', async () => {
    const s = service(50, 10);
    const seen: number[][] = [];
    for await (const page of pageSnapshots(s.read, { pageSize: 10 }, 2)) {
      // Time for every answer in flight to arrive while the reader holds this page.
      for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
      seen.push(s.asked.map((a) => a.offset));
      expect(page.length).toBe(10);
    }
    expect(seen).toEqual([[0, 10, 20], [0, 10, 20, 30], [0, 10, 20, 30, 40], [0, 10, 20, 30, 40], [0, 10, 20, 30, 40]]);
  });

  it('surfaces a failed page ahead only after every page before it, and asks for nothing past it', async () => {
    const s = service(50, 10, (offset) => (offset === 20 ? new Error('page at 20 failed') : undefined));
    const got: number[] = [];
    const err = await (async () => {
      for await (const page of pageSnapshots(s.read, { pageSize: 10 }, 2)) {
        // The failed page has arrived before the reader is done with the first.
        for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
        got.push(page[0]!.id);
      }
    })().catch((e: unknown) => e);
    expect(got).toEqual([0, 10]);
    expect((err as Error).message).toBe('page at 20 failed');
    expect(s.asked.map((a) => a.offset)).toEqual([0, 10, 20]);
  });

  it('aborts the pages ahead when the reader stops early', async () => {
    const s = service(50, 10);
    for await (const page of pageSnapshots(s.read, { pageSize: 10 }, 2)) {
      for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
      expect(page[0]!.id).toBe(0);
      break;
    }
    expect(s.asked.map((a) => [a.offset, a.signal.aborted])).toEqual([[0, true], [10, true], [20, true]]);
  });
});
