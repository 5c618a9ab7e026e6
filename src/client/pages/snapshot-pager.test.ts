// The pager's page fetched ahead: asked for while the current page is used, its failure
// surfacing only after every page before it, and aborted when the reader stops early.
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../domain/market.js';
import { pageOf } from './row-page.js';
import { pageSnapshots, type SnapshotPageFetch } from './snapshot-pager.js';
import type { SnapshotsPage, SnapshotsQuery } from '../types.js';

const ID = 'btc-updown-5m-1763769600';

/** A market of `total` rows served `size` at a time (`short(offset)` rows for some); `fail(offset)` may fail a page instead. */
function service(total: number, size: number, fail: (offset: number) => Error | undefined = () => undefined, short: (offset: number) => number | undefined = () => undefined) {
  const asked: { offset: number; signal: AbortSignal }[] = [];
  const read: SnapshotPageFetch = async (q: SnapshotsQuery, signal: AbortSignal): Promise<SnapshotsPage> => {
    const offset = q.offset ?? 0;
    asked.push({ offset, signal });
    await new Promise((r) => setImmediate(r));
    const err = fail(offset);
    if (err) throw err;
    const snapshots: Snapshot[] = [];
    const given = short(offset) ?? size;
    for (let i = offset; i < Math.min(total, offset + given); i++) snapshots.push({ id: i, market_id: ID, time: i, price: 1, price_up: 0.5, price_down: 0.5 });
    return { market: null, page: pageOf(snapshots), total, limit: size, offset };
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
      expect(page.count).toBeGreaterThan(0);
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
      expect(page.count).toBe(10);
    }
    expect(seen).toEqual([[0, 10, 20], [0, 10, 20, 30], [0, 10, 20, 30, 40], [0, 10, 20, 30, 40], [0, 10, 20, 30, 40]]);
  });

  it('once pages come back full, asks for the page after one still on its way, and none past the end', async () => {
    const s = service(45, 10);
    const read: SnapshotPageFetch = (q, signal) => {
      const before = s.asked.length;
      const page = s.read(q, signal);
      // What was asked by the time this page is on its way (before it arrives).
      inFlight.push([q.offset ?? 0, s.asked.slice(0, before).map((a) => a.offset)]);
      return page;
    };
    const inFlight: [number, number[]][] = [];
    const ids: number[] = [];
    for await (const page of pageSnapshots(read, { pageSize: 10 }, 2)) for (const r of page.rows()) ids.push(r.id);
    expect(ids).toEqual(Array.from({ length: 45 }, (_, i) => i));
    // Page 10 waits for page 0 (nothing is known before it); 20 is asked with 10 still on its way.
    expect(inFlight.slice(0, 3)).toEqual([[0, []], [10, [0]], [20, [0, 10]]]);
    expect(s.asked.map((a) => a.offset)).toEqual([0, 10, 20, 30, 40]);
  });

  it('a page that comes back short cancels the pages asked after it and pages on from where it ended', async () => {
    // The service gives 4 rows at offset 20 (a shorter page mid-market), 10 elsewhere.
    const s = service(60, 10, () => undefined, (offset) => (offset === 20 ? 4 : undefined));
    const ids: number[] = [];
    // The reader takes each page at once: there is room to ask ahead while page 20 is on its way.
    for await (const page of pageSnapshots(s.read, { pageSize: 10 }, 2)) for (const r of page.rows()) ids.push(r.id);
    expect(ids).toEqual(Array.from({ length: 60 }, (_, i) => i));
    // The page assumed at 30 was cancelled; paging went on from 24.
    const at30 = s.asked.filter((a) => a.offset === 30);
    expect(at30.length).toBe(1);
    expect(at30[0]!.signal.aborted).toBe(true);
    expect(s.asked.map((a) => a.offset)).toEqual([0, 10, 20, 30, 24, 34, 44, 54]);
  });

  it('surfaces a failed page ahead only after every page before it, and asks for nothing past it', async () => {
    const s = service(50, 10, (offset) => (offset === 20 ? new Error('page at 20 failed') : undefined));
    const got: number[] = [];
    const err = await (async () => {
      for await (const page of pageSnapshots(s.read, { pageSize: 10 }, 2)) {
        // The failed page has arrived before the reader is done with the first.
        for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
        got.push(page.rows()[0]!.id);
      }
    })().catch((e: unknown) => e);
    expect(got).toEqual([0, 10]);
    expect((err as Error).message).toBe('page at 20 failed');
    expect(s.asked.map((a) => a.offset)).toEqual([0, 10, 20]);
  });

  it('cancels a page asked past a page that then fails, and hands on nothing after it', async () => {
    const s = service(80, 10, (offset) => (offset === 20 ? new Error('page at 20 failed') : undefined));
    const got: number[] = [];
    // A reader that takes pages at once leaves room to ask past page 20 while it is on its way.
    const err = await (async () => {
      for await (const page of pageSnapshots(s.read, { pageSize: 10 }, 2)) got.push(page.rows()[0]!.id);
    })().catch((e: unknown) => e);
    expect(got).toEqual([0, 10]);
    expect((err as Error).message).toBe('page at 20 failed');
    const past = s.asked.filter((a) => a.offset > 20);
    expect(past.map((a) => a.offset)).toEqual([30]);
    expect(past.every((a) => a.signal.aborted)).toBe(true);
  });

  it('aborts the pages ahead when the reader stops early', async () => {
    const s = service(50, 10);
    for await (const page of pageSnapshots(s.read, { pageSize: 10 }, 2)) {
      for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
      expect(page.rows()[0]!.id).toBe(0);
      break;
    }
    expect(s.asked.map((a) => [a.offset, a.signal.aborted])).toEqual([[0, false], [10, true], [20, true]]);
  });
});
