// Gamma `/events?slug=` answers as published: an array of events, each with `markets[]` whose
// `clobTokenIds`, `outcomes` and `outcomePrices` are JSON encoded as strings, among the many other
// fields Gamma sends (kept so a parser is tested against the noise it will meet).

/** Coins the up/down series cover, with the words their hourly and daily slugs use. */
const COIN_WORDS = { btc: 'bitcoin', eth: 'ethereum', sol: 'solana', xrp: 'xrp' } as const;
export type GammaCoin = keyof typeof COIN_WORDS;

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** `btc-updown-5m-1776082200`: the slug of a 5m, 15m or 4h market starting at `startMs`. */
export function updownSlug(coin: GammaCoin, type: '5m' | '15m' | '4h', startMs: number): string {
  return `${coin}-updown-${type}-${Math.floor(startMs / 1000)}`;
}

/** The wall clock in New York (the hourly and daily slugs name ET times). */
function easternParts(ms: number): { month: number; day: number; hour: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', month: 'numeric', day: 'numeric', hour: 'numeric', hourCycle: 'h23' }).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return { month: get('month'), day: get('day'), hour: get('hour') };
}

/** `bitcoin-up-or-down-april-13-8am-et`: the hourly market starting at `startMs` (named in ET). */
export function hourlySlug(coin: GammaCoin, startMs: number): string {
  const { month, day, hour } = easternParts(startMs);
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  return `${COIN_WORDS[coin]}-up-or-down-${MONTHS[month - 1]}-${day}-${h12}${hour < 12 ? 'am' : 'pm'}-et`;
}

/** `bitcoin-up-or-down-on-april-13`: the daily market of the ET day holding `startMs`. */
export function dailySlug(coin: GammaCoin, startMs: number): string {
  const { month, day } = easternParts(startMs);
  return `${COIN_WORDS[coin]}-up-or-down-on-${MONTHS[month - 1]}-${day}`;
}

/** Gamma's fee schedule object. */
export interface GammaFeeSchedule {
  exponent: number;
  rate: number;
  takerOnly: boolean;
  rebateRate: number;
}

/** What a fixture market is: its ids, window and state; everything else gets realistic defaults. */
export interface GammaMarketSpec {
  slug: string;
  conditionId: string;
  tokenUp: string;
  tokenDown: string;
  /** The window [start, end) in epoch ms (Gamma's `startDate` is the creation time, a day earlier). */
  start: number;
  end: number;
  /** open: trading; resolved: closed with outcomePrices 1/0; closed-pending: closed, not yet resolved. Default open. */
  state?: 'open' | 'resolved' | 'closed-pending';
  /** With state resolved: the winning outcome. */
  winner?: 'Up' | 'Down';
  /** Outcome order in `outcomes` (tokens follow it). Default Up, Down. */
  order?: 'up-down' | 'down-up';
  /** CLOB version 2 markets carry `positionIds` (a real array) instead of `clobTokenIds`. */
  clobVersion?: 1 | 2;
  /** Leave `eventStartTime` out (older markets). */
  withoutEventStartTime?: boolean;
  feeSchedule?: GammaFeeSchedule;
}

/** Gamma's RFC 3339 form: `2026-04-13T12:10:00Z` (no fraction when whole seconds). */
export function gammaTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return ms % 1000 === 0 ? `${iso.slice(0, 19)}Z` : iso;
}

/** The fee schedule of 5m/15m markets from 2026-04-28 (BACKTEST.md). */
const DEFAULT_FEE_SCHEDULE: GammaFeeSchedule = { exponent: 1, rate: 0.07, takerOnly: true, rebateRate: 0.2 };

function numericId(text: string): string {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return String(500_000 + (h % 400_000));
}

/** One market object of an event, as Gamma sends it. */
function gammaMarket(spec: GammaMarketSpec): Record<string, unknown> {
  const state = spec.state ?? 'open';
  const upFirst = (spec.order ?? 'up-down') === 'up-down';
  const outcomes = upFirst ? ['Up', 'Down'] : ['Down', 'Up'];
  const tokens = upFirst ? [spec.tokenUp, spec.tokenDown] : [spec.tokenDown, spec.tokenUp];
  const upPrice = state === 'resolved' ? (spec.winner === 'Down' ? '0' : '1') : '0.505';
  const downPrice = state === 'resolved' ? (spec.winner === 'Down' ? '1' : '0') : '0.495';
  const prices = upFirst ? [upPrice, downPrice] : [downPrice, upPrice];
  const created = spec.start - 86_400_000 + 3_512;
  const closed = state !== 'open';
  const ids = spec.clobVersion === 2 ? { positionIds: tokens } : { clobTokenIds: JSON.stringify(tokens) };
  return {
    id: numericId(spec.slug),
    question: `Up or Down - ${spec.slug}`,
    conditionId: spec.conditionId,
    slug: spec.slug,
    resolutionSource: 'https://data.chain.link/streams/btc-usd',
    endDate: gammaTime(spec.end),
    liquidity: '12873.4521',
    startDate: gammaTime(created),
    image: 'https://polymarket-upload.s3.us-east-2.amazonaws.com/BTC+fullsize.png',
    icon: 'https://polymarket-upload.s3.us-east-2.amazonaws.com/BTC+fullsize.png',
    description: 'This market will resolve to "Up" if the price at the end of the time range is greater than or equal to the price at the beginning. Otherwise, it will resolve to "Down".',
    outcomes: JSON.stringify(outcomes),
    outcomePrices: JSON.stringify(prices),
    volume: '45210.338211',
    active: true,
    closed,
    marketMakerAddress: '',
    createdAt: new Date(created).toISOString(),
    updatedAt: new Date(closed ? spec.end + 61_000 : spec.start).toISOString(),
    new: false,
    featured: false,
    submitted_by: '0x91430CaD2d3975766499717fA0D66A78D814E5c5',
    archived: false,
    resolvedBy: '0x6A9D222616C90FcA5754cd1333cFD9b7fb6a4F74',
    restricted: true,
    groupItemTitle: '',
    questionID: `0x${'5'.repeat(64)}`,
    enableOrderBook: true,
    orderPriceMinTickSize: 0.01,
    orderMinSize: 5,
    umaResolutionStatus: state === 'resolved' ? 'resolved' : state === 'closed-pending' ? 'proposed' : '',
    volumeNum: 45210.338211,
    liquidityNum: 12873.4521,
    endDateIso: gammaTime(spec.end).slice(0, 10),
    startDateIso: gammaTime(created).slice(0, 10),
    hasReviewedDates: true,
    volume24hr: 45210.338211,
    ...ids,
    umaBond: '500',
    umaReward: '5',
    volume24hrClob: 45210.338211,
    volumeClob: 45210.338211,
    liquidityClob: 12873.4521,
    acceptingOrders: !closed,
    negRisk: false,
    ready: false,
    funded: false,
    cyom: false,
    competitive: 0.9875,
    pagerDutyNotificationEnabled: false,
    approved: true,
    rewardsMinSize: 50,
    rewardsMaxSpread: 4.5,
    spread: 0.01,
    oneDayPriceChange: 0.015,
    lastTradePrice: 0.51,
    bestBid: 0.5,
    bestAsk: 0.51,
    automaticallyActive: true,
    clearBookOnStart: true,
    manualActivation: false,
    negRiskOther: false,
    umaResolutionStatuses: '[]',
    pendingDeployment: false,
    deploying: false,
    rfqEnabled: false,
    ...(spec.withoutEventStartTime ? {} : { eventStartTime: gammaTime(spec.start) }),
    holdingRewardsEnabled: false,
    feesEnabled: true,
    requiresTranslation: false,
    feeType: 'crypto_fees',
    feeSchedule: spec.feeSchedule ?? DEFAULT_FEE_SCHEDULE,
  };
}

/** One event holding the market, as Gamma sends it. */
function gammaEvent(spec: GammaMarketSpec): Record<string, unknown> {
  const market = gammaMarket(spec);
  const series = spec.slug.replace(/-\d+$/, '');
  return {
    id: String(Number(market.id) + 1_000_000),
    ticker: spec.slug,
    slug: spec.slug,
    title: market.question,
    description: market.description,
    resolutionSource: market.resolutionSource,
    startDate: market.startDate,
    creationDate: market.startDate,
    endDate: market.endDate,
    image: market.image,
    icon: market.icon,
    active: true,
    closed: market.closed,
    archived: false,
    new: false,
    featured: false,
    restricted: true,
    liquidity: 12873.4521,
    volume: 45210.338211,
    openInterest: 0,
    createdAt: market.createdAt,
    updatedAt: market.updatedAt,
    competitive: 0.9875,
    volume24hr: 45210.338211,
    enableOrderBook: true,
    liquidityClob: 12873.4521,
    negRisk: false,
    commentCount: 3,
    markets: [market],
    series: [{ id: '10684', ticker: series, slug: series, title: series, seriesType: 'single', recurrence: series.split('-').at(-1), active: true, closed: false }],
    tags: [
      { id: '21', label: 'Crypto', slug: 'crypto', forceShow: false },
      { id: '102127', label: 'Up or Down', slug: 'up-or-down', forceShow: false },
    ],
    cyom: false,
    showAllOutcomes: true,
    showMarketImages: true,
    enableNegRisk: false,
    automaticallyActive: true,
    ...(spec.withoutEventStartTime ? {} : { eventStartTime: gammaTime(spec.start) }),
    seriesSlug: series,
    negRiskAugmented: false,
    pendingDeployment: false,
    deploying: false,
  };
}

/** Use as the body of `GET /events?slug=…`: the JSON array text (`[]` for an unknown slug). */
export function gammaEventsBody(specs: readonly GammaMarketSpec[]): string {
  return JSON.stringify(specs.map(gammaEvent));
}
