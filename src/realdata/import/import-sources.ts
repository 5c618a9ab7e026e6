// Where an import's markets and prices come from: Gamma (its API, or saved answers) for the
// markets, Binance klines (files, URLs, or its REST API) for the asset price.
import { COINS, MARKET_TYPES, type Coin, type MarketType } from '../../domain/market.js';
import { UsageError } from '../../errors.js';
import { BINANCE_SYMBOL } from '../binance/binance-symbol.js';
import { fetchKlines } from '../binance/kline-fetch.js';
import { readKlines } from '../binance/kline-file.js';
import { mergeKlines, priceAt, type KlineSeries } from '../binance/kline-series.js';
import { fetchGammaMarkets } from '../gamma/gamma-fetch.js';
import { readGammaFile } from '../gamma/gamma-file.js';
import type { GammaMarket } from '../gamma/gamma-market.js';
import { gammaSlug, windowStarts } from '../gamma/market-slugs.js';
import type { PriceAt } from '../mapping/snapshot-tape.js';
import type { RealMarket } from './real-market.js';

/** The markets wanted: coins and types, and the span the archive files cover. */
export interface MarketChoice {
  coins: readonly Coin[];
  types: readonly MarketType[];
  from: number;
  to: number;
}

/** Use to turn Gamma's market into the import's record (its fee schedule in BACKTEST.md's field names). */
export function realMarket(g: GammaMarket): RealMarket {
  const f = g.fees;
  return { ...g, fees: f && { rate: f.rate, exponent: f.exponent, taker_only: f.takerOnly, rebate_rate: f.rebateRate, buy_fee_in: f.buyFeeIn } };
}

function chosen(m: GammaMarket, c: MarketChoice): boolean {
  return c.coins.includes(m.coin) && c.types.includes(m.marketType) && m.endTime > c.from - 24 * 3_600_000 && m.startTime < c.to + 24 * 3_600_000;
}

/** Markets from saved Gamma answers (files), filtered by the choice. */
export async function marketsFromGammaFiles(files: readonly string[], c: MarketChoice): Promise<{ markets: RealMarket[]; skipped: number }> {
  const byId = new Map<string, RealMarket>();
  let skipped = 0;
  for (const f of files) {
    const reading = await readGammaFile(f);
    skipped += reading.skipped.length;
    for (const m of reading.markets) if (chosen(m, c)) byId.set(m.marketId, realMarket(m));
  }
  return { markets: [...byId.values()], skipped };
}

/** Markets asked of Gamma by slug: every window of the chosen coins and types the span overlaps. */
export async function marketsFromGammaApi(baseUrl: string, c: MarketChoice): Promise<{ markets: RealMarket[]; missing: string[] }> {
  const slugs: string[] = [];
  for (const coin of c.coins) for (const type of c.types) for (const start of windowStarts(type, c.from, c.to)) slugs.push(gammaSlug(coin, type, start));
  const got = await fetchGammaMarkets(baseUrl, slugs);
  return { markets: got.markets.filter((m) => chosen(m, c)).map(realMarket), missing: got.missing };
}

/** Use to parse --coin: a comma list (any case); all coins when absent. */
export function parseCoins(value: string | undefined): Coin[] {
  if (value === undefined) return [...COINS];
  return value.split(',').map((v) => {
    const coin = COINS.find((c) => c === v.trim().toUpperCase());
    if (!coin) throw new UsageError(`--coin takes ${COINS.join(', ')} (a comma list); got "${v.trim()}"`);
    return coin;
  });
}

/** Use to parse --type: a comma list; all types when absent. */
export function parseTypes(value: string | undefined, parse: (v: string) => MarketType | undefined): MarketType[] {
  if (value === undefined) return [...MARKET_TYPES];
  return value.split(',').map((v) => {
    const type = parse(v.trim());
    if (!type) throw new UsageError(`--type takes ${MARKET_TYPES.join(', ')} (a comma list); got "${v.trim()}"`);
    return type;
  });
}

/**
 * The asset price rule per coin from kline files or URLs: each is matched to a coin by the symbol
 * in its name (`BTCUSDT-1s-2026-04-13.zip`); a file whose name says none is taken for the only
 * coin asked for, and refused when several are.
 */
export async function pricesFromFiles(sources: readonly string[], coins: readonly Coin[]): Promise<Map<Coin, PriceAt>> {
  const byCoin = new Map<Coin, KlineSeries[]>();
  for (const src of sources) {
    const series = await readKlines(src, coins.length === 1 ? { expectSymbol: BINANCE_SYMBOL[coins[0]!] } : {});
    const coin = series.symbol ? (Object.keys(BINANCE_SYMBOL) as Coin[]).find((c) => BINANCE_SYMBOL[c] === series.symbol) : coins.length === 1 ? coins[0] : undefined;
    if (!coin) {
      throw new UsageError(
        series.symbol
          ? `${src}: klines of ${series.symbol}, which msnap has no markets for (${Object.values(BINANCE_SYMBOL).join(', ')})`
          : `${src}: its name does not say the symbol; name it like BTCUSDT-1s-2026-04-13.zip, or import one --coin at a time`,
      );
    }
    byCoin.set(coin, [...(byCoin.get(coin) ?? []), series]);
  }
  return priceRules(byCoin);
}

/** The asset price rule per coin from Binance's REST API, 1s klines over [from, to]. */
export async function pricesFromApi(baseUrl: string, coins: readonly Coin[], from: number, to: number): Promise<Map<Coin, PriceAt>> {
  const byCoin = new Map<Coin, KlineSeries[]>();
  for (const coin of coins) byCoin.set(coin, [await fetchKlines(baseUrl, BINANCE_SYMBOL[coin], '1s', from, to)]);
  return priceRules(byCoin);
}

function priceRules(byCoin: Map<Coin, KlineSeries[]>): Map<Coin, PriceAt> {
  const out = new Map<Coin, PriceAt>();
  for (const [coin, list] of byCoin) {
    const series = mergeKlines(list);
    out.set(coin, (t) => priceAt(series, t));
  }
  return out;
}
