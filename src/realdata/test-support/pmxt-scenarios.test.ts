import { describe, expect, it } from 'vitest';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { pmxtFileBytes, sortPmxtRows, type PmxtRow } from './pmxt-fixture.js';
import { DONE_WHEN_HOUR, doneWhenHour, generatePmxtEvents, scenarioMarket, splitIntoHourFiles, twoHourScenario } from './pmxt-scenarios.js';
import { referenceSnapshots } from './reference-snapshots.js';

const hourOf = (ms: number) => Math.floor(ms / 3_600_000) * 3_600_000;

describe('doneWhenHour', () => {
  const scenario = doneWhenHour();

  it('is one archive hour with two BTC 5m markets, one ETH 15m market and unrelated assets', () => {
    expect(scenario.files.map((f) => f.name)).toEqual(['polymarket_orderbook_2026-04-13T12.parquet']);
    expect(scenario.markets.map((m) => m.marketId)).toEqual(['btc-updown-5m-1776082200', 'btc-updown-5m-1776082500', 'eth-updown-15m-1776082500']);
    const unrelated = new Set(scenario.unrelated.flatMap((u) => u.assetIds));
    expect(scenario.rows.some((r) => unrelated.has(r.asset_id))).toBe(true);
    expect(scenario.rows.every((r) => hourOf(r.timestamp_received) === DONE_WHEN_HOUR)).toBe(true);
    expect(scenario.files[0]!.rows).toEqual(sortPmxtRows(scenario.rows));
  });

  it('gives every market each event type and each awkward case', () => {
    for (const m of scenario.markets) {
      const own = scenario.rows.filter((r) => r.market === m.conditionId);
      expect(new Set(own.map((r) => r.event_type))).toEqual(new Set(['book', 'price_change', 'last_trade_price', 'tick_size_change']));
      expect(new Set(own.map((r) => r.asset_id))).toEqual(new Set([m.tokenUp, m.tokenDown]));
      expect(own.some((r) => r.event_type === 'book' && (r.asks === '[]' || r.bids === '[]'))).toBe(true);
      expect(own.some((r) => r.event_type === 'price_change' && r.size === '0')).toBe(true);
      expect(own.some((r) => r.timestamp < m.start)).toBe(true);
      const times = own.map((r) => r.timestamp);
      expect(new Set(times).size).toBeLessThan(times.length);
      // In receipt order, exchange time goes backwards somewhere.
      expect(own.some((r, i) => i > 0 && r.timestamp < own[i - 1]!.timestamp)).toBe(true);
    }
  });

  it('reports best_bid/best_ask on each price_change as the book stands after it', () => {
    const books = new Map<string, { bids: Map<string, string>; asks: Map<string, string> }>();
    const ordered = scenario.rows.map((r, i) => ({ r, i })).sort((a, b) => a.r.timestamp - b.r.timestamp || a.i - b.i).map((x) => x.r);
    // Rows sharing an asset and timestamp may have been produced in another order than received: not checked.
    const shared = new Map<string, number>();
    for (const r of ordered) shared.set(`${r.asset_id} ${r.timestamp}`, (shared.get(`${r.asset_id} ${r.timestamp}`) ?? 0) + 1);
    const best = (m: Map<string, string>, max: boolean) => {
      const ps = [...m.keys()].map(Number);
      return ps.length === 0 ? null : (max ? Math.max(...ps) : Math.min(...ps)).toFixed(2);
    };
    let checked = 0;
    for (const r of ordered) {
      if (r.event_type === 'book') {
        books.set(r.asset_id, { bids: new Map(JSON.parse(r.bids!) as [string, string][]), asks: new Map(JSON.parse(r.asks!) as [string, string][]) });
      }
      if (r.event_type !== 'price_change') continue;
      const b = books.get(r.asset_id)!;
      const side = r.side === 'BUY' ? b.bids : b.asks;
      if (r.size === '0') side.delete(r.price!);
      else side.set(r.price!, r.size!);
      if (shared.get(`${r.asset_id} ${r.timestamp}`)! > 1) continue;
      expect([r.best_bid, r.best_ask]).toEqual([best(b.bids, true), best(b.asks, false)]);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('is the same for the same seed and differs for another', () => {
    expect(doneWhenHour(1).rows).toEqual(scenario.rows);
    expect(doneWhenHour(3).rows).not.toEqual(scenario.rows);
  });

  it('rebuilds into a full 5m market and writes a file that reads back row for row', async () => {
    const btc = scenario.markets[0]!;
    const snaps = referenceSnapshots(scenario.rows, { ...btc, marketId: btc.marketId }, [{ knownAt: btc.start - 1, value: '97000' }]);
    expect(snaps.length).toBeGreaterThan(2300);
    expect(snaps.length).toBeLessThanOrEqual(2400);
    const bytes = await pmxtFileBytes(scenario.files[0]!.rows);
    const rows = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, compressors, columns: ['asset_id', 'event_type'] });
    expect(rows.map((r) => `${r.asset_id} ${r.event_type}`)).toEqual(scenario.files[0]!.rows.map((r) => `${r.asset_id} ${r.event_type}`));
  });
});

describe('splitIntoHourFiles and twoHourScenario', () => {
  const two = twoHourScenario();
  it('cuts by the hour of timestamp_received, each file sorted as published', () => {
    const { files, rows, markets } = two;
    expect(files.map((f) => f.name)).toEqual(['polymarket_orderbook_2026-04-13T11.parquet', 'polymarket_orderbook_2026-04-13T12.parquet']);
    expect(files.flatMap((f) => f.rows).length).toBe(rows.length);
    for (const f of files) {
      expect(f.rows.every((r) => hourOf(r.timestamp_received) === f.hour)).toBe(true);
      expect(f.rows).toEqual(sortPmxtRows(f.rows));
    }
    // The closing market has events stamped before 12:00 but received after it; the opening one has pre-open events in 11:00.
    const [closing, opening] = markets;
    expect(files[1]!.rows.some((r: PmxtRow) => r.market === closing!.conditionId && r.timestamp < DONE_WHEN_HOUR)).toBe(true);
    expect(files[0]!.rows.some((r: PmxtRow) => r.market === opening!.conditionId)).toBe(true);
  });

  it('rebuilds the same snapshots from the concatenated hour files as from the stream', () => {
    const { files, rows, markets } = two;
    const price = [{ knownAt: 0, value: '97000' }];
    for (const m of markets) {
      expect(referenceSnapshots(files.flatMap((f) => f.rows), m as never, price)).toEqual(referenceSnapshots(rows, m as never, price));
    }
  });

  it('builds market specs with 0x + 64 hex condition ids and 77-digit token ids', () => {
    const m = scenarioMarket('x', 0, 300_000);
    expect(m.conditionId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(m.tokenUp).toMatch(/^\d{77}$/);
    expect(m.tokenUp).not.toBe(m.tokenDown);
    expect(splitIntoHourFiles([])).toEqual([]);
  });
});
