// A page read from its body: the same records the general path gives, built only when read, and
// its ready CSV the same bytes the CSV renderer writes for them.
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../domain/market.js';
import { HttpError } from '../../errors.js';
import { csvLines } from '../../cli/output/csv.js';
import { snapshotSchema } from '../../cli/output/schemas/record-schemas.js';
import { snapshotFromV4 } from '../dialects/v4-records.js';
import { normalizeSnapshot } from '../normalize.js';
import { rowKeys } from './snapshot-page-scan.js';
import type { SnapshotPage } from './row-page.js';
import { readSnapshotPage } from './snapshot-page.js';
import { expectSameOutput } from '../../test-support/fast-path.js';
import { mockAgent, KEY } from '../test-support/mock-service.js';
import { Transport, type RawAnswer } from '../transport/transport.js';

const ID = 'btc-updown-5m-1763769600';
const PATH = `/api/v1/markets/${ID}/snapshots`;
const t = new Transport({ baseUrl: 'http://127.0.0.1:8787', apiKey: KEY, dispatcher: mockAgent(), pacing: false });

function answer(body: string): RawAnswer {
  return { bytes: Buffer.from(body), ms: 1, rate: {}, status: 200, url: `http://127.0.0.1:8787${PATH}`, headers: { 'content-type': 'application/json' } };
}

function rows(n: number, price = (i: number) => 97_000.25 + i): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({ id: i + 1, market_id: ID, time: 1_763_769_600_000 + i * 125, price: price(i), price_up: 0.5, price_down: 0.5 }));
}

/** The page read with a `row` that counts its calls, and what the general path makes of the same body. */
function read(body: string, keys = rowKeys(['price']), normalize = (raw: unknown) => normalizeSnapshot(raw, ID)) {
  let built = 0;
  const page = readSnapshotPage(t, answer(body), PATH, keys, (raw) => {
    built++;
    return normalize(raw);
  });
  const general = ((JSON.parse(body) as { snapshots: unknown[] }).snapshots).map(normalize);
  return { page, general, built: () => built };
}

describe('readSnapshotPage', () => {
  it('builds no row until one is read, and then the ones the general path gives', async () => {
    const body = JSON.stringify({ snapshots: rows(30), total: 30, limit: 10000, offset: 0 });
    const { page, general, built } = read(body);
    expect(page.body).toEqual({ snapshots: [], total: 30, limit: 10000, offset: 0 });
    const snapshots = page.page;
    expect(snapshots.count).toBe(30);
    // Passing the page through await and an async generator (as the pager does) reads no row.
    async function* pass(): AsyncGenerator<SnapshotPage> {
      yield await Promise.resolve(snapshots);
    }
    for await (const p of pass()) expect(p).toBe(snapshots);
    expect(snapshots.readyCsv).toBeDefined();
    expect(built()).toBe(0);
    expect(snapshots.rows()[3]).toEqual(general[3]);
    expect(built()).toBe(30);
    expect(Array.isArray(snapshots.rows())).toBe(true);
    expect(snapshots.rows()).toEqual(general);
    expect(JSON.stringify(snapshots.rows())).toBe(JSON.stringify(general));
    // Built once.
    expect(built()).toBe(30);
  });

  it('offers ready CSV equal to what the renderer writes for the rows', () => {
    const { page, general } = read(JSON.stringify({ snapshots: rows(25, (i) => 276.148 - i / 8), total: 25 }));
    expectSameOutput('ready CSV of a page', page.page.readyCsv ?? '', csvLines(snapshotSchema(false))(general), page.page.readyCsv !== undefined);
  });

  it("maps v4's rows with the dialect's own function, to v1's records", () => {
    const v4rows = rows(5).map(({ price, ...r }) => ({ ...r, btc_price: price }));
    const body = JSON.stringify({ snapshots: v4rows, has_more: false });
    const { page, general } = read(body, rowKeys(['btc_price', 'price']), (raw) => snapshotFromV4(raw, 'BTC', ID));
    expect(page.page.readyCsv).toBeDefined();
    expect(page.page.rows()).toEqual(general);
    expect(general).toEqual(rows(5));
  });

  it('reads any other page the general way: rows built at once, no ready CSV', () => {
    // 97000 + i/3 needs 17 digits: its text is not copied.
    const { page, general, built } = read(JSON.stringify({ snapshots: rows(4, (i) => 97_000 + i / 3), total: 4 }));
    expect(page.page.readyCsv).toBeUndefined();
    expect(built()).toBe(4);
    expect(page.page.rows()).toEqual(general);
  });

  it('offers a page asked for as columns as columns, its rows built only when read and equal to the general ones', () => {
    const body = JSON.stringify({ snapshots: rows(20, (i) => 276.148 - i / 8), total: 20 });
    let built = 0;
    const normalize = (raw: unknown) => {
      built++;
      return normalizeSnapshot(raw, ID);
    };
    const { page } = readSnapshotPage(t, answer(body), PATH, rowKeys(['price']), normalize, 'columns');
    const general = ((JSON.parse(body) as { snapshots: unknown[] }).snapshots).map((raw) => normalizeSnapshot(raw, ID));
    expect(page.readyCsv).toBeUndefined();
    expect(Array.from(page.columns!.price)).toEqual(general.map((s) => s.price));
    expect(built).toBe(0);
    expect(page.rows()).toEqual(general);
    // A page the column scan does not take comes as ready CSV (spaced rows), or parsed (17 digits).
    const spaced = readSnapshotPage(t, answer(JSON.stringify({ snapshots: rows(3) }, null, 1)), PATH, rowKeys(['price']), normalize, 'columns').page;
    expect([spaced.columns, spaced.readyCsv !== undefined]).toEqual([undefined, true]);
    const odd = readSnapshotPage(t, answer(JSON.stringify({ snapshots: rows(3, (i) => 97_000 + i / 3) })), PATH, rowKeys(['price']), normalize, 'columns').page;
    expect([odd.columns, odd.readyCsv]).toEqual([undefined, undefined]);
  });

  it('fails on a body that is not JSON as get() does', () => {
    const err = (() => {
      try {
        readSnapshotPage(t, answer('<html>oops</html>'), PATH, rowKeys(['price']), (raw) => normalizeSnapshot(raw, ID));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(HttpError);
    expect((err as Error).message).toBe(`unexpected answer from http://127.0.0.1:8787${PATH}: not JSON`);
  });
});
