// apiMarketSource over a seeded SQLite store: the library's reader (as docs/backtest.md calls it)
// and its client core give the same series, orderbooks included.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarketSeries } from '../../domain/market-series.js';
import type { MsnapReader } from '../../lib/reader.js';
import { seedStore } from '../../lib/server.js';
import { openStore } from '../../lib/store.js';
import { apiMarketSource } from './snapshot-series.js';

const NOW = Date.UTC(2025, 10, 22, 12, 2, 30);
const dir = mkdtempSync(path.join(tmpdir(), 'msnap-snapshot-series-'));
let reader: MsnapReader;

beforeAll(async () => {
  await seedStore(path.join(dir, 's.db'), { now: () => NOW, full: { '5m': 2 } });
  reader = await openStore(path.join(dir, 's.db'), { now: () => NOW });
});

afterAll(async () => {
  await reader?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each series as plain numbers: time, prices and the best up ask of every snapshot. */
async function flat(source: AsyncIterable<MarketSeries>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const s of source) {
    for (let i = 0; i < s.length; i++) out.push([s.market.market_id, s.time[i], s.price[i], s.priceUp[i], s.priceDown[i], s.book(i, 'up')?.asks.prices[0] ?? null]);
  }
  return out;
}

describe('apiMarketSource', () => {
  it("takes the library's reader as its client core", async () => {
    const markets = await reader.select({ coin: 'BTC', type: '5m', last: 2 });
    const range = { from: markets[0]!.start_time + 30_000 };
    const viaReader = await flat(apiMarketSource(reader, markets, range));
    expect(viaReader.length).toBeGreaterThan(1000);
    expect(viaReader).toEqual(await flat(apiMarketSource(reader.core, markets, range)));
  });
});
