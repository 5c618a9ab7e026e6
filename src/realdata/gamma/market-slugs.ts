// Polymarket's slugs for the crypto Up or Down markets, both ways: the slug of msnap's market of
// a coin, type and window, and what a slug says about its market. The 5m, 15m and 4h slugs carry
// the window's start in epoch seconds (REALDATA.md); the hourly and daily ones are names in New
// York time known only from third parties (REALDATA.md marks them [u]), so a reader takes a
// market's window from Gamma's dates where it has them and from these names only as a fallback.
import { MARKET_DURATION_MS, type Coin, type MarketType } from '../../domain/market.js';
import { easternHour, easternToUtc } from './eastern-time.js';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** The slug's coin word of each coin: short in the epoch slugs, the full name in the hourly and daily ones. */
const SHORT_WORD: Record<Coin, string> = { BTC: 'btc', ETH: 'eth', SOL: 'sol' };
const NAME_WORD: Record<Coin, string> = { BTC: 'bitcoin', ETH: 'ethereum', SOL: 'solana' };
const COIN_OF_WORD: Readonly<Record<string, Coin>> = { btc: 'BTC', bitcoin: 'BTC', eth: 'ETH', ethereum: 'ETH', sol: 'SOL', solana: 'SOL' };

/** The epoch slugs' type words. */
const EPOCH_TYPE: Readonly<Record<string, MarketType>> = { '5m': '5m', '15m': '15m', '1h': '1hr', '4h': '4hr' };
const EPOCH_WORD: Partial<Record<MarketType, string>> = { '5m': '5m', '15m': '15m', '4hr': '4h' };

/** What a slug says: its coin word (and coin, when msnap serves it), type, and window as far as the slug tells it. */
export type SlugReading = { coinWord: string; coin: Coin | undefined } & (
  | { marketType: MarketType; startTime: number }
  | { marketType: '1hr'; eastern: { month: number; day: number; hour: number; year?: number } }
  | { marketType: '24hr'; eastern: { month: number; day: number; year?: number } }
);

/**
 * Use to build the slug to ask Gamma for: the market of `coin` and `type` whose window covers
 * `startMs`. 5m, 15m, 4hr: `btc-updown-5m-<start s>`; 1hr: `bitcoin-up-or-down-april-13-8am-et`
 * (the hour it starts, New York time) [u]; 24hr: `bitcoin-up-or-down-on-april-13` (the day its
 * noon-to-noon window ends) [u].
 */
export function gammaSlug(coin: Coin, type: MarketType, startMs: number): string {
  const epochWord = EPOCH_WORD[type];
  if (epochWord) {
    const d = MARKET_DURATION_MS[type];
    return `${SHORT_WORD[coin]}-updown-${epochWord}-${(Math.floor(startMs / d) * d) / 1000}`;
  }
  const e = easternHour(startMs);
  if (type === '1hr') {
    const h12 = e.hour % 12 === 0 ? 12 : e.hour % 12;
    return `${NAME_WORD[coin]}-up-or-down-${MONTHS[e.month - 1]}-${e.day}-${h12}${e.hour < 12 ? 'am' : 'pm'}-et`;
  }
  // A daily window ends at noon: from noon on it belongs to the next day's market.
  const end = new Date(Date.UTC(e.year, e.month - 1, e.day + (e.hour >= 12 ? 1 : 0)));
  return `${NAME_WORD[coin]}-up-or-down-on-${MONTHS[end.getUTCMonth()]}-${end.getUTCDate()}`;
}

/** The daily window (noon to noon, New York time [u]) that ends on the given New York day. */
export function dailyWindowEnding(year: number, month: number, day: number): { start: number; end: number } {
  return { start: easternToUtc({ year, month, day: day - 1, hour: 12 }), end: easternToUtc({ year, month, day, hour: 12 }) };
}

/**
 * Use to list the markets of `type` to ask for over a span: the start of every window that
 * overlaps [fromMs, toMs). 5m, 15m, 4hr and 1hr windows sit on multiples of their length since
 * the epoch (New York's offset is whole hours, so its hours are UTC's); 24hr windows run from
 * noon to noon New York time [u], 23 or 25 hours across a daylight-saving change.
 */
export function windowStarts(type: MarketType, fromMs: number, toMs: number): number[] {
  const starts: number[] = [];
  if (!(toMs > fromMs)) return starts;
  if (type !== '24hr') {
    const d = MARKET_DURATION_MS[type];
    for (let s = Math.floor(fromMs / d) * d; s < toMs; s += d) starts.push(s);
    return starts;
  }
  const first = easternHour(fromMs);
  for (let k = 0; ; k++) {
    const w = dailyWindowEnding(first.year, first.month, first.day + k);
    if (w.start >= toMs) return starts;
    if (w.end > fromMs) starts.push(w.start);
  }
}

const EPOCH_SLUG = /^([a-z]+)-updown-(5m|15m|1h|4h)-(\d{9,11})$/;
const HOURLY_SLUG = /^([a-z]+)-up-or-down-([a-z]+)-(\d{1,2})(?:-(\d{4}))?-(\d{1,2})(am|pm)-et$/;
const DAILY_SLUG = /^([a-z]+)-up-or-down-on-([a-z]+)-(\d{1,2})(?:-(\d{4}))?$/;

/** Use to tell a crypto Up or Down slug from any other (undefined); the coin is undefined for one msnap does not serve. */
export function readGammaSlug(slug: string): SlugReading | undefined {
  const s = slug.toLowerCase();
  let m = EPOCH_SLUG.exec(s);
  if (m) return { ...coinOf(m[1]!), marketType: EPOCH_TYPE[m[2]!]!, startTime: Number(m[3]) * 1000 };
  m = HOURLY_SLUG.exec(s);
  if (m) {
    const month = MONTHS.indexOf(m[2]!) + 1;
    const h = Number(m[5]);
    if (month === 0 || h < 1 || h > 12) return undefined;
    const hour = (h % 12) + (m[6] === 'pm' ? 12 : 0);
    return { ...coinOf(m[1]!), marketType: '1hr', eastern: { month, day: Number(m[3]), hour, ...(m[4] ? { year: Number(m[4]) } : {}) } };
  }
  m = DAILY_SLUG.exec(s);
  if (m) {
    const month = MONTHS.indexOf(m[2]!) + 1;
    if (month === 0) return undefined;
    return { ...coinOf(m[1]!), marketType: '24hr', eastern: { month, day: Number(m[3]), ...(m[4] ? { year: Number(m[4]) } : {}) } };
  }
  return undefined;
}

function coinOf(word: string): { coinWord: string; coin: Coin | undefined } {
  return { coinWord: word, coin: COIN_OF_WORD[word] };
}
