// Merging per-coin lists into the contract's order of a list of every coin.
import { describe, expect, it } from 'vitest';
import type { Market } from '../../domain/market.js';
import { mergeNewestFirst, slice } from './merged-listing.js';
import { market, T0 } from '../test-support/mock-service.js';

async function* list(starts: number[], pulled: { n: number }): AsyncGenerator<Market> {
  for (const s of starts) {
    pulled.n++;
    yield market(s);
  }
}

describe('mergeNewestFirst and slice', () => {
  it('merges newest first, ties by market id descending, and reads each list only as far as needed', async () => {
    const pulled = { n: 0 };
    const a = list([T0, T0 - 600_000, T0 - 900_000, T0 - 1_200_000], pulled);
    const eth = (async function* () {
      yield market(T0 - 300_000, { market_id: 'eth-updown-5m-x' });
      yield market(T0 - 600_000, { market_id: 'eth-updown-5m-y' });
    })();
    const ids: string[] = [];
    for await (const m of slice(mergeNewestFirst([a, eth]), 1, 2)) ids.push(m.market_id);
    // At T0 - 600 s the eth id sorts above the btc one.
    expect(ids).toEqual(['eth-updown-5m-x', 'eth-updown-5m-y']);
    expect(pulled.n).toBeLessThanOrEqual(3);
  });
});
