// The arguments of `msnap paper buy|sell|post`: which market (an id, or the active market of COIN
// TYPE), which side (and for post which action), how many shares and the price (limit), checked
// before any request.
import type { Coin, MarketType } from '../../domain/market.js';
import { MAX_PAPER_TTL_MS } from '../../domain/paper-order.js';
import { UsageError } from '../../errors.js';
import { checkMarketOrCoinType, coinArg, marketIdArg, marketTypeArg } from '../../domain/arguments.js';

/** A checked order: `target` is a market id or a series whose active market is meant. */
export interface PaperOrderArgs {
  target: { marketId: string } | { coin: Coin; type: MarketType };
  side: 'up' | 'down';
  action: 'buy' | 'sell';
  shares: number;
  /** --max-price on a buy, --min-price on a sell. */
  limit?: number;
}

/** A checked limit order to post: `price` it rests at, `ttlMs` its time to live (absent: until its market ends). */
export interface PaperPostArgs extends Omit<PaperOrderArgs, 'limit'> {
  price: number;
  ttlMs?: number;
}

const USAGE = (action: string) => `msnap paper ${action} <market-id | COIN TYPE> <up|down> <shares>`;
const POST_USAGE = 'msnap paper post <market-id | COIN TYPE> <up|down> <buy|sell> <shares> --price P';

/** Use on `paper buy|sell`'s arguments and price flag; a UsageError says what is wrong. */
export function parsePaperOrder(action: 'buy' | 'sell', args: string[], price: string | undefined): PaperOrderArgs {
  if (args.length < 3 || args.length > 4) throw new UsageError(`expected ${args.length < 3 ? 'more' : 'fewer'} arguments: ${USAGE(action)}`);
  const [sideText, sharesText] = args.slice(-2) as [string, string];
  const { target, side, shares } = orderWords(args.slice(0, -2), sideText, sharesText, USAGE(action));
  return { target, side, action, shares, ...(price !== undefined ? { limit: priceArg(action === 'buy' ? '--max-price' : '--min-price', price) } : {}) };
}

/** Use on `paper post`'s arguments, --price and --ttl; a UsageError says what is wrong. */
export function parsePaperPost(args: string[], price: string | undefined, ttl: string | undefined): PaperPostArgs {
  if (args.length < 4 || args.length > 5) throw new UsageError(`expected ${args.length < 4 ? 'more' : 'fewer'} arguments: ${POST_USAGE}`);
  const [sideText, actionText, sharesText] = args.slice(-3) as [string, string, string];
  const { target, side, shares } = orderWords(args.slice(0, -3), sideText, sharesText, POST_USAGE);
  const action = actionText.toLowerCase();
  if (action !== 'buy' && action !== 'sell') throw new UsageError(`action must be buy or sell, got '${actionText}': ${POST_USAGE}`);
  if (price === undefined) throw new UsageError(`--price is required: the price the order rests at, > 0 and < 1: ${POST_USAGE}`);
  const p = priceArg('--price', price);
  if (!(p > 0 && p < 1)) throw new UsageError(`--price must be > 0 and < 1 (a limit order at 0 or 1 can never fill), got '${price}'`);
  return { target, side, action, shares, price: p, ...(ttl !== undefined ? { ttlMs: ttlArg(ttl) } : {}) };
}

/** The market words, side and shares common to every order. */
function orderWords(where: string[], sideText: string, sharesText: string, usage: string): Omit<PaperOrderArgs, 'action' | 'limit'> {
  checkMarketOrCoinType(where[0]!, where[1], usage);
  const target = where.length === 1 ? { marketId: marketIdArg(where[0]!) } : { coin: coinArg(where[0]!), type: marketTypeArg(where[1]!) };
  const side = sideText.toLowerCase();
  if (side !== 'up' && side !== 'down') throw new UsageError(`side must be up or down, got '${sideText}': ${usage}`);
  const shares = /^\d+(\.\d{1,2})?$/.test(sharesText) ? Number(sharesText) : NaN;
  if (!(shares > 0 && shares <= 1e9)) throw new UsageError(`shares must be a number > 0 in steps of 0.01 (like 10 or 2.5), got '${sharesText}'`);
  return { target, side, shares };
}

function priceArg(flag: string, value: string): number {
  const p = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value.trim()) ? Number(value) : NaN;
  if (!(p >= 0 && p <= 1)) throw new UsageError(`${flag} must be a probability from 0 to 1, got '${value}'`);
  return p;
}

const TTL_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Use on --ttl: a whole number with a unit (500ms, 30s, 5m, 2h, 1d), on the server's clock. */
export function ttlArg(value: string): number {
  const m = /^(\d{1,12})(ms|s|m|h|d)$/i.exec(value.trim());
  const ms = m ? Number(m[1]) * TTL_UNIT_MS[m[2]!.toLowerCase()]! : NaN;
  if (!(ms > 0 && ms <= MAX_PAPER_TTL_MS)) throw new UsageError(`--ttl must be a time to live like 500ms, 30s, 5m, 2h or 1d (at most 31d), got '${value}'`);
  return ms;
}
