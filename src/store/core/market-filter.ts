// The market list's filter, order and builder window, written once and rendered per SQL dialect:
// each backend says only how a bound value appears in its SQL (SQLite `@name`, PostgreSQL `$n`).
import { COINS, MARKET_DURATION_MS, MARKET_TYPES, type Coin, type MarketType } from '../../domain/market.js';
import type { DataWindow } from '../../domain/plans.js';
import type { MarketQuery } from '../store.js';

/** The list order: newest start_time first, ties by market_id descending. */
export const ORDER_NEWEST = 'ORDER BY start_time DESC, market_id DESC';
/** A cutoff below every real start_time: the series has fewer markets than its cap. */
const NO_CUTOFF = -8_640_000_000_000_000;
/** The cutoff of a series the window hides entirely (cap 0). */
export const CLOSED_SERIES = Number.MAX_SAFE_INTEGER;
const MAX_MARKET_MS = Math.max(...Object.values(MARKET_DURATION_MS));

/** How a dialect writes a bound value into SQL: returns the placeholder, e.g. `@coin` or `$3`. */
export type Bind = (name: string, value: string | number) => string;

/** start_time of the cap-th newest market of each series (`coin/type`); absent: shorter than its cap. */
export type WindowCutoffs = ReadonlyMap<string, number>;

/** Use to key a series (coin and type) in WindowCutoffs. */
function seriesKey(coin: string, type: string): string {
  return `${coin}/${type}`;
}

/** One series of the window: where the cap-th newest market is found (`offset`), or undefined when the cap hides it all. */
export interface WindowSeries {
  coin: Coin;
  type: MarketType;
  key: string;
  offset: number | undefined;
}

/** Use to compute WindowCutoffs: every series with the OFFSET of its cap-th newest market (a cap of 0: CLOSED_SERIES). */
export function windowSeries(window: Exclude<DataWindow, null>): WindowSeries[] {
  const out: WindowSeries[] = [];
  for (const coin of COINS) {
    for (const type of MARKET_TYPES) {
      const cap = window[type];
      out.push({ coin, type, key: seriesKey(coin, type), offset: cap <= 0 ? undefined : cap - 1 });
    }
  }
  return out;
}

/**
 * Use for every market list and count: the WHERE clause ('' when nothing filters) of `q` with
 * `status` (which may differ from q.status for a count) and the window's cutoffs when it has one.
 * `cast` follows a window bound inside CASE where the dialect needs a type (PostgreSQL `::bigint`).
 */
export function marketWhere(q: MarketQuery, status: MarketQuery['status'], cutoffs: WindowCutoffs | undefined, bind: Bind, cast = ''): string {
  const where: string[] = [];
  if (q.coin !== undefined) where.push(`coin = ${bind('coin', q.coin)}`);
  if (q.marketType !== undefined) where.push(`market_type = ${bind('type', q.marketType)}`);
  if (q.startFrom !== undefined) where.push(`start_time >= ${bind('from', q.startFrom)}`);
  if (q.startBefore !== undefined) where.push(`start_time < ${bind('before', q.startBefore)}`);
  if (status !== undefined) {
    // No market lasts longer than a day: the extra bound lets the start_time index find active ones.
    const now = bind('now', q.now);
    const active = `(start_time > ${bind('nowLessDay', q.now - MAX_MARKET_MS)} AND start_time <= ${now} AND end_time > ${now})`;
    where.push(status === 'active' ? active : `NOT ${active}`);
  }
  if (cutoffs !== undefined) {
    if (q.coin !== undefined && q.marketType !== undefined) {
      where.push(`start_time >= ${bind('cut', cutoffs.get(seriesKey(q.coin, q.marketType)) ?? NO_CUTOFF)}`);
    } else {
      // One bound per series; the CASE keeps it a single prepared statement.
      const cases: string[] = [];
      let i = 0;
      for (const coin of COINS) {
        for (const type of MARKET_TYPES) {
          cases.push(`WHEN '${seriesKey(coin, type)}' THEN ${bind(`w${i++}`, cutoffs.get(seriesKey(coin, type)) ?? NO_CUTOFF)}${cast}`);
        }
      }
      where.push(`start_time >= CASE coin || '/' || market_type ${cases.join(' ')} END`);
    }
  }
  return where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
}
