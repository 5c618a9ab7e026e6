import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { CONDITION, FEE_SCHEDULE, gammaEventJson, gammaMarketJson, TOKEN_A, TOKEN_B } from '../test-support/gamma-events.js';
import { marketFromGamma, parseGammaEvents, type GammaMarket } from './gamma-market.js';

const START = Date.parse('2026-04-13T09:00:00Z');

function read(fields: Record<string, unknown>, event?: Record<string, unknown>): GammaMarket {
  const m = marketFromGamma(gammaMarketJson(fields), event);
  if ('skip' in m) throw new Error(`skipped: ${m.skip}`);
  return m;
}

describe('marketFromGamma', () => {
  it('reads a resolved 5m market as published: JSON in strings, window from the slug, Up won', () => {
    const event = gammaEventJson([]);
    expect(marketFromGamma(gammaMarketJson(), event)).toEqual({
      marketId: 'btc-updown-5m-1776070800',
      slug: 'btc-updown-5m-1776070800',
      conditionId: CONDITION,
      coin: 'BTC',
      marketType: '5m',
      startTime: START,
      endTime: START + 300_000,
      tokenUp: TOKEN_A,
      tokenDown: TOKEN_B,
      closed: true,
      winner: 'Up',
      fees: { rate: 0.07, exponent: 1, takerOnly: true, rebateRate: 0.2, buyFeeIn: 'shares' },
      eventId: '364410',
      tickSize: 0.01,
      minSize: 5,
    } satisfies GammaMarket);
  });

  it('keeps an open market without a winner, whatever its prices', () => {
    const m = read({ slug: 'eth-updown-15m-1776070800', closed: false, outcomePrices: '["0.515", "0.485"]', umaResolutionStatus: null });
    expect(m).toMatchObject({ marketId: 'eth-updown-15m-1776070800', coin: 'ETH', marketType: '15m', closed: false, winner: null, endTime: START + 900_000 });
    expect(read({ closed: false, outcomePrices: '["1", "0"]' }).winner).toBeNull();
  });

  it('gives no winner for a closed market whose prices are not 1 and 0', () => {
    expect(read({ outcomePrices: '["0.5", "0.5"]' }).winner).toBeNull();
    expect(read({ outcomePrices: '["1", "1"]' }).winner).toBeNull();
    expect(read({ outcomePrices: undefined }).winner).toBeNull();
  });

  it('takes the tokens and the winner by the outcomes order (Down listed first)', () => {
    const m = read({ outcomes: '["down", "UP"]', outcomePrices: '["1", "0"]' });
    expect(m).toMatchObject({ tokenUp: TOKEN_B, tokenDown: TOKEN_A, winner: 'Down' });
    expect(read({ outcomes: '["Down", "Up"]', outcomePrices: '["0", "1"]' }).winner).toBe('Up');
  });

  it('reads positionIds (a real array) where clobTokenIds is absent', () => {
    const m = read({ clobTokenIds: undefined, positionIds: [TOKEN_A, TOKEN_B] });
    expect([m.tokenUp, m.tokenDown]).toEqual([TOKEN_A, TOKEN_B]);
  });

  it('reads token ids written as bare JSON numbers digit for digit, never through a double', () => {
    const m = read({ clobTokenIds: `[${TOKEN_A}, ${TOKEN_B}]` });
    expect([m.tokenUp, m.tokenDown]).toEqual([TOKEN_A, TOKEN_B]);
  });

  it('accepts numbers given as strings, lower-cases the condition id, takes the event id from the event', () => {
    const m = read({ orderPriceMinTickSize: '0.001', orderMinSize: '5', closed: 'true', conditionId: CONDITION.toUpperCase().replace('0X', '0x') }, gammaEventJson([], { id: 364411 }));
    expect(m).toMatchObject({ tickSize: 0.001, minSize: 5, closed: true, conditionId: CONDITION, eventId: '364411' });
    expect(read({ orderPriceMinTickSize: undefined, orderMinSize: 'n/a' })).toMatchObject({ tickSize: null, minSize: null, eventId: null });
  });

  it('pays a buy fee in shares before 2026-04-28 and in USDC from then (the era table)', () => {
    const before = read({ slug: 'btc-updown-5m-1777334100' });
    const from = read({ slug: 'btc-updown-5m-1777334400' });
    expect(before.fees?.buyFeeIn).toBe('shares');
    expect(from.fees).toEqual({ ...FEE_SCHEDULE, buyFeeIn: 'usdc' });
  });

  it('gives a zero schedule when fees are off, and null when Gamma says nothing of fees', () => {
    expect(read({ feesEnabled: false, feeSchedule: undefined }).fees).toEqual({ rate: 0, exponent: 1, takerOnly: false, rebateRate: 0, buyFeeIn: 'shares' });
    expect(read({ feesEnabled: undefined, feeSchedule: undefined, feeType: undefined }).fees).toBeNull();
    expect(read({ feeSchedule: { rate: 'x', exponent: 1 } }).fees).toBeNull();
    expect(read({ feeSchedule: { rate: '0.25', exponent: '2' } }).fees).toEqual({ rate: 0.25, exponent: 2, takerOnly: false, rebateRate: 0, buyFeeIn: 'shares' });
  });

  it('maps every coin word and type of the epoch slugs', () => {
    expect(read({ slug: 'sol-updown-4h-1776067200' })).toMatchObject({ marketId: 'sol-updown-4hr-1776067200', coin: 'SOL', marketType: '4hr', endTime: 1776067200_000 + 4 * 3_600_000 });
    expect(read({ slug: 'eth-updown-1h-1776070800' })).toMatchObject({ marketId: 'eth-updown-1hr-1776070800', marketType: '1hr' });
  });

  it('places an hourly market by eventStartTime, else endDate, else its slug in New York time', () => {
    const slug = 'bitcoin-up-or-down-april-13-5am-et';
    const want = { marketId: 'btc-updown-1hr-1776070800', startTime: START, endTime: START + 3_600_000, marketType: '1hr' };
    expect(read({ slug, eventStartTime: '2026-04-13T09:00:00Z', endDate: '2026-04-13T10:00:00Z' })).toMatchObject(want);
    expect(read({ slug, eventStartTime: undefined, endDate: '2026-04-13T10:00:00Z' })).toMatchObject(want);
    expect(read({ slug, eventStartTime: '1776070800', endDate: undefined })).toMatchObject(want);
    expect(read({ slug, eventStartTime: undefined, endDate: undefined })).toMatchObject(want);
    const m = marketFromGamma(gammaMarketJson({ slug, eventStartTime: undefined, endDate: undefined, startDate: undefined }));
    expect(m).toEqual({ skip: 'no eventStartTime, endDate or startDate: the slug has no year' });
  });

  it('places a daily market noon to noon New York time, ending on the day its slug names', () => {
    const slug = 'solana-up-or-down-on-april-13';
    const want = { marketId: 'sol-updown-24hr-1776009600', marketType: '24hr', startTime: Date.parse('2026-04-12T16:00:00Z'), endTime: Date.parse('2026-04-13T16:00:00Z') };
    expect(read({ slug, eventStartTime: undefined, endDate: '2026-04-13T16:00:00Z' })).toMatchObject(want);
    expect(read({ slug, eventStartTime: undefined, endDate: undefined })).toMatchObject(want);
    expect(read({ slug, eventStartTime: '2026-04-12T16:00:00Z', endDate: undefined })).toMatchObject(want);
  });

  it('passes over what it cannot keep, saying why', () => {
    expect(marketFromGamma(gammaMarketJson({ slug: 'xrp-updown-5m-1776070800' }))).toEqual({ skip: 'coin xrp is not served (BTC, ETH, SOL)' });
    expect(marketFromGamma(gammaMarketJson({ slug: 'will-the-fed-cut-rates-in-june' }))).toEqual({ skip: 'not a crypto Up or Down market' });
    expect(marketFromGamma(gammaMarketJson({ conditionId: '0x12' }))).toEqual({ skip: 'conditionId "0x12" is not 0x + 64 hex digits' });
    expect(marketFromGamma(gammaMarketJson({ outcomes: '["Yes", "No"]' }))).toMatchObject({ skip: expect.stringContaining('are not Up and Down') });
    expect(marketFromGamma(gammaMarketJson({ clobTokenIds: '[]' }))).toMatchObject({ skip: expect.stringContaining('two token ids') });
    expect(marketFromGamma('btc')).toEqual({ skip: 'not a market object' });
  });
});

describe('parseGammaEvents', () => {
  const btc = gammaEventJson([gammaMarketJson()]);
  const fed = gammaEventJson([gammaMarketJson({ slug: 'fed-decision-in-june', question: 'Fed decision in June?', outcomes: '["Yes", "No"]' })], { id: '90001', slug: 'fed-decision-in-june' });
  const eth = gammaEventJson([gammaMarketJson({ slug: 'eth-updown-5m-1776070800', conditionId: '0x' + 'cd'.repeat(32) })], { id: '364412' });

  it('reads the crypto markets of an answer and names what it passed over (a non-crypto event mixed in)', () => {
    const r = parseGammaEvents([btc, fed, eth], 'events.json');
    expect(r.markets.map((m) => m.marketId)).toEqual(['btc-updown-5m-1776070800', 'eth-updown-5m-1776070800']);
    expect(r.skipped).toEqual([{ slug: 'fed-decision-in-june', reason: 'not a crypto Up or Down market' }]);
  });

  it('reads a single event, and several answers in one array', () => {
    expect(parseGammaEvents(btc, 'one.json').markets).toHaveLength(1);
    expect(parseGammaEvents([[btc], [], [eth, fed]], 'many.json').markets).toHaveLength(2);
  });

  it('keeps each market once, the closed reading over an open one', () => {
    const open = gammaEventJson([gammaMarketJson({ closed: false, outcomePrices: '["0.6", "0.4"]' })]);
    for (const answers of [[[btc], [open]], [[open], [btc]]]) {
      const r = parseGammaEvents(answers, 'x.json');
      expect(r.markets).toHaveLength(1);
      expect(r.markets[0]!.winner).toBe('Up');
    }
  });

  it('refuses JSON of another shape with one line naming the source and what is wrong', () => {
    const cases: [unknown, string][] = [
      [42, 'f.json: not Gamma events: expected an array of events, got a number'],
      [['btc'], 'f.json: not Gamma events: item 1 is a string, not an event'],
      [[{ id: '1', title: 'x' }], 'f.json: not Gamma events: item 1 has no markets array'],
      [[gammaMarketJson()], 'f.json: not Gamma events: item 1 has no markets array (a /markets answer? save /events?slug=SLUG answers)'],
      [[[btc, null]], 'f.json: not Gamma events: answer 1 item 2 is null, not an event'],
    ];
    for (const [json, message] of cases) {
      const err = (() => {
        try {
          parseGammaEvents(json, 'f.json');
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toBe(message);
    }
  });
});
