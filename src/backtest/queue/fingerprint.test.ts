// The fingerprint a worker checks before running a queued sweep's job.
import { describe, expect, it } from 'vitest';
import type { Market } from '../../domain/market.js';
import { fingerprintDifference, marketsFingerprint } from './fingerprint.js';

const market = (k: number, over: Partial<Market> = {}): Market => ({
  market_id: `btc-updown-5m-${1795300000 + k * 300}`,
  slug: `btc-updown-5m-${1795300000 + k * 300}`,
  coin: 'BTC',
  market_type: '5m',
  status: 'resolved',
  start_time: (1795300000 + k * 300) * 1000,
  end_time: (1795300300 + k * 300) * 1000,
  price_start: 100_000,
  price_end: 100_010,
  winner: 'Up',
  snapshot_count: 2400,
  ...over,
});

describe('marketsFingerprint', () => {
  const markets = [market(0), market(1), market(2)];

  it('sums the markets up and is the same for the same records and range', () => {
    const fp = marketsFingerprint(markets, {});
    expect(fp).toMatchObject({ markets: 3, snapshots: 7200, first: markets[0]!.start_time, last: markets[2]!.end_time });
    expect(fp.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(marketsFingerprint(markets.map((m) => ({ ...m })), {})).toEqual(fp);
  });

  it('differs when a count, an outcome, the order or the range differs, and says how', () => {
    const fp = marketsFingerprint(markets, {});
    const more = marketsFingerprint([market(0), market(1, { snapshot_count: 2401 }), market(2)], {});
    expect(more.hash).not.toBe(fp.hash);
    expect(fingerprintDifference(fp, more)).toMatch(/7201 snapshots here, 7200 wanted/);
    const other = marketsFingerprint([market(0), market(1, { winner: 'Down' }), market(2)], {});
    expect(other.hash).not.toBe(fp.hash);
    expect(fingerprintDifference(fp, other)).toMatch(/the same counts but other market records/);
    expect(marketsFingerprint([...markets].reverse(), {}).hash).not.toBe(fp.hash);
    expect(marketsFingerprint(markets, { from: markets[1]!.start_time }).hash).not.toBe(fp.hash);
    expect(fingerprintDifference(fp, marketsFingerprint(markets.slice(1), {}))).toMatch(/^fingerprint [0-9a-f]{16} here, [0-9a-f]{16} wanted: 2 markets here, 3 wanted/);
  });
});
