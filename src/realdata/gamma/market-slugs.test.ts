import { describe, expect, it } from 'vitest';
import { gammaSlug, readGammaSlug, windowStarts } from './market-slugs.js';

const at = (iso: string) => Date.parse(iso);

describe('gammaSlug', () => {
  it('writes the epoch slugs with the window start in seconds, floored to the window', () => {
    expect(gammaSlug('BTC', '5m', at('2026-04-13T09:00:00Z'))).toBe('btc-updown-5m-1776070800');
    expect(gammaSlug('BTC', '5m', at('2026-04-13T09:04:59.999Z'))).toBe('btc-updown-5m-1776070800');
    expect(gammaSlug('ETH', '15m', at('2026-04-13T09:14:00Z'))).toBe('eth-updown-15m-1776070800');
    expect(gammaSlug('SOL', '4hr', at('2026-04-13T09:00:00Z'))).toBe('sol-updown-4h-1776067200');
  });

  it('names an hourly market by the New York hour it starts, in summer and winter time', () => {
    expect(gammaSlug('BTC', '1hr', at('2026-04-13T09:00:00Z'))).toBe('bitcoin-up-or-down-april-13-5am-et');
    expect(gammaSlug('ETH', '1hr', at('2026-01-15T17:00:00Z'))).toBe('ethereum-up-or-down-january-15-12pm-et');
    expect(gammaSlug('SOL', '1hr', at('2026-01-15T05:30:00Z'))).toBe('solana-up-or-down-january-15-12am-et');
    expect(gammaSlug('BTC', '1hr', at('2026-07-04T03:00:00Z'))).toBe('bitcoin-up-or-down-july-3-11pm-et');
  });

  it('follows New York across the daylight-saving changes of 2026 (March 8, November 1)', () => {
    expect(gammaSlug('BTC', '1hr', at('2026-03-08T06:00:00Z'))).toBe('bitcoin-up-or-down-march-8-1am-et');
    expect(gammaSlug('BTC', '1hr', at('2026-03-08T07:00:00Z'))).toBe('bitcoin-up-or-down-march-8-3am-et');
    expect(gammaSlug('BTC', '1hr', at('2026-11-01T05:00:00Z'))).toBe('bitcoin-up-or-down-november-1-1am-et');
    expect(gammaSlug('BTC', '1hr', at('2026-11-01T06:00:00Z'))).toBe('bitcoin-up-or-down-november-1-1am-et');
    expect(gammaSlug('BTC', '1hr', at('2026-11-01T07:00:00Z'))).toBe('bitcoin-up-or-down-november-1-2am-et');
  });

  it('names a daily market by the day its noon-to-noon window ends', () => {
    expect(gammaSlug('BTC', '24hr', at('2026-04-12T16:00:00Z'))).toBe('bitcoin-up-or-down-on-april-13');
    expect(gammaSlug('BTC', '24hr', at('2026-04-13T15:59:59Z'))).toBe('bitcoin-up-or-down-on-april-13');
    expect(gammaSlug('ETH', '24hr', at('2026-12-31T17:00:00Z'))).toBe('ethereum-up-or-down-on-january-1');
  });

  it('writes slugs readGammaSlug reads back to the same market', () => {
    for (const [type, iso] of [['5m', '2026-04-13T09:05:00Z'], ['15m', '2026-04-13T09:15:00Z'], ['4hr', '2026-04-13T08:00:00Z']] as const) {
      expect(readGammaSlug(gammaSlug('ETH', type, at(iso)))).toEqual({ coinWord: 'eth', coin: 'ETH', marketType: type, startTime: at(iso) });
    }
    expect(readGammaSlug(gammaSlug('SOL', '1hr', at('2026-04-13T16:00:00Z')))).toEqual({ coinWord: 'solana', coin: 'SOL', marketType: '1hr', eastern: { month: 4, day: 13, hour: 12 } });
    expect(readGammaSlug('bitcoin-up-or-down-on-april-13')).toEqual({ coinWord: 'bitcoin', coin: 'BTC', marketType: '24hr', eastern: { month: 4, day: 13 } });
  });
});

describe('readGammaSlug', () => {
  it('knows an unserved coin from another market', () => {
    expect(readGammaSlug('xrp-updown-15m-1776070800')).toMatchObject({ coinWord: 'xrp', coin: undefined, marketType: '15m' });
    expect(readGammaSlug('will-bitcoin-reach-150k-in-2026')).toBeUndefined();
    expect(readGammaSlug('bitcoin-up-or-down-smarch-13-5am-et')).toBeUndefined();
    expect(readGammaSlug('bitcoin-up-or-down-april-13-13pm-et')).toBeUndefined();
  });

  it('reads 12am as midnight and 12pm as noon', () => {
    expect(readGammaSlug('bitcoin-up-or-down-april-13-12am-et')).toMatchObject({ eastern: { hour: 0 } });
    expect(readGammaSlug('bitcoin-up-or-down-april-13-12pm-et')).toMatchObject({ eastern: { hour: 12 } });
  });
});

describe('windowStarts', () => {
  it('lists every window overlapping [from, to), on multiples of its length', () => {
    expect(windowStarts('5m', at('2026-04-13T09:02:00Z'), at('2026-04-13T09:12:00Z')).map((t) => new Date(t).toISOString())).toEqual([
      '2026-04-13T09:00:00.000Z',
      '2026-04-13T09:05:00.000Z',
      '2026-04-13T09:10:00.000Z',
    ]);
    expect(windowStarts('5m', at('2026-04-13T09:00:00Z'), at('2026-04-13T09:05:00Z'))).toEqual([at('2026-04-13T09:00:00Z')]);
    expect(windowStarts('4hr', at('2026-04-13T09:00:00Z'), at('2026-04-13T12:00:01Z'))).toEqual([at('2026-04-13T08:00:00Z'), at('2026-04-13T12:00:00Z')]);
    expect(windowStarts('1hr', at('2026-04-13T09:30:00Z'), at('2026-04-13T10:00:00Z'))).toEqual([at('2026-04-13T09:00:00Z')]);
    expect(windowStarts('15m', 5, 5)).toEqual([]);
  });

  it('lists daily windows from noon to noon New York time, 23 hours long across the spring change', () => {
    const starts = windowStarts('24hr', at('2026-03-06T00:00:00Z'), at('2026-03-10T00:00:00Z'));
    expect(starts.map((t) => new Date(t).toISOString())).toEqual([
      '2026-03-05T17:00:00.000Z',
      '2026-03-06T17:00:00.000Z',
      '2026-03-07T17:00:00.000Z',
      '2026-03-08T16:00:00.000Z',
      '2026-03-09T16:00:00.000Z',
    ]);
    expect(windowStarts('24hr', at('2026-04-13T16:00:00Z'), at('2026-04-13T16:00:01Z'))).toEqual([at('2026-04-13T16:00:00Z')]);
  });
});
