import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { parseSeedFlags } from './serve-seed.js';

const base = { db: '/tmp/x.db', days: '2', seed: '1' };

describe('parseSeedFlags orderbook window', () => {
  it('defaults to 10 minutes, takes minutes or days', () => {
    expect(parseSeedFlags(base, {}).orderbookMs).toBe(10 * 60_000);
    expect(parseSeedFlags({ ...base, orderbookMinutes: '0' }, {}).orderbookMs).toBe(0);
    expect(parseSeedFlags({ ...base, orderbookDays: '3' }, {}).orderbookMs).toBe(3 * 86_400_000);
  });

  it('refuses both flags, and days out of range', () => {
    expect(() => parseSeedFlags({ ...base, orderbookDays: '1', orderbookMinutes: '5' }, {})).toThrow(UsageError);
    expect(() => parseSeedFlags({ ...base, orderbookDays: '-1' }, {})).toThrow(/--orderbook-days must be an integer from 0 to 3650/);
    expect(() => parseSeedFlags({ ...base, orderbookDays: '1.5' }, {})).toThrow(UsageError);
  });
});
