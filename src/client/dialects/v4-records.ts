// v4 records into msnap's: `1h` is `1hr`, `{coin}_price*` is `price*`, the coin comes from the
// request, `status` is derived (v4 has none), and `snapshot_count` is the record's where it has one
// (msnap serve's extension) and otherwise left for the facade to count.
import { coinPriceKey, contractNamesOfMarket } from '../../domain/dialect-records.js';
import type { Coin, Market, Snapshot } from '../../domain/market.js';
import { toNumber } from '../../domain/numeric-field.js';
import { asObject, normalizeMarket, normalizeSnapshot, toEpochMs } from '../normalize.js';

// Markets read from records without `snapshot_count` (the hosted v4 sends none): 0 until counted.
const countless = new WeakSet<Market>();

/** True for a market marketFromV4 read from a record that had no `snapshot_count`. */
export function lacksSnapshotCount(m: Market): boolean {
  return countless.has(m);
}

/** Use on every v4 market: resolved once it has a winner or its end has passed (by `now`). */
export function marketFromV4(raw: unknown, coin: Coin, now: number): Market {
  const r = contractNamesOfMarket(asObject(raw, 'market'), coin);
  const end = toEpochMs(r['end_time']);
  const resolved = (typeof r['winner'] === 'string' && r['winner'] !== '') || (end !== undefined && end <= now);
  const m = normalizeMarket({ ...r, status: resolved ? 'resolved' : 'active' }, now);
  if (toNumber(r['snapshot_count']) === undefined) countless.add(m);
  return m;
}

/**
 * Use on every v4 snapshot. Hot path of a v4 export: a row of plain numbers is built straight
 * into the contract's field order (so JSON output matches v1's byte for byte); anything else goes
 * through the general normaliser with `price` added.
 */
export function snapshotFromV4(raw: unknown, coin: Coin, marketId: string, priceKey = coinPriceKey(coin)): Snapshot {
  const r = raw as Record<string, unknown>;
  if (r !== null && typeof r === 'object' && !Array.isArray(r)) {
    const { id, market_id: mid, time, price_up: up, price_down: down } = r;
    const price = r[priceKey] ?? r['price'];
    if (
      typeof id === 'number' &&
      typeof time === 'number' &&
      typeof price === 'number' &&
      typeof up === 'number' &&
      typeof down === 'number' &&
      r['orderbook_up'] === undefined &&
      r['orderbook_down'] === undefined
    ) {
      return { id, market_id: typeof mid === 'string' ? mid : marketId, time, price, price_up: up, price_down: down };
    }
    return normalizeSnapshot({ ...r, price }, marketId);
  }
  return normalizeSnapshot(raw, marketId);
}
