import { describe, expect, it } from 'vitest';
import { normalizeMarket, normalizeSnapshot } from '../client/normalize.js';
import { contractNamesOfMarket, contractNamesOfSnapshot, dialectMarket, dialectSnapshot, type DialectName } from './dialect-records.js';
import { NO_DETAILS, type ServedMarket, type Snapshot } from './market.js';

const NOW = Date.UTC(2025, 10, 22, 12);
const market: ServedMarket = {
  market_id: 'eth-updown-1hr-1763769600',
  slug: 'eth-updown-1hr-1763769600',
  coin: 'ETH',
  market_type: '1hr',
  status: 'resolved',
  start_time: 1763769600000,
  end_time: 1763773200000,
  price_start: 3512.5,
  price_end: 3490.25,
  winner: 'Down',
  snapshot_count: 2400,
  ...NO_DETAILS,
  event_id: '123456',
  resolved_at: 1763773260000,
};
const snapshot: Snapshot = {
  id: 7,
  market_id: market.market_id,
  time: 1763769600125,
  price: 3512.75,
  price_up: 0.48,
  price_down: 0.53,
  orderbook_up: { bids: [{ price: 0.47, size: 10 }], asks: [] },
};

describe('dialect records', () => {
  it.each<DialectName>(['v2', 'v4'])('a %s market or snapshot maps back onto the contract record the client normalises', (dialect) => {
    const printed = JSON.parse(JSON.stringify(dialectMarket(dialect, market))) as Record<string, unknown>;
    expect(printed.price_start).toBeUndefined();
    const contract = Object.fromEntries(Object.keys(normalizeMarket(market, NOW)).map((k) => [k, market[k as keyof ServedMarket]]));
    // v2 and v4 carry no snapshot_count: the normaliser's documented 0.
    expect(normalizeMarket(contractNamesOfMarket(printed, 'ETH'), NOW)).toEqual({ ...contract, snapshot_count: 0 });
    const snap = JSON.parse(JSON.stringify(dialectSnapshot(dialect, snapshot, 'ETH'))) as Record<string, unknown>;
    expect(snap.eth_price).toBe(3512.75);
    expect(normalizeSnapshot(contractNamesOfSnapshot(snap, 'ETH'), market.market_id)).toEqual(snapshot);
  });

  it('prints v1 as the contract record plus coin prices and details', () => {
    const v1 = dialectMarket('v1', market);
    expect(Object.keys(v1).slice(0, 13)).toEqual([
      'market_id', 'slug', 'coin', 'market_type', 'status', 'start_time', 'end_time', 'price_start', 'price_end', 'winner',
      'snapshot_count', 'eth_price_start', 'eth_price_end',
    ]);
    expect(v1).toMatchObject({ event_id: '123456', resolved_at: 1763773260000, condition_id: null });
    expect(dialectMarket('v2', market)).toMatchObject({ market_type: '1hr', resolved_at: '2025-11-22T01:01:00.000Z' });
    expect(dialectMarket('v4', market)).toMatchObject({ market_type: '1h', resolved_at: 1763773260000 });
  });
});
