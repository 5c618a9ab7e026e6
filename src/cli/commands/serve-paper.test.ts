import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { parseServeFlags } from './serve-flags.js';

const BASE = { host: '127.0.0.1', port: '0', demo: false, signup: true };

describe('serve --paper-cash and --paper-fee-rate', () => {
  it("default to 1000 and each market's fee schedule, and take decimals", () => {
    expect(parseServeFlags(BASE, {}).paper).toEqual({ startCash: 1000 });
    expect(parseServeFlags({ ...BASE, paperCash: '250.5', paperFeeRate: '0' }, {}).paper).toEqual({ startCash: 250.5, feeRate: 0 });
  });

  it('refuse what is not a cash amount or a rate, in one line', () => {
    for (const [flag, value] of [
      ['paperCash', '0'],
      ['paperCash', '-5'],
      ['paperCash', 'lots'],
      ['paperCash', '1e13'],
      ['paperFeeRate', '1.5'],
      ['paperFeeRate', '-0.1'],
      ['paperFeeRate', '7%'],
    ] as const) {
      expect(() => parseServeFlags({ ...BASE, [flag]: value }, {}), `${flag}=${value}`).toThrow(UsageError);
    }
    expect(() => parseServeFlags({ ...BASE, paperCash: 'x' }, {})).toThrow(/^--paper-cash must be a number of USDC > 0/);
  });

  it('--paper-maker-fill takes cross or queue', () => {
    expect(parseServeFlags({ ...BASE, paperMakerFill: 'queue' }, {}).paper).toEqual({ startCash: 1000, makerFill: 'queue' });
    expect(parseServeFlags({ ...BASE, paperMakerFill: 'cross', paperFeeRate: '0.07' }, {}).paper).toEqual({ startCash: 1000, feeRate: 0.07, makerFill: 'cross' });
    expect(() => parseServeFlags({ ...BASE, paperMakerFill: 'Queue' }, {})).toThrow(/^--paper-maker-fill must be cross or queue; got "Queue"/);
  });
});
