import { describe, expect, it } from 'vitest';
import type { Market } from '../../domain/market.js';
import { WindowError } from '../../errors.js';
import { listMarkets, type ListingSource } from './market-listing.js';
import { market, T0 } from '../test-support/mock-service.js';
import type { MarketsListingQuery, MarketsPage, MarketsQuery } from '../types.js';

/** Newest first: `n` markets 5 minutes apart, the newest at index 0. */
function newestFirst(n: number, from = 0): Market[] {
  return Array.from({ length: n }, (_, i) => market(T0 + (from + n - 1 - i) * 300_000));
}

interface Memory {
  source: ListingSource;
  list: Market[];
  asked: MarketsQuery[];
  windowEnds: { message: string; isWarning: boolean }[];
  prepared: number;
}

/**
 * An in-memory markets list paged like the service: at most `pageMax` a page; past `cap` a page
 * is clamped with a warning and an offset at or past it is a 403. `between` runs after each page.
 */
function memory(list: Market[], opts: { pageMax?: number; cap?: number; between?: (page: number, list: Market[]) => void } = {}): Memory {
  const m: Memory = { list, asked: [], windowEnds: [], prepared: 0, source: undefined as unknown as ListingSource };
  m.source = {
    async page(q) {
      m.asked.push(q);
      const offset = q.offset ?? 0;
      const cap = opts.cap ?? Infinity;
      if (offset >= cap) throw new WindowError(`only the most recent ${cap} markets`, 'builder', 'upgrade');
      let limit = Math.min(q.limit ?? 100, opts.pageMax ?? Infinity);
      let warning: string | undefined;
      if (offset + limit > cap) {
        limit = cap - offset;
        warning = `clamped to ${limit}`;
      }
      const page: MarketsPage = {
        markets: m.list.slice(offset, offset + limit),
        total: Math.min(m.list.length, cap),
        limit,
        offset,
        ...(warning !== undefined ? { warning } : {}),
      };
      opts.between?.(m.asked.length, m.list);
      return page;
    },
    async beforeManyRequests() {
      m.prepared++;
    },
    windowEnd(message, isWarning) {
      m.windowEnds.push({ message, isWarning });
    },
  };
  return m;
}

async function ids(q: MarketsListingQuery, source: ListingSource): Promise<string[]> {
  const out: string[] = [];
  for await (const m of listMarkets(q, source)) out.push(m.market_id);
  return out;
}

const idsOf = (ms: Market[]): string[] => ms.map((m) => m.market_id);

describe('listMarkets', () => {
  it('one page by default: the first 100, one request, no limits learned', async () => {
    const mem = memory(newestFirst(150));
    const got = await ids({}, mem.source);
    expect(got).toEqual(idsOf(mem.list.slice(0, 100)));
    expect(mem.asked).toEqual([{ offset: 0, limit: 100 }]);
    expect(mem.prepared).toBe(0);
  });

  it('all: every market once, pages overlapping by one item', async () => {
    const mem = memory(newestFirst(20), { pageMax: 7 });
    const got = await ids({ all: true, limit: 7 }, mem.source);
    expect(got).toEqual(idsOf(mem.list));
    expect(mem.asked.map((q) => q.offset)).toEqual([0, 6, 12, 18]);
    expect(mem.prepared).toBeGreaterThanOrEqual(1);
  });

  it('markets prepended between pages are neither repeated nor cause a skip', async () => {
    const original = newestFirst(30);
    let newest = 29;
    const mem = memory([...original], { pageMax: 7, between: (_p, list) => list.unshift(market(T0 + ++newest * 300_000)) });
    const got = await ids({ all: true, limit: 7 }, mem.source);
    expect(got).toEqual(idsOf(original));
  });

  it('steps back when markets vanished above the position, so none is skipped', async () => {
    const original = newestFirst(30);
    const mem = memory([...original], { pageMax: 7, between: (page, list) => void (page === 1 && list.splice(0, 3)) });
    const got = await ids({ all: true, limit: 7 }, mem.source);
    // The three that vanished had been listed on the first page; every other one follows once.
    expect(got).toEqual(idsOf(original));
    const offsets = mem.asked.map((q) => q.offset);
    expect(offsets.slice(0, 2)).toEqual([0, 6]);
    expect(offsets[2]).toBeLessThan(6);
  });

  it('max: stops after that many, asking only for what is still wanted', async () => {
    const mem = memory(newestFirst(50), { pageMax: 7 });
    const got = await ids({ max: 10, limit: 7 }, mem.source);
    expect(got).toEqual(idsOf(mem.list.slice(0, 10)));
    expect(mem.asked).toEqual([
      { max: 10, limit: 7, offset: 0 },
      { max: 10, limit: 4, offset: 6 },
    ]);
  });

  it('a last page cut below what was asked ends at the window with its warning', async () => {
    const mem = memory(newestFirst(30), { cap: 20 });
    const got = await ids({ all: true, limit: 8 }, mem.source);
    expect(got).toEqual(idsOf(mem.list.slice(0, 20)));
    expect(mem.windowEnds).toEqual([{ message: 'clamped to 6', isWarning: true }]);
  });

  it('a page short only because the data ended is no window end', async () => {
    const mem = memory(newestFirst(20));
    await ids({ all: true, limit: 8 }, mem.source);
    expect(mem.windowEnds).toEqual([]);
  });

  it('a 403 on a later page (the window shrank) ends the listing at the window', async () => {
    const mem = memory(newestFirst(30), { pageMax: 7 });
    let calls = 0;
    const page = mem.source.page;
    mem.source.page = async (q) => {
      if (++calls === 3) throw new WindowError('window moved', 'builder', 'upgrade');
      return page(q);
    };
    const got = await ids({ all: true, limit: 7 }, mem.source);
    expect(got).toEqual(idsOf(mem.list.slice(0, 13)));
    expect(mem.windowEnds).toEqual([{ message: 'window moved', isWarning: false }]);
  });

  it('a 403 on the first page is the caller\'s error', async () => {
    const mem = memory(newestFirst(30), { cap: 5 });
    await expect(ids({ offset: 5 }, mem.source)).rejects.toBeInstanceOf(WindowError);
    expect(mem.windowEnds).toEqual([]);
  });

  it('a service that stops advancing (answers only what was listed) ends after two such pages', async () => {
    const list = newestFirst(10);
    let served = 0;
    const source: ListingSource = {
      async page() {
        served++;
        return { markets: list.slice(0, 1), total: 1000, limit: 1, offset: 0 };
      },
      async beforeManyRequests() {},
      windowEnd() {},
    };
    const got = await ids({ all: true, limit: 5 }, source);
    expect(got).toEqual(idsOf(list.slice(0, 1)));
    expect(served).toBe(3);
  });
});
