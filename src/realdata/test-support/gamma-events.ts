// Gamma events as `GET /events?slug=` answers them (REALDATA.md §1): JSON encoded in strings
// where Gamma does that, and the other fields a real answer carries around the ones msnap reads.

/** A condition id of the published form (0x + 64 hex digits). */
export const CONDITION = '0x' + 'ab12'.repeat(16);
/** Token ids as Polymarket writes them: decimal integers far beyond 2^53. */
export const TOKEN_A = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
export const TOKEN_B = '52114319501245915516055106046884209969926127482827954674443846427813813222426';

/** The fee schedule Gamma gives a market from 2026-04-28 on. */
export const FEE_SCHEDULE = { exponent: 1, rate: 0.07, takerOnly: true, rebateRate: 0.2 };

/** Use for one market of an event: defaults of a resolved 5m BTC market (Up won), overridden by `fields`. */
export function gammaMarketJson(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: '1898271',
    question: 'Bitcoin Up or Down - April 13, 5:00AM-5:05AM ET',
    conditionId: CONDITION,
    slug: 'btc-updown-5m-1776070800',
    resolutionSource: 'https://data.chain.link/streams/btc-usd',
    endDate: '2026-04-13T09:05:00Z',
    liquidity: '0',
    startDate: '2026-04-12T09:07:21.418Z',
    image: 'https://polymarket-upload.s3.us-east-2.amazonaws.com/BTC+fullsize.png',
    description: 'This market will resolve to "Up" if the Bitcoin price at the end of the time range specified in the title is greater than or equal to the price at the beginning of that range.',
    outcomes: '["Up", "Down"]',
    outcomePrices: '["1", "0"]',
    volume: '48213.770145',
    active: true,
    closed: true,
    marketMakerAddress: '',
    createdAt: '2026-04-12T09:06:44.012Z',
    updatedAt: '2026-04-13T09:06:12.551Z',
    new: false,
    featured: false,
    archived: false,
    restricted: true,
    groupItemThreshold: '0',
    questionID: '0x' + '9f'.repeat(32),
    enableOrderBook: true,
    orderPriceMinTickSize: 0.01,
    orderMinSize: 5,
    umaResolutionStatus: 'resolved',
    volumeNum: 48213.770145,
    endDateIso: '2026-04-13',
    startDateIso: '2026-04-12',
    hasReviewedDates: true,
    clobTokenIds: `["${TOKEN_A}", "${TOKEN_B}"]`,
    umaBond: '500',
    umaReward: '5',
    negRisk: false,
    ready: false,
    funded: false,
    acceptingOrders: false,
    eventStartTime: '2026-04-13T09:00:00Z',
    feesEnabled: true,
    feeType: 'crypto_fees',
    feeSchedule: FEE_SCHEDULE,
    ...fields,
  };
}

/** Use for one event holding `markets` (an answer is an array of these). */
export function gammaEventJson(markets: Record<string, unknown>[], fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: '364410',
    ticker: markets[0]?.['slug'] ?? 'event',
    slug: markets[0]?.['slug'] ?? 'event',
    title: 'Bitcoin Up or Down - April 13, 5:00AM-5:05AM ET',
    startDate: '2026-04-12T09:07:21.418Z',
    endDate: '2026-04-13T09:05:00Z',
    active: true,
    closed: true,
    archived: false,
    new: false,
    featured: false,
    restricted: true,
    liquidity: 0,
    volume: 48213.770145,
    openInterest: 0,
    enableOrderBook: true,
    negRisk: false,
    commentCount: 0,
    seriesSlug: 'btc-up-or-down-5m',
    tags: [{ id: '21', label: 'Crypto', slug: 'crypto' }, { id: '102127', label: 'Up or Down', slug: 'up-or-down' }],
    markets,
    ...fields,
  };
}
