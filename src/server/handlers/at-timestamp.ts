// GET /v1/snapshots/at-timestamp (v1's own spelling) and the nearest rule it shares with
// markets/{id}/snapshot-at/{time}: the snapshot nearest a time, within a tolerance.
import type { ServedMarket, Snapshot } from '../../domain/market.js';
import { HttpException } from '../http-error.js';
import type { CoreRoute, KeyedContext } from '../route.js';
import { readableMarket } from './market-lookup.js';

/** The farthest a snapshot may lie from the asked time and still be "at" it. */
export const AT_TIMESTAMP_TOLERANCE_MS = 2000;

/** Use for every "snapshot at a time" endpoint: the nearest (earlier on a tie), 404 when none lies within the tolerance. */
export async function nearestWithin(ctx: KeyedContext, market: ServedMarket, ts: number, includeOrderbook: boolean): Promise<Snapshot> {
  const snapshot = await ctx.store.nearestSnapshot(market.market_id, ts, includeOrderbook);
  if (!snapshot || Math.abs(snapshot.time - ts) > AT_TIMESTAMP_TOLERANCE_MS) {
    throw new HttpException(
      404,
      `No snapshot of market ${market.market_id} lies within ${AT_TIMESTAMP_TOLERANCE_MS.toLocaleString('en-US')} ms of ${ts}.`,
      {},
      {},
      { kind: 'snapshot_not_found' },
    );
  }
  return snapshot;
}

/** The at-timestamp body (`timestamp` is an alias of `ts`). */
export interface AtTimestampResult {
  market_id: string;
  ts: number;
  delta_ms: number;
  snapshot: Snapshot;
}

/** v1's at-timestamp: `market` and `ts` (or `timestamp`) in the query. */
export const atTimestampCore: CoreRoute<{ market: string | undefined; ts: number | undefined }, AtTimestampResult> = {
  query: (q) => {
    const market = q.required('market', 'a market id such as btc-updown-5m-1763769600');
    const ts = q.integer('ts');
    const alias = q.integer('timestamp');
    if (ts !== undefined && alias !== undefined) return { market, ts: q.fail('timestamp', 'Parameters ts and timestamp are the same; give only one.') };
    const at = ts ?? alias;
    if (at === undefined && q.failures.every((f) => f.name !== 'ts' && f.name !== 'timestamp')) {
      q.fail('ts', 'Parameter ts is required: a time in epoch milliseconds.', 'missing');
    }
    return { market, ts: at };
  },
  handle: async (ctx, q) => {
    const market = await readableMarket(ctx, q.market!);
    const snapshot = await nearestWithin(ctx, market, q.ts!, false);
    return { market_id: market.market_id, ts: q.ts!, delta_ms: snapshot.time - q.ts!, snapshot };
  },
};
