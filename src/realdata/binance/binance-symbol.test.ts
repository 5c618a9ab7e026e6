import { describe, expect, it } from 'vitest';
import { BINANCE_SYMBOL, klineFileName, symbolLabel } from './binance-symbol.js';

describe('Binance symbols', () => {
  it('prices each coin with its USDT pair', () => {
    expect(BINANCE_SYMBOL).toEqual({ BTC: 'BTCUSDT', ETH: 'ETHUSDT', SOL: 'SOLUSDT' });
    expect(symbolLabel('SOLUSDT')).toBe('SOL');
    expect(symbolLabel('XRPUSDT')).toBe('XRPUSDT');
  });

  it('reads symbol and interval from daily and monthly bulk file names only', () => {
    expect(klineFileName('BTCUSDT-1s-2026-04-13.zip')).toEqual({ symbol: 'BTCUSDT', interval: '1s' });
    expect(klineFileName('ethusdt-1m-2026-04.csv')).toEqual({ symbol: 'ETHUSDT', interval: '1m' });
    expect(klineFileName('BTCUSDT-1s-2026-04-13.zip.CHECKSUM')).toBeUndefined();
    expect(klineFileName('prices.zip')).toBeUndefined();
  });
});
