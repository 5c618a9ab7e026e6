// `msnap backtest` flags: every bad value is a one-line UsageError before anything is read.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { parseBacktestArgs } from './backtest.js';

const NOW = Date.UTC(2026, 0, 1);
const parse = (flags: Record<string, unknown>, first = 'BTC', second: string | undefined = '5m') =>
  parseBacktestArgs('s.json', first, second, flags as never, NOW);

describe('parseBacktestArgs', () => {
  it('reads the market choice as snapshots does, and the run parameters', () => {
    const o = parse({ last: '12', cash: '250.5', latencyMs: '300', feeRate: '0.02', fees: 'none', book: 'reject', set: ['size=5'], sweep: ['size=1,2'] });
    expect(o).toMatchObject({ target: { coin: 'BTC', marketType: '5m' }, last: 12, sets: ['size=5'] });
    expect(o.params).toEqual({ cash: 250.5, latency_ms: 300, fee_rate: 0.02, fees: 'none', no_book: 'reject' });
    expect(o.sweeps).toEqual([{ path: 'size', values: [1, 2], texts: ['1', '2'] }]);
    // Commander gives `book: true` when --no-book is absent: the default stays.
    expect(parse({ book: true }).params).toEqual({});
    expect(parse({ makerFill: 'queue' }).params).toEqual({ maker_fill: 'queue' });
  });

  it('takes several coins and types at once: every pair, on one clock', () => {
    const o = parse({ last: '3' }, 'btc,ETH', '5m,15m');
    expect(o.targets).toEqual([
      { coin: 'BTC', marketType: '5m' },
      { coin: 'BTC', marketType: '15m' },
      { coin: 'ETH', marketType: '5m' },
      { coin: 'ETH', marketType: '15m' },
    ]);
    expect(parse({}).targets).toBeUndefined();
    expect(() => parse({}, 'BTC,DOGE', '5m')).toThrow(UsageError);
    expect(() => parse({}, 'BTC', '5m,2m')).toThrow(UsageError);
  });

  it.each([
    [{ cash: '0' }, /--cash must be a number > 0/],
    [{ cash: 'lots' }, /--cash must be a number > 0/],
    [{ latencyMs: '-5' }, /--latency-ms must be a whole number/],
    [{ feeRate: '1.5' }, /--fee-rate must be a number in \[0, 1\)/],
    [{ fees: 'maker' }, /--fees takes 'none'/],
    [{ book: 'skip' }, /--no-book takes 'reject'/],
    [{ makerFill: 'front' }, /--maker-fill takes 'cross' \(the default\) or 'queue', got 'front'/],
    [{ sweep: ['size'] }, /--sweep takes PATH=V1,V2/],
    [{ sweep: ['size=1,,2'] }, /an empty value/],
    [{ sweep: ['size=1', 'size=2'] }, /given twice/],
    [{ sweep: ['size=1,2'], trades: 't.csv' }, /drop --trades\/--html/],
    [{ trades: 'trades.txt' }, /cannot tell the output format from '.txt'/],
    [{ from: '2026-01-02', to: '2026-01-01' }, /--from .* must be before --to/],
    [{ queue: 'redis://h' }, /--queue spreads a sweep over workers: add --sweep/],
    [{ resume: true }, /--resume goes with --queue redis:\/\/HOST/],
    [{ sweep: ['size=1,2'], chunk: '2' }, /--chunk goes with --queue/],
    [{ sweep: ['size=1,2'], queue: 'http://h' }, /invalid Redis URL "http:\/\/h": the scheme must be redis:\/\//],
    [{ sweep: ['size=1,2'], queue: 'redis://h', queueName: 'a:b' }, /--queue-name takes letters, digits/],
    [{ sweep: ['size=1,2'], queue: 'redis://h', chunk: '0' }, /--chunk must be a whole number >= 1/],
  ])('refuses %o', (flags, message) => {
    expect(() => parse(flags)).toThrow(UsageError);
    expect(() => parse(flags)).toThrow(message);
  });

  it('reads --queue with its defaults, and its companions', () => {
    expect(parse({ sweep: ['size=1,2'], queue: 'redis://10.0.0.5' }).queue).toEqual({
      target: expect.objectContaining({ host: '10.0.0.5', port: 6379, db: 0 }),
      name: 'msnap-sweeps',
      resume: false,
      chunk: 1,
    });
    expect(parse({ sweep: ['size=1,2'], queue: 'redis://h:7000/2', queueName: 'box.1', resume: true, chunk: '4' }).queue).toMatchObject({ name: 'box.1', resume: true, chunk: 4 });
    expect(parse({}).queue).toBeUndefined();
  });

  it('refuses --last with a market id', () => {
    expect(() => parseBacktestArgs('s.json', 'btc-updown-5m-1763769600', undefined, { last: '2' }, NOW)).toThrow(/--last needs COIN TYPE/);
  });
});
