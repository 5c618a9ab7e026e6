// The arguments of `msnap paper buy|sell`: which market (an id, or the active market of COIN TYPE),
// which side, how many shares and the price limit, checked before any request.
import type { Coin, MarketType } from '../../domain/market.js';
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

const USAGE = (action: string) => `msnap paper ${action} <market-id | COIN TYPE> <up|down> <shares>`;

/** Use on `paper buy|sell`'s arguments and price flag; a UsageError says what is wrong. */
export function parsePaperOrder(action: 'buy' | 'sell', args: string[], price: string | undefined): PaperOrderArgs {
  if (args.length < 3 || args.length > 4) throw new UsageError(`expected ${args.length < 3 ? 'more' : 'fewer'} arguments: ${USAGE(action)}`);
  const [sideText, sharesText] = args.slice(-2) as [string, string];
  const where = args.slice(0, -2);
  checkMarketOrCoinType(where[0]!, where[1], USAGE(action));
  const target = where.length === 1 ? { marketId: marketIdArg(where[0]!) } : { coin: coinArg(where[0]!), type: marketTypeArg(where[1]!) };
  const side = sideText.toLowerCase();
  if (side !== 'up' && side !== 'down') throw new UsageError(`side must be up or down, got '${sideText}': ${USAGE(action)}`);
  const shares = /^\d+(\.\d{1,2})?$/.test(sharesText) ? Number(sharesText) : NaN;
  if (!(shares > 0 && shares <= 1e9)) throw new UsageError(`shares must be a number > 0 in steps of 0.01 (like 10 or 2.5), got '${sharesText}'`);
  return { target, side, action, shares, ...(price !== undefined ? { limit: priceArg(action === 'buy' ? '--max-price' : '--min-price', price) } : {}) };
}

function priceArg(flag: string, value: string): number {
  const p = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value.trim()) ? Number(value) : NaN;
  if (!(p >= 0 && p <= 1)) throw new UsageError(`${flag} must be a probability from 0 to 1, got '${value}'`);
  return p;
}
