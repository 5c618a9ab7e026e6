import { describe, expect, it } from 'vitest';
import { MalformedBodyError, normalizeErrorBody, normalizeLimits, normalizeMarket, normalizeSnapshot, toEpochMs } from './normalize.js';
import { toNumber } from '../domain/numeric-field.js';
import { maskKey, redactKey } from './mask-key.js';

const T0 = 1_763_769_600_000;

describe('scalars', () => {
  it('reads numbers and numeric strings, rejects the rest', () => {
    expect(toNumber(1.5)).toBe(1.5);
    expect(toNumber('97123.45')).toBe(97123.45);
    expect(toNumber('')).toBeUndefined();
    expect(toNumber('abc')).toBeUndefined();
    expect(toNumber(null)).toBeUndefined();
    expect(toNumber(Number.NaN)).toBeUndefined();
  });
  it('reads epoch ms, numeric strings and ISO 8601', () => {
    expect(toEpochMs(T0)).toBe(T0);
    expect(toEpochMs(String(T0))).toBe(T0);
    expect(toEpochMs('2025-11-22T00:00:00.125Z')).toBe(Date.parse('2025-11-22T00:00:00.125Z'));
    expect(toEpochMs('2025-11-22T01:00:00+01:00')).toBe(Date.parse('2025-11-22T00:00:00Z'));
    expect(toEpochMs('yesterday')).toBeUndefined();
  });
});

describe('normalizeMarket', () => {
  it('fills what the id implies, nulls missing optional fields, keeps contract order', () => {
    const m = normalizeMarket({ slug: 'sol-updown-1hr-1763769600' }, T0 + 10 * 3_600_000);
    expect(m).toEqual({
      market_id: 'sol-updown-1hr-1763769600', slug: 'sol-updown-1hr-1763769600', coin: 'SOL', market_type: '1hr',
      status: 'resolved', start_time: T0, end_time: T0 + 3_600_000, price_start: null, price_end: null, winner: null,
      snapshot_count: 0,
    });
  });
  it('takes price_start over btc_price_start and keeps an explicit status', () => {
    const m = normalizeMarket(
      { market_id: 'btc-updown-5m-1763769600', status: 'ACTIVE', price_start: '1', btc_price_start: 2, btc_price_end: '3', winner: 'DOWN' },
      0,
    );
    expect([m.status, m.price_start, m.price_end, m.winner]).toEqual(['active', 1, 3, 'Down']);
  });
  it('rejects a market without an id', () => {
    expect(() => normalizeMarket({ coin: 'BTC' }, 0)).toThrow(MalformedBodyError);
  });
});

describe('normalizeSnapshot', () => {
  it('reads orderbooks as {price, size} objects or [price, size] pairs (old exports) and gives {price, size}', () => {
    const s = normalizeSnapshot(
      {
        id: 1, time: T0, price: 1, price_up: 0.5, price_down: 0.5,
        orderbook_up: { bids: [['0.5', '10']], asks: [{ price: 0.51, size: '3' }] },
        orderbook_down: { bids: [], asks: [[0.5, 1]] },
      },
      'btc-updown-5m-1763769600',
    );
    expect(s.orderbook_up).toEqual({ bids: [{ price: 0.5, size: 10 }], asks: [{ price: 0.51, size: 3 }] });
    expect(s.orderbook_down).toEqual({ bids: [], asks: [{ price: 0.5, size: 1 }] });
    expect(Object.keys(s)).toEqual(['id', 'market_id', 'time', 'price', 'price_up', 'price_down', 'orderbook_up', 'orderbook_down']);
  });
  it('uses a row already in the contract shape as it is, and copies any other into contract fields and order', () => {
    const contract = { id: 7, market_id: 'btc-updown-5m-1763769600', time: T0, price: 97000.5, price_up: 0.52, price_down: 0.48 };
    expect(normalizeSnapshot(contract, 'ignored')).toBe(contract);
    const expected = { ...contract };
    const variants: Record<string, unknown>[] = [
      { price_down: 0.48, price_up: 0.52, price: 97000.5, time: T0, market_id: contract.market_id, id: 7 },
      { ...contract, extra: 'dropped' },
      { id: 7, time: T0, price: 97000.5, price_up: 0.52, price_down: 0.48 },
      { id: '7', market_id: contract.market_id, time: String(T0), price: '97000.5', price_up: 0.52, price_down: 0.48 },
      { id: 7, market_id: contract.market_id, time: new Date(T0).toISOString(), btc_price: 97000.5, price_up: 0.52, price_down: 0.48 },
    ];
    for (const v of variants) {
      const s = normalizeSnapshot(v, contract.market_id);
      expect(s).not.toBe(v);
      expect(s).toEqual(expected);
      expect(Object.keys(s)).toEqual(Object.keys(expected));
    }
  });
  it('rejects a snapshot without a price', () => {
    expect(() => normalizeSnapshot({ time: T0, price_up: 0.5, price_down: 0.5 }, 'x')).toThrow(/price/);
  });
});

describe('normalizeErrorBody', () => {
  it('uses message, else error; reads tier and retry_after', () => {
    expect(normalizeErrorBody({ error: 'Forbidden', message: 'window', tier: 'builder' })).toEqual({ error: 'Forbidden', message: 'window', tier: 'builder', retryAfter: null });
    expect(normalizeErrorBody({ error: 'market not found' })).toEqual({ error: 'market not found', message: null, tier: null, retryAfter: null });
    expect(normalizeErrorBody({ error: 'Too Many Requests', retry_after: '3' }).retryAfter).toBe(3);
    expect(normalizeErrorBody({ error: { message: 'nested', code: 'E1' } })).toMatchObject({ error: 'E1', message: 'nested' });
    expect(normalizeErrorBody('<html>proxy</html>').message).toBe('<html>proxy</html>');
    expect(normalizeErrorBody(undefined).message).toBeNull();
  });
});

describe('normalizeLimits', () => {
  it('reads the contract body with numeric strings and nulls', () => {
    const l = normalizeLimits({
      plan: 'pro', trial: null, rate_limit: { requests_per_minute: '750', burst_per_second: 40 },
      data_window: null, api_keys: { active: 2, max: null }, usage: { remaining: 700, reset: '1763769660' },
    });
    expect(l).toEqual({
      plan: 'pro', trial: null, rate_limit: { requests_per_minute: 750, burst_per_second: 40 }, data_window: null,
      api_keys: { active: 2, max: null }, usage: { remaining: 700, reset: 1763769660 },
    });
  });
});

describe('maskKey', () => {
  it('shows the first 8 characters of a normal key and at most a third of a short one', () => {
    expect(maskKey('msk_abcdefghijklmnopqrstuvwxyz')).toBe('msk_abcd…');
    expect(maskKey('abcdef')).toBe('ab…');
    expect(maskKey('')).toBe('…');
    expect(redactKey('bad key msk_abcdefghijklmnopqrstu here', 'msk_abcdefghijklmnopqrstu')).toBe('bad key msk_abcd… here');
  });
});
