// GET /v1/snapshots/at-timestamp: the snapshot nearest a time, within a tolerance.
import { HttpException } from '../http-error.js';
import { defineRoute } from '../route.js';
import { readableMarket } from './market-lookup.js';

/** The farthest a snapshot may lie from the asked time and still be "at" it. */
export const AT_TIMESTAMP_TOLERANCE_MS = 2000;

/** The at-timestamp route (`timestamp` is an alias of `ts`). */
export const atTimestampRoute = defineRoute({
  pattern: 'snapshots/at-timestamp',
  query: (q) => {
    const market = q.required('market', 'a market id such as btc-updown-5m-1763769600');
    const ts = q.integer('ts');
    const alias = q.integer('timestamp');
    if (ts !== undefined && alias !== undefined) {
      throw new HttpException(400, 'Parameters ts and timestamp are the same; give only one.');
    }
    const at = ts ?? alias;
    if (at === undefined) throw new HttpException(400, 'Parameter ts is required: a time in epoch milliseconds.');
    return { market, ts: at };
  },
  handle: (ctx, q) => {
    const market = readableMarket(ctx, q.market);
    const snapshot = ctx.store.nearestSnapshot(market.market_id, q.ts);
    if (!snapshot || Math.abs(snapshot.time - q.ts) > AT_TIMESTAMP_TOLERANCE_MS) {
      throw new HttpException(
        404,
        `No snapshot of market ${market.market_id} lies within ${AT_TIMESTAMP_TOLERANCE_MS.toLocaleString('en-US')} ms of ts ${q.ts}.`,
      );
    }
    return JSON.stringify({ market_id: market.market_id, ts: q.ts, delta_ms: snapshot.time - q.ts, snapshot });
  },
});
