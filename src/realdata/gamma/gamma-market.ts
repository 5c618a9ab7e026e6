// One Gamma event's crypto Up or Down markets as msnap keeps them: ids, window, tokens, winner
// and fees. Gamma's fields are read as published (REALDATA.md §1): clobTokenIds, outcomes and
// outcomePrices are JSON encoded in strings; fields only third parties describe (positionIds,
// eventStartTime) are read tolerantly, numbers given as strings included.
import { UsageError } from '../../errors.js';
import { USDC_FEES_FROM } from '../../domain/fee-schedule.js';
import { MARKET_DURATION_MS, marketId, type Coin, type MarketType } from '../../domain/market.js';
import { easternHour, easternToUtc } from './eastern-time.js';
import { dailyWindowEnding, readGammaSlug, type SlugReading } from './market-slugs.js';

/** A market's fee schedule (BACKTEST.md "Fee schedule per market"): what the backtest and paper trading charge. */
export interface FeeSchedule {
  rate: number;
  exponent: number;
  takerOnly: boolean;
  rebateRate: number;
  buyFeeIn: 'usdc' | 'shares';
}

/** One Polymarket crypto Up or Down market, read from Gamma: what an import stores for it. */
export interface GammaMarket {
  /** msnap's id: `<coin>-updown-<type>-<window start epoch s>`. */
  marketId: string;
  /** Polymarket's slug. */
  slug: string;
  /** `0x` + 64 hex digits, lower-cased (the PMXT archive's `market`). */
  conditionId: string;
  coin: Coin;
  marketType: MarketType;
  /** The window, epoch ms. */
  startTime: number;
  endTime: number;
  tokenUp: string;
  tokenDown: string;
  closed: boolean;
  /** Polymarket's own result, from `outcomePrices` once closed; never computed from prices. */
  winner: 'Up' | 'Down' | null;
  /** Null when Gamma says nothing of fees (the backtest then takes the era's). */
  fees: FeeSchedule | null;
  eventId: string | null;
  tickSize: number | null;
  minSize: number | null;
}

/** What a batch of Gamma events gave: its markets, and every market passed over with why. */
export interface GammaReading {
  markets: GammaMarket[];
  skipped: { slug: string; reason: string }[];
}

export { USDC_FEES_FROM };

type Fields = Record<string, unknown>;

/**
 * Use to read one Gamma market (with its event, for the event id and window fields Gamma may
 * keep there): the market, or why it is passed over (not a crypto Up or Down market, a coin
 * msnap does not serve, a field that cannot be read).
 */
export function marketFromGamma(market: unknown, event?: unknown): GammaMarket | { skip: string } {
  if (!isFields(market)) return { skip: 'not a market object' };
  const ev = isFields(event) ? event : undefined;
  const slug = text(market['slug']) ?? text(ev?.['slug']);
  if (slug === undefined) return { skip: 'no slug' };
  const reading = readGammaSlug(slug);
  if (!reading) return { skip: 'not a crypto Up or Down market' };
  if (!reading.coin) return { skip: `coin ${reading.coinWord} is not served (BTC, ETH, SOL)` };
  const window = windowOf(reading, market, ev);
  if ('skip' in window) return window;

  const conditionId = text(market['conditionId']);
  if (conditionId === undefined || !/^0x[0-9a-fA-F]{64}$/.test(conditionId)) return { skip: `conditionId ${JSON.stringify(conditionId ?? null)} is not 0x + 64 hex digits` };
  const outcomes = stringList(market['outcomes']);
  const up = outcomes?.findIndex((o) => o.toLowerCase() === 'up') ?? -1;
  const down = outcomes?.findIndex((o) => o.toLowerCase() === 'down') ?? -1;
  if (!outcomes || outcomes.length !== 2 || up < 0 || down < 0) return { skip: `outcomes ${JSON.stringify(market['outcomes'] ?? null)} are not Up and Down` };
  const tokens = stringList(market['clobTokenIds']) ?? stringList(market['positionIds']);
  if (!tokens || tokens.length !== 2 || !tokens.every((t) => /^\d+$/.test(t))) return { skip: 'no clobTokenIds or positionIds: two token ids' };

  const closed = flag(market['closed']) ?? false;
  return {
    marketId: marketId(reading.coin, reading.marketType, window.start),
    slug,
    conditionId: conditionId.toLowerCase(),
    coin: reading.coin,
    marketType: reading.marketType,
    startTime: window.start,
    endTime: window.end,
    tokenUp: tokens[up]!,
    tokenDown: tokens[down]!,
    closed,
    winner: closed ? winnerOf(stringList(market['outcomePrices']), up, down) : null,
    fees: feesOf(market, window.start),
    eventId: text(ev?.['id']) ?? eventIdInside(market),
    tickSize: amount(market['orderPriceMinTickSize']) ?? null,
    minSize: amount(market['orderMinSize']) ?? null,
  };
}

/**
 * Use on a Gamma `/events` answer (or several, or one event): every crypto Up or Down market in
 * it, each once (a closed reading wins over an open one, else the last), and what was passed
 * over. Throws a UsageError `${source}: …` when the JSON is not Gamma events.
 */
export function parseGammaEvents(json: unknown, source: string): GammaReading {
  const byId = new Map<string, GammaMarket>();
  const skipped: GammaReading['skipped'] = [];
  for (const [where, event] of eventsIn(json, source)) {
    const markets = event['markets'];
    if (!Array.isArray(markets)) {
      const hint = 'conditionId' in event || 'clobTokenIds' in event ? ' (a /markets answer? save /events?slug=SLUG answers)' : '';
      throw new UsageError(`${source}: not Gamma events: ${where} has no markets array${hint}`);
    }
    for (const m of markets) {
      const read = marketFromGamma(m, event);
      if ('skip' in read) {
        skipped.push({ slug: (isFields(m) ? text(m['slug']) : undefined) ?? text(event['slug']) ?? '?', reason: read.skip });
        continue;
      }
      const seen = byId.get(read.marketId);
      if (!seen || read.closed || !seen.closed) byId.set(read.marketId, read);
    }
  }
  return { markets: [...byId.values()], skipped };
}

/** The events of an answer, a list of answers, or a single event, each with where it stands (for messages). */
function eventsIn(json: unknown, source: string): [string, Fields][] {
  if (isFields(json)) return [['the event', json]];
  if (!Array.isArray(json)) throw new UsageError(`${source}: not Gamma events: expected an array of events, got ${kindOf(json)}`);
  const out: [string, Fields][] = [];
  json.forEach((item, i) => {
    if (Array.isArray(item)) {
      item.forEach((inner, j) => {
        if (!isFields(inner)) throw new UsageError(`${source}: not Gamma events: answer ${i + 1} item ${j + 1} is ${kindOf(inner)}, not an event`);
        out.push([`answer ${i + 1} item ${j + 1}`, inner]);
      });
    } else if (isFields(item)) out.push([`item ${i + 1}`, item]);
    else throw new UsageError(`${source}: not Gamma events: item ${i + 1} is ${kindOf(item)}, not an event`);
  });
  return out;
}

/**
 * The window. An epoch slug names its start. The hourly and daily slugs are names [u]: Gamma's
 * eventStartTime and endDate win over them; without either the slug is read in New York time
 * (it carries no year, so the year comes from startDate, else the market cannot be placed).
 */
function windowOf(reading: SlugReading, market: Fields, ev: Fields | undefined): { start: number; end: number } | { skip: string } {
  if ('startTime' in reading) return { start: reading.startTime, end: reading.startTime + MARKET_DURATION_MS[reading.marketType] };
  const pick = (key: string) => instant(market[key]) ?? instant(ev?.[key]);
  const eventStart = pick('eventStartTime') ?? pick('startTime');
  const endDate = pick('endDate');
  if (reading.marketType === '1hr') {
    if (eventStart !== undefined) return { start: eventStart, end: eventStart + MARKET_DURATION_MS['1hr'] };
    if (endDate !== undefined) return { start: endDate - MARKET_DURATION_MS['1hr'], end: endDate };
  } else if (endDate !== undefined) {
    const e = easternHour(endDate - 1);
    const start = eventStart ?? dailyWindowEnding(e.year, e.month, e.day).start;
    return endDate > start ? { start, end: endDate } : { skip: `window ${new Date(start).toISOString()} to ${new Date(endDate).toISOString()} is empty` };
  } else if (eventStart !== undefined) {
    const e = easternHour(eventStart);
    return { start: eventStart, end: dailyWindowEnding(e.year, e.month, e.day + 1).end };
  }
  const year = reading.eastern.year ?? yearOf(pick('startDate'));
  if (year === undefined) return { skip: 'no eventStartTime, endDate or startDate: the slug has no year' };
  if (reading.marketType === '1hr') {
    const start = easternToUtc({ year, ...reading.eastern });
    return { start, end: start + MARKET_DURATION_MS['1hr'] };
  }
  return dailyWindowEnding(year, reading.eastern.month, reading.eastern.day);
}

function yearOf(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : easternHour(ms).year;
}

/** `outcomePrices` once closed: the outcome at "1" (the other at "0"); anything else is not a result. */
function winnerOf(prices: string[] | undefined, up: number, down: number): 'Up' | 'Down' | null {
  if (!prices || prices.length !== 2) return null;
  const u = Number(prices[up]);
  const d = Number(prices[down]);
  if (u === 1 && d === 0) return 'Up';
  if (u === 0 && d === 1) return 'Down';
  return null;
}

/**
 * The fee schedule: Gamma's `feeSchedule` when fees are enabled (or not said to be off); a zero
 * schedule when `feesEnabled` is false (Gamma saying "no fee" is not Gamma saying nothing); null
 * when Gamma gives no schedule. The unit a buy's fee is paid in is not published per market: it
 * comes from the era of the market's start.
 */
function feesOf(market: Fields, start: number): FeeSchedule | null {
  const buyFeeIn = start >= USDC_FEES_FROM ? 'usdc' : 'shares';
  const enabled = flag(market['feesEnabled']);
  if (enabled === false) return { rate: 0, exponent: 1, takerOnly: false, rebateRate: 0, buyFeeIn };
  const s = market['feeSchedule'];
  if (!isFields(s)) return null;
  const rate = amount(s['rate']);
  const exponent = amount(s['exponent']);
  if (rate === undefined || exponent === undefined || rate < 0) return null;
  return { rate, exponent, takerOnly: flag(s['takerOnly']) ?? false, rebateRate: amount(s['rebateRate']) ?? 0, buyFeeIn };
}

/** A market from `/markets` may carry its events inside it. */
function eventIdInside(market: Fields): string | null {
  const events = market['events'];
  return Array.isArray(events) && isFields(events[0]) ? (text(events[0]['id']) ?? null) : null;
}

function isFields(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** A non-empty string, or a number written as one (ids). */
function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** A finite number, or a string holding one. */
function amount(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

function flag(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return undefined;
}

/** An instant: RFC 3339 text, or epoch seconds or ms (told by magnitude), as a number or a string. */
function instant(v: unknown): number | undefined {
  const n = amount(v);
  if (n !== undefined) return n < 1e11 ? n * 1000 : n;
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * A list of strings given as an array or as JSON text of one. Token ids are integers beyond
 * 2^53: given as bare JSON numbers they are read from the text as digits, never through a double.
 */
function stringList(v: unknown): string[] | undefined {
  if (typeof v === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      return undefined;
    }
    if (!Array.isArray(parsed)) return undefined;
    if (parsed.every((x) => typeof x === 'string')) return parsed as string[];
    if (parsed.every((x) => typeof x === 'number')) return v.replace(/^\s*\[|\]\s*$/g, '').split(',').map((x) => x.trim());
    return undefined;
  }
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const x of v) {
    if (typeof x === 'string') out.push(x);
    else if (typeof x === 'number' && Number.isSafeInteger(x)) out.push(String(x));
    else return undefined;
  }
  return out;
}
