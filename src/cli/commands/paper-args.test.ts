import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { parsePaperOrder, parsePaperPost, ttlArg } from './paper-args.js';

describe('parsePaperOrder', () => {
  it('takes a market id or COIN TYPE, a side, shares and the price limit of the action', () => {
    expect(parsePaperOrder('buy', ['BTC-UPDOWN-5M-1763769600', 'UP', '10'], '0.6')).toEqual({
      target: { marketId: 'btc-updown-5m-1763769600' }, side: 'up', action: 'buy', shares: 10, limit: 0.6,
    });
    expect(parsePaperOrder('sell', ['eth', '15m', 'down', '2.5'], undefined)).toEqual({ target: { coin: 'ETH', type: '15m' }, side: 'down', action: 'sell', shares: 2.5 });
    expect(parsePaperOrder('sell', ['sol', '1hr', 'down', '1'], '0').limit).toBe(0);
  });

  it.each([
    [['BTC', '5m', 'up'], /'BTC' needs a market type after it: msnap paper buy <market-id \| COIN TYPE> <up\|down> <shares>/],
    [['BTC', '5m'], /expected more arguments/],
    [['BTC', '5m', 'x', 'up', '1'], /expected fewer arguments/],
    [['BTC', '5m', 'sideways', '1'], /side must be up or down, got 'sideways'/],
    [['BTC', '5m', 'up', '0'], /shares must be a number > 0 in steps of 0.01/],
    [['BTC', '5m', 'up', '1.005'], /shares must be a number > 0 in steps of 0.01/],
    [['BTC', '5m', 'up', '-3'], /shares must be/],
    [['FOO', '5m', 'up', '1'], /unknown coin 'FOO'/],
    [['BTC', '2m', 'up', '1'], /unknown market type '2m'/],
    [['btc-updown-5m-1763769600', '5m', 'up', '1'], /a market id takes no market type/],
    [['nope', 'up', '1'], /'nope' is not a market id/],
  ])('refuses %j with one line', (args, message) => {
    expect(() => parsePaperOrder('buy', args, undefined)).toThrow(UsageError);
    expect(() => parsePaperOrder('buy', args, undefined)).toThrow(message);
  });

  it('checks the price limit as a probability', () => {
    expect(() => parsePaperOrder('buy', ['BTC', '5m', 'up', '1'], '1.5')).toThrow(/--max-price must be a probability from 0 to 1, got '1.5'/);
    expect(() => parsePaperOrder('sell', ['BTC', '5m', 'up', '1'], 'cheap')).toThrow(/--min-price must be a probability/);
  });
});

describe('parsePaperPost', () => {
  it('takes a market id or COIN TYPE, a side, an action, shares, --price and --ttl', () => {
    expect(parsePaperPost(['BTC', '5m', 'Up', 'BUY', '10'], '0.45', '30s')).toEqual({
      target: { coin: 'BTC', type: '5m' }, side: 'up', action: 'buy', shares: 10, price: 0.45, ttlMs: 30_000,
    });
    expect(parsePaperPost(['btc-updown-5m-1763769600', 'down', 'sell', '2.5'], '.6', undefined)).toEqual({
      target: { marketId: 'btc-updown-5m-1763769600' }, side: 'down', action: 'sell', shares: 2.5, price: 0.6,
    });
  });

  it.each([
    [['BTC', 'up', '10'], '0.4', /expected more arguments: msnap paper post/],
    [['BTC', '5m', 'up', '10'], '0.4', /'BTC' needs a market type after it/],
    [['BTC', '5m', 'up', 'hold', '10'], '0.4', /action must be buy or sell, got 'hold'/],
    [['BTC', '5m', 'up', 'buy', '10'], undefined, /--price is required/],
    [['BTC', '5m', 'up', 'buy', '10'], '1', /--price must be > 0 and < 1/],
    [['BTC', '5m', 'up', 'buy', '10'], '0', /--price must be > 0 and < 1/],
    [['BTC', '5m', 'up', 'buy', '10'], '1.2', /--price must be a probability/],
  ])('refuses %j --price %s with one line', (args, price, message) => {
    expect(() => parsePaperPost(args, price, undefined)).toThrow(UsageError);
    expect(() => parsePaperPost(args, price, undefined)).toThrow(message);
  });

  it('reads --ttl as a whole number with a unit, up to 31 days', () => {
    expect([ttlArg('500ms'), ttlArg('2m'), ttlArg('1H'), ttlArg('31d')]).toEqual([500, 120_000, 3_600_000, 31 * 86_400_000]);
    for (const bad of ['0s', '1.5s', '30', '32d', 'soon', '-1m']) expect(() => ttlArg(bad)).toThrow(/--ttl must be a time to live/);
  });
});
