// The local fast path (a store writing export text itself) against the generic path (records, then
// the exporter's renderers) over the same real SQLite store: the same bytes in every machine
// format, with and without orderbooks, whole markets and ranges, dense and gappy markets, msnap's
// ids, a source's ids (a pattern, a step, or one by one), odd stored depth and extreme values.
import type { SnapshotPage } from '../../../client/pages/row-page.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalApi } from '../../../local/local-api.js';
import type { SnapshotsStreamQuery, TextPage } from '../../../client/types.js';
import type { Coin, Market, MarketType, Snapshot } from '../../../domain/market.js';
import { openBulkStore, openStore } from '../../../store/open-store.js';
import type { RowLayout } from '../../../domain/row-layout.js';
import type { BulkLoadStore } from '../../../store/bulk-store.js';
import { market as fakeMarket } from '../../test-support/fake-cli.js';
import { createExporter, type TextSource } from '../exporter.js';
import { snapshotSchema } from './record-schemas.js';
import { OutputSink } from '../files/sink.js';
import { expectSameOutput } from '../../../test-support/fast-path.js';

const T0 = Date.UTC(2025, 10, 20);
let dir: string;
let api: LocalApi;
const ids: string[] = [];

const market = (coin: Coin, type: MarketType, start: number): Market => fakeMarket(coin, type, start, 0);

const book = (p: number) => ({ bids: [{ price: p, size: 10 }, { price: p - 0.01, size: 2.5 }], asks: [{ price: p + 0.01, size: 7 }] });

/** Stores three markets the way a pull does, plus depth in shapes only old or imported data has. */
async function fill(store: BulkLoadStore): Promise<void> {
  const writer = store.mirrorWriter({ baseUrl: 'http://source.test', dialect: 'v1', pulledAt: T0 });
  // Dense, 21,000 rows (three pages), a source's ids on msnap's pattern, depth on a few rows.
  const a = market('BTC', '1hr', T0);
  const rowsA: Snapshot[] = Array.from({ length: 21_000 }, (_, i) => ({
    id: 700_000_000 + i * 125,
    market_id: a.market_id,
    time: T0 + i * 125,
    price: Math.round((97_000 + i * 0.0137) * 1e4) / 1e4,
    price_up: (i % 10_001) / 1e4,
    price_down: ((i * 7) % 10_001) / 1e4,
    ...(i % 997 === 0 ? { orderbook_up: book(0.5), orderbook_down: book(0.49) } : {}),
  }));
  for (let at = 0; at < rowsA.length; at += 4000) await writer.page(a, rowsA.slice(at, at + 4000));
  // Gappy (not dense), times off the 125 ms grid, ids one by one, extreme and negative prices.
  const b = market('ETH', '5m', T0 + 300_000);
  const prices = [0, 0.0001, 1, 12.5, 97_123.4512, 123_456_789.0123, 2e11 + 0.0003, 9e11 + 0.1234, -5.25, 3000.1];
  const rowsB: Snapshot[] = Array.from({ length: 700 }, (_, i) => ({
    id: 81_234_560 + i * 3 + (i % 5 === 0 ? 1 : 0),
    market_id: b.market_id,
    time: b.start_time + i * 250 + (i % 7 === 0 ? 3 : 0),
    price: prices[i % prices.length]!,
    price_up: i % 3 === 0 ? 1 : 0.0001,
    price_down: 0.5,
  }));
  await writer.page(b, rowsB);
  // Gappy with ordinary values: the raw rows' byte writer (ids by pattern, a few one by one).
  const d = market('BTC', '15m', T0 + 1_800_000);
  await writer.page(d, Array.from({ length: 3000 }, (_, i) => ({
    id: 9_100_000_000 + i * 250 + (i % 1000 === 7 ? 5 : 0),
    market_id: d.market_id,
    time: d.start_time + i * 250 + (i % 11 === 0 ? 1 : 0),
    price: Math.round((95_000 + Math.sin(i) * 50) * 1e4) / 1e4,
    price_up: (i % 97) / 100,
    price_down: 1 - (i % 97) / 100,
  })));
  // Dense, ids a step per 125 ms slot.
  const c = market('SOL', '15m', T0 + 900_000);
  await writer.page(c, Array.from({ length: 1200 }, (_, i) => ({ id: 5_000_000 + i * 3, market_id: c.market_id, time: c.start_time + i * 125, price: 150 + i / 1e4, price_up: 0.25, price_down: 0.75 })));
  // Depth as pairs, with keys in another order, numbers as text, a side that is no object.
  const ref = store.bulk.marketRef(a.market_id)!;
  store.bulk.transaction(() => {
    store.bulk.insertOrderbook(ref.rowid, 125, '{"asks":[[0.53,"4"]],"bids":[[0.52,100],[0.51,3]]}', '{"bids":[],"asks":[]}');
    store.bulk.insertOrderbook(ref.rowid, 250, 'null', '{"bids":[{"size":1,"price":0.4}],"asks":[]}');
    store.bulk.insertOrderbook(ref.rowid, 375, '{"bids":[{"price":"0.5","size":"1.50"}],"asks":[{"price":0.6,"size":2,"extra":true}]}', '[]');
  });
  ids.push(a.market_id, b.market_id, c.market_id, d.market_id);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-text-'));
  const file = path.join(dir, 'local.db');
  const store = await openBulkStore(file);
  await fill(store);
  store.closeSync();
  api = new LocalApi(await openStore(file, { readonly: true }), () => T0 + 86_400_000);
});

afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes the markets' snapshots through a real exporter, from records or (with `text`) as the store writes them. */
async function exportAll(format: 'csv' | 'ndjson' | 'json', q: SnapshotsStreamQuery, viaText: boolean): Promise<{ out: string; recordsRead: boolean }> {
  let out = '';
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, cb) {
      out += chunk.toString('utf8');
      setImmediate(cb);
    },
  });
  let recordsRead = false;
  async function* pages(): AsyncGenerator<SnapshotPage> {
    recordsRead = true;
    for (const id of ids) yield* api.snapshotPages(id, q);
  }
  async function* text(layout: RowLayout): AsyncGenerator<TextPage> {
    for (const id of ids) yield* api.capabilities().snapshotText!(id, q, layout);
  }
  const exporter = createExporter({ format, sink: new OutputSink(stream), color: false });
  const source: TextSource | undefined = viaText ? text : undefined;
  const r = await exporter.listPages(snapshotSchema(q.includeOrderbook === true), pages(), { text: source });
  await new Promise((done) => stream.end(done));
  expect(r.rows).toBeGreaterThan(0);
  return { out, recordsRead };
}

describe('a local store writing export text itself', () => {
  const ranges: SnapshotsStreamQuery[] = [{}, { from: T0 + 1_000, to: T0 + 1_200_000 }, { from: T0 + 300_500 }, { to: T0 + 2_000_000 }, { from: T0 + 1_800_001, to: T0 + 2_100_000 }];
  for (const format of ['csv', 'ndjson', 'json'] as const) {
    it(`writes the records' ${format} byte for byte, with and without orderbooks, whole and in ranges`, async () => {
      for (const includeOrderbook of [false, true]) {
        for (const range of ranges) {
          const q = { ...range, includeOrderbook };
          const generic = await exportAll(format, q, false);
          const fast = await exportAll(format, q, true);
          expect(generic.recordsRead).toBe(true);
          expect(fast.out.length).toBeGreaterThan(1000);
          // The fast path reads no record.
          expectSameOutput(`${format} ${JSON.stringify(q)}`, fast.out, generic.out, !fast.recordsRead);
        }
      }
    });
  }

  it('keeps what the records hold: a row of each kind, read back', async () => {
    const { out } = await exportAll('ndjson', { includeOrderbook: true }, true);
    const rows = out.trim().split('\n').map((l) => JSON.parse(l) as Snapshot);
    expect(rows).toHaveLength(21_000 + 700 + 1200 + 3000);
    expect(rows[0]).toEqual({ id: 700_000_000, market_id: ids[0], time: T0, price: 97_000, price_up: 0, price_down: 0, orderbook_up: book(0.5), orderbook_down: book(0.49) });
    // Pairs and text numbers are read as the client reads them; a side that is no object is left out.
    expect(rows[1]!.orderbook_up).toEqual({ bids: [{ price: 0.52, size: 100 }, { price: 0.51, size: 3 }], asks: [{ price: 0.53, size: 4 }] });
    expect(rows[2]).not.toHaveProperty('orderbook_up');
    expect(rows[2]!.orderbook_down).toEqual({ bids: [{ price: 0.4, size: 1 }], asks: [] });
    expect(rows[3]!.orderbook_up).toEqual({ bids: [{ price: 0.5, size: 1.5 }], asks: [{ price: 0.6, size: 2 }] });
    const b = rows.filter((r) => r.market_id === ids[1]);
    expect(b.slice(0, 3).map((r) => [r.id, r.time - (T0 + 300_000), r.price])).toEqual([[81_234_561, 3, 0], [81_234_563, 250, 0.0001], [81_234_566, 500, 1]]);
    expect(b.map((r) => r.price)).toContain(2e11 + 0.0003);
    expect(b.map((r) => r.price)).toContain(-5.25);
    expect(rows.filter((r) => r.market_id === ids[2]).slice(0, 2).map((r) => r.id)).toEqual([5_000_000, 5_000_003]);
  });
});
