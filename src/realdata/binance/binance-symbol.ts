// Which Binance spot symbol prices each coin, and what a Binance kline file's name says.
import type { Coin } from '../../domain/market.js';

/** Use to pick the Binance symbol whose klines price a coin's markets. */
export const BINANCE_SYMBOL: Readonly<Record<Coin, string>> = { BTC: 'BTCUSDT', ETH: 'ETHUSDT', SOL: 'SOLUSDT' };

/** Use to word a symbol for a person: the coin it prices where msnap knows it (`BTC`), else the symbol. */
export function symbolLabel(symbol: string): string {
  const coin = (Object.keys(BINANCE_SYMBOL) as Coin[]).find((c) => BINANCE_SYMBOL[c] === symbol);
  return coin ?? symbol;
}

const FILE_NAME = /^([A-Z0-9]+)-(\d+[smhdwM])-\d{4}-\d{2}(?:-\d{2})?\.(?:zip|csv)$/i;

/** Use to read the symbol and interval out of a bulk file's name (`BTCUSDT-1s-2026-04-13.zip`); undefined for another name. */
export function klineFileName(name: string): { symbol: string; interval: string } | undefined {
  const m = FILE_NAME.exec(name);
  return m ? { symbol: m[1]!.toUpperCase(), interval: m[2]! } : undefined;
}
