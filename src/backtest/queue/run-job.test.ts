// A worker checks a job's data before running it: every market there, with the submitter's records.
import { describe, expect, it } from 'vitest';
import type { Market } from '../../domain/market.js';
import { StoreMismatchError } from '../../errors.js';
import { marketsFingerprint } from './fingerprint.js';
import { checkedMarkets, type JobStore } from './run-job.js';
import type { SweepJobData } from './sweep-job.js';

const market = (id: string, snapshots: number): Market => ({
  market_id: id,
  slug: id,
  coin: 'BTC',
  market_type: '5m',
  status: 'resolved',
  start_time: 1_795_300_000_000,
  end_time: 1_795_300_300_000,
  price_start: 1,
  price_end: 2,
  winner: 'Up',
  snapshot_count: snapshots,
});

const submitted = [market('a', 2400), market('b', 2400)];
const job: SweepJobData = {
  sweep: {
    id: 'sweep-0123456789abcdef',
    strategy: { file: 'r.json', text: '{}' },
    selection: 'BTC 5m --last 2',
    marketIds: ['a', 'b'],
    range: {},
    params: {},
    fingerprint: marketsFingerprint(submitted, {}),
  },
  items: [{ index: 0, sets: [] }],
};

const storeOf = (markets: Market[]): JobStore => ({
  markets: async (ids) => ids.map((id) => markets.find((m) => m.market_id === id)),
  open: () => Promise.reject(new Error('not read in these tests')),
});

describe('checkedMarkets', () => {
  it('gives the store\'s markets in the sweep\'s order when they match', async () => {
    expect(await checkedMarkets(job, storeOf([submitted[1]!, submitted[0]!]))).toEqual(submitted);
  });

  it('refuses a store that lacks a market, naming it', async () => {
    const refused = checkedMarkets(job, storeOf([submitted[0]!]));
    await expect(refused).rejects.toThrow(StoreMismatchError);
    await expect(refused).rejects.toThrow(/^refused sweep-0123456789abcdef: this store lacks 1 of its 2 markets \(first: b\)$/);
  });

  it('refuses a store whose records differ, saying how', async () => {
    const refused = checkedMarkets(job, storeOf([submitted[0]!, market('b', 2300)]));
    await expect(refused).rejects.toThrow(/^refused sweep-0123456789abcdef: this store's markets differ from the submitter's \(fingerprint [0-9a-f]{16} here, [0-9a-f]{16} wanted: 4700 snapshots here, 4800 wanted\)$/);
  });
});
