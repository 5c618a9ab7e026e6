import { describe, expect, it } from 'vitest';
import { readClobFrame } from './clob-frames.js';

const T = '1776081600123';

describe('readClobFrame', () => {
  it('reads a book with unsorted levels, keeping every level as published', () => {
    const f = readClobFrame(
      JSON.stringify({ event_type: 'book', asset_id: 'u', market: '0xab', bids: [{ price: '0.48', size: '10' }, { price: '0.5', size: '3.25' }], asks: [{ price: '0.55', size: '1' }, { price: '0.52', size: '0' }], timestamp: T, hash: '0x1' }),
    );
    expect(f.bad).toEqual([]);
    expect(f.events).toEqual([
      { kind: 'book', ts: 1776081600123, token: 'u', bids: [{ price: 4800, size: 10_000_000 }, { price: 5000, size: 3_250_000 }], asks: [{ price: 5500, size: 1_000_000 }, { price: 5200, size: 0 }] },
    ]);
    expect(f.latest).toBe(1776081600123);
  });

  it('reads an array frame: a price_change of several assets (size 0 removes), a trade, and messages that move nothing', () => {
    const f = readClobFrame(
      JSON.stringify([
        { event_type: 'price_change', market: '0xab', timestamp: T, price_changes: [{ asset_id: 'u', price: '0.5', size: '0', side: 'BUY', hash: 'h', best_bid: '0.49', best_ask: '0.51' }, { asset_id: 'd', price: '0.51', size: '20', side: 'SELL' }] },
        { event_type: 'last_trade_price', asset_id: 'd', market: '0xab', price: '0.505', size: '5', fee_rate_bps: '0', side: 'BUY', timestamp: T },
        { event_type: 'tick_size_change', asset_id: 'u', market: '0xab', old_tick_size: '0.01', new_tick_size: '0.001', timestamp: T },
        { event_type: 'best_bid_ask', asset_id: 'u', market: '0xab', best_bid: '0.49', best_ask: '0.51', timestamp: T },
      ]),
    );
    expect(f.bad).toEqual([]);
    expect(f.events.map((e) => [e.kind, e.token])).toEqual([['level', 'u'], ['level', 'd'], ['trade', 'd']]);
    expect(f.events[0]).toMatchObject({ side: 'bid', price: 5000, size: 0 });
    expect(f.events[1]).toMatchObject({ side: 'ask', price: 5100, size: 20_000_000 });
    expect(f.events[2]).toMatchObject({ price: 5050 });
  });

  it('tells keep-alive from data, and counts what it cannot read without throwing', () => {
    expect(readClobFrame('PONG').keepAlive).toBe(true);
    expect(readClobFrame('{"event_type":"book","asset_id":').bad[0]).toMatch(/not JSON/);
    const f = readClobFrame(JSON.stringify([{ event_type: 'book', asset_id: 'u', bids: [], asks: [] }, { event_type: 'weird', timestamp: T }, 7, { event_type: 'last_trade_price', asset_id: 'u', price: 'x', timestamp: T }]));
    expect(f.events).toEqual([]);
    expect(f.bad).toEqual(['book without a timestamp', 'unknown event_type "weird"', 'a message that is not an object', 'last_trade_price that cannot be read']);
  });
});
