// `snapshot_count` for market records that lack it (the hosted v4): one count request per market, issued a
// few markets ahead of the reader. The lookahead starts at one and doubles while the reader keeps
// reading, so `snapshots BTC 5m` (which stops at the first market with data) pays one request
// and a long `markets` listing keeps up to MAX_AHEAD in flight under the pacer.
import type { Market } from '../../domain/market.js';

/** The most count requests in flight ahead of the reader. */
export const MAX_AHEAD = 16;

/**
 * Use to fill in `snapshot_count` with `count(market_id)`, in the listing's order; markets
 * `needsCount` says already carry theirs (msnap serve's v4 sends it) pass as they are.
 */
export async function* withSnapshotCounts(
  markets: AsyncIterable<Market>,
  count: (marketId: string) => Promise<number>,
  needsCount: (market: Market) => boolean = () => true,
): AsyncGenerator<Market> {
  const it = markets[Symbol.asyncIterator]();
  const queue: { market: Market; n: Promise<number> | undefined }[] = [];
  let ahead = 1;
  let done = false;
  try {
    for (;;) {
      while (!done && queue.length < ahead) {
        const r = await it.next();
        if (r.done) {
          done = true;
          break;
        }
        if (!needsCount(r.value)) {
          queue.push({ market: r.value, n: undefined });
          continue;
        }
        const n = count(r.value.market_id);
        // Counted ahead: a failure surfaces when its market is reached, never as an unhandled rejection.
        n.catch(() => undefined);
        queue.push({ market: r.value, n });
      }
      const head = queue.shift();
      if (!head) return;
      yield head.n === undefined ? head.market : { ...head.market, snapshot_count: await head.n };
      ahead = Math.min(MAX_AHEAD, ahead * 2);
    }
  } finally {
    await it.return?.();
  }
}
