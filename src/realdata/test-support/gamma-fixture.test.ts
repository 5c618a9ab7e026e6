import { describe, expect, it } from 'vitest';
import { dailySlug, gammaEventsBody, gammaTime, hourlySlug, updownSlug, type GammaMarketSpec } from './gamma-fixture.js';

const START = Date.UTC(2026, 3, 13, 12, 10);
const SPEC: GammaMarketSpec = {
  slug: updownSlug('btc', '5m', START),
  conditionId: `0x${'ab'.repeat(32)}`,
  tokenUp: '1'.repeat(77),
  tokenDown: '2'.repeat(77),
  start: START,
  end: START + 300_000,
};
const marketOf = (spec: GammaMarketSpec) => (JSON.parse(gammaEventsBody([spec])) as { markets: Record<string, unknown>[] }[])[0]!.markets[0]!;

describe('slugs', () => {
  it('names 5m, 15m and 4h markets by their start in epoch seconds', () => {
    expect(SPEC.slug).toBe('btc-updown-5m-1776082200');
    expect(updownSlug('eth', '15m', START)).toBe('eth-updown-15m-1776082200');
    expect(updownSlug('sol', '4h', Date.UTC(2026, 3, 13, 12))).toBe('sol-updown-4h-1776081600');
  });

  it('names hourly and daily markets by New York time, daylight saving included', () => {
    expect(hourlySlug('btc', Date.UTC(2026, 3, 13, 12))).toBe('bitcoin-up-or-down-april-13-8am-et');
    expect(hourlySlug('btc', Date.UTC(2026, 0, 13, 13))).toBe('bitcoin-up-or-down-january-13-8am-et');
    expect(hourlySlug('eth', Date.UTC(2026, 3, 13, 16))).toBe('ethereum-up-or-down-april-13-12pm-et');
    expect(hourlySlug('btc', Date.UTC(2026, 3, 14, 4))).toBe('bitcoin-up-or-down-april-14-12am-et');
    expect(dailySlug('btc', Date.UTC(2026, 3, 14, 3))).toBe('bitcoin-up-or-down-on-april-13');
  });
});

describe('gammaEventsBody', () => {
  it('encodes clobTokenIds, outcomes and outcomePrices as JSON strings, with Gamma\'s other fields around them', () => {
    const body = gammaEventsBody([SPEC]);
    const events = JSON.parse(body) as Record<string, unknown>[];
    expect(Array.isArray(events)).toBe(true);
    const m = marketOf(SPEC);
    expect(typeof m.clobTokenIds).toBe('string');
    expect(JSON.parse(m.clobTokenIds as string)).toEqual([SPEC.tokenUp, SPEC.tokenDown]);
    expect(JSON.parse(m.outcomes as string)).toEqual(['Up', 'Down']);
    expect(JSON.parse(m.outcomePrices as string)).toEqual(['0.505', '0.495']);
    expect(m).toMatchObject({ conditionId: SPEC.conditionId, slug: SPEC.slug, endDate: '2026-04-13T12:15:00Z', eventStartTime: '2026-04-13T12:10:00Z', active: true, closed: false, orderPriceMinTickSize: 0.01, orderMinSize: 5, feesEnabled: true });
    expect(m.feeSchedule).toEqual({ exponent: 1, rate: 0.07, takerOnly: true, rebateRate: 0.2 });
    // startDate is when the market was created, not its window start.
    expect(m.startDate).toBe('2026-04-12T12:10:03.512Z');
    for (const noise of ['id', 'question', 'description', 'volume', 'liquidity', 'umaResolutionStatus', 'feeType']) expect(m).toHaveProperty(noise);
    expect(gammaEventsBody([])).toBe('[]');
  });

  it('resolves with outcomePrices 1/0 in outcome order, closed', () => {
    expect(marketOf({ ...SPEC, state: 'resolved', winner: 'Up' })).toMatchObject({ closed: true, outcomePrices: '["1","0"]', umaResolutionStatus: 'resolved' });
    expect(marketOf({ ...SPEC, state: 'resolved', winner: 'Down' })).toMatchObject({ closed: true, outcomePrices: '["0","1"]' });
    expect(marketOf({ ...SPEC, state: 'resolved', winner: 'Up', order: 'down-up' })).toMatchObject({ outcomes: '["Down","Up"]', outcomePrices: '["0","1"]', clobTokenIds: JSON.stringify([SPEC.tokenDown, SPEC.tokenUp]) });
    expect(marketOf({ ...SPEC, state: 'closed-pending' })).toMatchObject({ closed: true, outcomePrices: '["0.505","0.495"]' });
  });

  it('gives CLOB v2 markets positionIds as a real array and no clobTokenIds', () => {
    const m = marketOf({ ...SPEC, clobVersion: 2 });
    expect(m.positionIds).toEqual([SPEC.tokenUp, SPEC.tokenDown]);
    expect(m).not.toHaveProperty('clobTokenIds');
    expect(marketOf({ ...SPEC, withoutEventStartTime: true })).not.toHaveProperty('eventStartTime');
  });

  it('prints RFC 3339 times', () => {
    expect(gammaTime(START)).toBe('2026-04-13T12:10:00Z');
    expect(gammaTime(START + 5)).toBe('2026-04-13T12:10:00.005Z');
  });
});
