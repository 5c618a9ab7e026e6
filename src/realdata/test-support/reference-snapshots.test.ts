// Hand-worked cases, one per mapping rule of REALDATA.md. The market is 1 s long (8 ticks, S to
// S+875); every expected value below was worked out by hand from the rows of its case.
import { describe, expect, it } from 'vitest';
import { ndjsonLine } from '../../cli/output/json.js';
import { snapshotSchema } from '../../cli/output/schemas/record-schemas.js';
import { snapshotRowLayout } from '../../cli/output/schemas/snapshot-text.js';
import { writeSnapshotRows } from '../../store/core/snapshot-json.js';
import { pmxtRow, type PmxtRow } from './pmxt-fixture.js';
import {
  klinePricePoints,
  referenceNdjson,
  referenceNdjsonLine,
  referencePriceAt,
  referenceSnapshots,
  toSnapshot,
  type PricePoint,
  type ReferenceMarket,
} from './reference-snapshots.js';

const S = 1776081600000;
const COND = `0x${'c0'.repeat(32)}`;
const MARKET: ReferenceMarket = { marketId: 'btc-updown-5m-1776081600', start: S, end: S + 1000, tokenUp: 'UP', tokenDown: 'DOWN' };
const PRICE: PricePoint[] = [{ knownAt: S - 1, value: '97123.45' }];

function base(asset: string, at: number, received = at): PmxtRow {
  return pmxtRow({ timestamp_received: received, timestamp: at, market: COND, event_type: 'book', asset_id: asset });
}
function book(asset: string, at: number, bids: [string, string][], asks: [string, string][], received = at): PmxtRow {
  return { ...base(asset, at, received), event_type: 'book', bids: JSON.stringify(bids), asks: JSON.stringify(asks) };
}
function change(asset: string, at: number, side: 'BUY' | 'SELL', price: string, size: string, received = at): PmxtRow {
  return { ...base(asset, at, received), event_type: 'price_change', price, size, side };
}
function trade(asset: string, at: number, price: string, received = at): PmxtRow {
  return { ...base(asset, at, received), event_type: 'last_trade_price', price, size: '10', side: 'BUY', fee_rate_bps: 0 };
}
/** Books on both tokens before the start: up 0.48/0.52 (mid 0.5), down 0.47/0.53 (mid 0.5). */
const OPEN: PmxtRow[] = [book('UP', S - 10, [['0.48', '100']], [['0.52', '50']]), book('DOWN', S - 10, [['0.47', '10']], [['0.53', '20']])];

const at = (rows: PmxtRow[], t: number, prices = PRICE) => referenceSnapshots(rows, MARKET, prices).find((s) => s.time === t);
const upAt = (rows: PmxtRow[], t: number) => at(rows, t)?.price_up;

describe('referenceSnapshots: the grid and the gate', () => {
  it('writes one snapshot per 125 ms tick from start while < end, as msnap prints it', () => {
    const snaps = referenceSnapshots(OPEN, MARKET, PRICE);
    expect(snaps.map((s) => s.time - S)).toEqual([0, 125, 250, 375, 500, 625, 750, 875]);
    expect(referenceNdjsonLine(snaps[0]!)).toBe(
      '{"id":100000000,"market_id":"btc-updown-5m-1776081600","time":1776081600000,"price":97123.45,"price_up":0.5,"price_down":0.5,' +
        '"orderbook_up":{"bids":[{"price":0.48,"size":100}],"asks":[{"price":0.52,"size":50}]},' +
        '"orderbook_down":{"bids":[{"price":0.47,"size":10}],"asks":[{"price":0.53,"size":20}]}}\n',
    );
    expect(snaps[1]!.id).toBe(100_000_125);
    expect(referenceSnapshots(OPEN, { ...MARKET, marketRowid: 7 }, PRICE)[0]!.id).toBe(700_000_000);
  });

  it('writes nothing before both tokens have had a book', () => {
    const rows = [OPEN[0]!, book('DOWN', S + 300, [['0.47', '10']], [['0.53', '20']])];
    expect(referenceSnapshots(rows, MARKET, PRICE).map((s) => s.time - S)).toEqual([375, 500, 625, 750, 875]);
  });

  it('writes nothing before a price is known: a kline is known once closeTime ≤ t (ms or µs)', () => {
    const ms = klinePricePoints([{ closeTime: S + 250, close: '97000.1' }]);
    expect(referenceSnapshots(OPEN, MARKET, ms)[0]!.time).toBe(S + 250);
    const exactUs = klinePricePoints([{ closeTime: (S + 250) * 1000, close: '97000.1' }]);
    expect(referenceSnapshots(OPEN, MARKET, exactUs)[0]!.time).toBe(S + 250);
    const us = klinePricePoints([{ closeTime: (S + 250) * 1000 + 1, close: '97000.1' }]);
    expect(referenceSnapshots(OPEN, MARKET, us)[0]!.time).toBe(S + 375);
  });

  it('shows the last price known at t, never a later one, rounded half up to 4 decimals', () => {
    const points: PricePoint[] = [
      { knownAt: S - 1000, value: '97000.00005' },
      { knownAt: S + 125, value: '97123.45004999' },
      { knownAt: S + 126, value: '99999' },
    ];
    expect(referencePriceAt(points, S)).toBe('97000.0001');
    expect(referencePriceAt(points, S + 125)).toBe('97123.4500');
    expect(referencePriceAt(points, S + 250)).toBe('99999.0000');
    expect(referencePriceAt(points, S - 1001)).toBeUndefined();
  });

  it('skips a tick where a token has no displayed price (empty book, no trade)', () => {
    const rows = [...OPEN, book('UP', S + 100, [], []), book('UP', S + 300, [['0.4', '1']], [])];
    expect(referenceSnapshots(rows, MARKET, PRICE).map((s) => s.time - S)).toEqual([0, 375, 500, 625, 750, 875]);
  });

  it('writes nothing in a span the source did not cover, and waits for a new book after it', () => {
    const coverage = [
      { from: S, to: S + 250 },
      { from: S + 500, to: S + 1000 },
    ];
    const rows = [...OPEN, book('UP', S + 600, [['0.3', '1']], [['0.32', '1']]), book('DOWN', S + 700, [['0.6', '1']], [['0.7', '1']])];
    const snaps = referenceSnapshots(rows, MARKET, PRICE, { coverage });
    expect(snaps.map((s) => s.time - S)).toEqual([0, 125, 750, 875]);
    expect(snaps[2]).toMatchObject({ price_up: '0.3100', price_down: '0.6500' });
  });
});

describe('referenceSnapshots: no look-ahead and event order', () => {
  it('applies an event stamped exactly t at t, and one stamped t+1 only at the next tick', () => {
    const rows = [...OPEN, change('UP', S + 125, 'BUY', '0.5', '1'), change('UP', S + 251, 'SELL', '0.51', '1')];
    // 0.5/0.52 -> 0.51; then 0.5/0.51 -> 0.505.
    expect([upAt(rows, S), upAt(rows, S + 125), upAt(rows, S + 250), upAt(rows, S + 375)]).toEqual(['0.5000', '0.5100', '0.5100', '0.5050']);
  });

  it('orders by exchange timestamp, not by receipt', () => {
    // Received first but stamped later: the 0.44 bid lands after the 0.50 bid is removed.
    const rows = [...OPEN, change('UP', S + 200, 'BUY', '0.44', '1', S + 50), change('UP', S + 100, 'BUY', '0.5', '5', S + 300)];
    expect(upAt(rows, S + 125)).toBe('0.5100');
    expect(at(rows, S + 250)!.orderbook_up.bids).toEqual([
      { price: '0.5', size: '5' },
      { price: '0.48', size: '100' },
      { price: '0.44', size: '1' },
    ]);
  });

  it('breaks equal timestamps by timestamp_received, then by file order', () => {
    const byReceipt = [...OPEN, change('UP', S + 100, 'BUY', '0.49', '5', S + 110), change('UP', S + 100, 'BUY', '0.49', '7', S + 105)];
    expect(at(byReceipt, S + 125)!.orderbook_up.bids[0]).toEqual({ price: '0.49', size: '5' });
    const byFile = [...OPEN, change('UP', S + 100, 'BUY', '0.49', '5', S + 105), change('UP', S + 100, 'BUY', '0.49', '7', S + 105)];
    expect(at(byFile, S + 125)!.orderbook_up.bids[0]).toEqual({ price: '0.49', size: '7' });
  });

  it('ignores rows of other assets and, given its condition id, of other markets', () => {
    const other = `0x${'d1'.repeat(32)}`;
    const rows = [...OPEN, change('ELSE', S + 100, 'BUY', '0.51', '1'), { ...change('UP', S + 100, 'BUY', '0.51', '1'), market: other }];
    expect(referenceSnapshots(rows, { ...MARKET, conditionId: COND }, PRICE)[1]!.price_up).toBe('0.5000');
    expect(referenceSnapshots(rows, MARKET, PRICE)[1]!.price_up).toBe('0.5150');
  });
});

describe('referenceSnapshots: the displayed price', () => {
  it('takes the midpoint at a spread of exactly 0.10 and the last trade at 0.1001 (decimal, not float)', () => {
    // 0.55 - 0.45 is 0.10000000000000003 in binary floats: a float rule would wrongly fall back.
    const exact = [book('UP', S - 5, [['0.45', '1']], [['0.55', '1']]), OPEN[1]!, trade('UP', S - 4, '0.3')];
    expect(upAt(exact, S)).toBe('0.5000');
    expect(at(exact, S)!.rule_up).toBe('midpoint');
    const wide = [book('UP', S - 5, [['0.45', '1']], [['0.5501', '1']]), OPEN[1]!, trade('UP', S - 4, '0.3')];
    expect(upAt(wide, S)).toBe('0.3000');
    expect(at(wide, S)!.rule_up).toBe('last_trade');
  });

  it('with no trade yet: the wide midpoint, else the one best price there is', () => {
    const wide = [book('UP', S - 5, [['0.2', '1']], [['0.6', '1']]), OPEN[1]!];
    expect(at(wide, S)).toMatchObject({ price_up: '0.4000', rule_up: 'wide_midpoint' });
    const bidOnly = [book('UP', S - 5, [['0.3', '1']], []), OPEN[1]!];
    expect(at(bidOnly, S)).toMatchObject({ price_up: '0.3000', rule_up: 'one_side' });
    const askOnly = [book('UP', S - 5, [], [['0.7', '1']]), OPEN[1]!];
    expect(at(askOnly, S)).toMatchObject({ price_up: '0.7000', rule_up: 'one_side', orderbook_up: { bids: [], asks: [{ price: '0.7', size: '1' }] } });
    expect(at([...bidOnly, trade('UP', S + 1, '0.35')], S + 125)).toMatchObject({ price_up: '0.3500', rule_up: 'last_trade' });
  });

  it('takes each token on its own (price_down is not 1 - price_up)', () => {
    const rows = [book('UP', S - 5, [['0.6', '1']], [['0.62', '1']]), book('DOWN', S - 5, [['0.2', '1']], [['0.3', '1']])];
    expect(at(rows, S)).toMatchObject({ price_up: '0.6100', price_down: '0.2500' });
  });

  it('rounds a midpoint with 5 decimals half up to 4', () => {
    const rows = [book('UP', S - 5, [['0.4855', '1']], [['0.49', '1']]), book('DOWN', S - 5, [['0.4854', '1']], [['0.49', '1']])];
    // (0.4855 + 0.49) / 2 = 0.48775 -> 0.4878; (0.4854 + 0.49) / 2 = 0.4877.
    expect(at(rows, S)).toMatchObject({ price_up: '0.4878', price_down: '0.4877' });
    expect(referenceNdjsonLine(at(rows, S)!)).toContain('"price_up":0.4878,"price_down":0.4877');
  });
});

describe('referenceSnapshots: books', () => {
  it('keeps the top 8 levels of each side, best first, prices and sizes exactly', () => {
    const bids: [string, string][] = ['0.30', '0.31', '0.32', '0.33', '0.34', '0.35', '0.36', '0.37', '0.38', '0.29'].map((p) => [p, '1.500000']);
    const asks: [string, string][] = ['0.50', '0.49', '0.48', '0.47', '0.46', '0.45', '0.44', '0.43', '0.42', '0.41'].map((p) => [p, '2']);
    const snap = at([book('UP', S - 5, bids, asks), OPEN[1]!], S)!;
    expect(snap.orderbook_up.bids.map((l) => l.price)).toEqual(['0.38', '0.37', '0.36', '0.35', '0.34', '0.33', '0.32', '0.31']);
    expect(snap.orderbook_up.asks.map((l) => l.price)).toEqual(['0.41', '0.42', '0.43', '0.44', '0.45', '0.46', '0.47', '0.48']);
    expect(snap.orderbook_up.bids[0]!.size).toBe('1.5');
    // 0.41 - 0.38 = 0.03: the midpoint 0.395.
    expect(snap.price_up).toBe('0.3950');
  });

  it('removes a level on size 0 (BUY: bids, SELL: asks) and shows the next best', () => {
    const rows = [...OPEN, change('UP', S + 1, 'BUY', '0.46', '3'), change('UP', S + 100, 'BUY', '0.48', '0'), change('UP', S + 200, 'SELL', '0.52', '0')];
    expect(at(rows, S + 125)!.orderbook_up).toEqual({ bids: [{ price: '0.46', size: '3' }], asks: [{ price: '0.52', size: '50' }] });
    expect(upAt(rows, S + 125)).toBe('0.4900');
    expect(at(rows, S + 250)!.orderbook_up).toEqual({ bids: [{ price: '0.46', size: '3' }], asks: [] });
    expect(upAt(rows, S + 250)).toBe('0.4600');
  });

  it('treats "0.5" and "0.50" as one level', () => {
    const rows = [...OPEN, change('UP', S + 1, 'SELL', '0.520', '7')];
    expect(at(rows, S + 125)!.orderbook_up.asks).toEqual([{ price: '0.52', size: '7' }]);
  });

  it('replaces the whole book on a new book event', () => {
    const rows = [...OPEN, change('UP', S - 1, 'BUY', '0.47', '3'), book('UP', S + 100, [['0.4', '9']], [['0.45', '8']])];
    expect(at(rows, S)!.orderbook_up.bids).toHaveLength(2);
    expect(at(rows, S + 125)!.orderbook_up).toEqual({ bids: [{ price: '0.4', size: '9' }], asks: [{ price: '0.45', size: '8' }] });
  });

  it('changes nothing on tick_size_change', () => {
    const tick: PmxtRow = { ...base('UP', S + 100), event_type: 'tick_size_change', old_tick_size: '0.01', new_tick_size: '0.001' };
    const withTick = referenceNdjson(referenceSnapshots([...OPEN, tick], MARKET, PRICE));
    expect(withTick).toBe(referenceNdjson(referenceSnapshots(OPEN, MARKET, PRICE)));
  });
});

describe('referenceNdjsonLine matches msnap\'s own writers', () => {
  const rows = [book('UP', S - 5, [['0.4855', '120.500000'], ['0.01', '0.000001']], [['0.99', '1000000']]), OPEN[1]!, trade('UP', S + 10, '0.61')];
  const prices: PricePoint[] = [{ knownAt: S, value: '97123.45678' }];
  const snaps = referenceSnapshots(rows, { ...MARKET, marketRowid: 42 }, prices);

  it('prints what the exporter prints for the same record (snapshots --orderbook --ndjson)', () => {
    for (const s of snaps) expect(referenceNdjsonLine(s)).toBe(ndjsonLine(snapshotSchema(true), toSnapshot(s)));
  });

  it('prints what a local store writes from scaled values and stored book text', () => {
    const bookText = (b: (typeof snaps)[number]['orderbook_up']) => JSON.stringify(toSnapshot({ ...snaps[0]!, orderbook_up: b }).orderbook_up);
    const raw = snaps.map((s) => [
      s.time - S,
      Math.round(Number(s.price) * 1e4),
      Math.round(Number(s.price_up) * 1e4),
      Math.round(Number(s.price_down) * 1e4),
      bookText(s.orderbook_up),
      bookText(s.orderbook_down),
    ] as [number, number, number, number, string, string]);
    expect(writeSnapshotRows(raw, 42, MARKET.marketId, S, snapshotRowLayout('ndjson', true), true)).toBe(referenceNdjson(snaps));
  });
});
