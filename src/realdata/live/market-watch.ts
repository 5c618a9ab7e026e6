// Which markets a recording holds, asked of Gamma by slug (REALDATA.md §1): for each coin and type
// the current window and the next (so the next market's tokens are subscribed before it opens),
// asked again until Gamma knows them; and, after a market ends, whether Gamma has closed it with a
// winner yet.
import { MARKET_DURATION_MS, type Coin, type MarketType } from '../../domain/market.js';
import { fetchGammaMarkets } from '../gamma/gamma-fetch.js';
import { gammaSlug, windowStarts } from '../gamma/market-slugs.js';
import { realMarket } from '../import/import-sources.js';
import type { RealMarket } from '../import/real-market.js';
import type { SourceGetOptions } from '../source-get.js';

/** The coins and types to record, and where Gamma is. */
export interface MarketWatchOptions {
  gammaUrl: string;
  pairs: readonly { coin: Coin; type: MarketType }[];
  /** Passed to each Gamma GET (tests: fast retries). */
  get?: SourceGetOptions;
}

/** Use once per recording: due() for markets to start recording, outcome() for ended ones. */
export class MarketWatch {
  private readonly known = new Set<string>();

  constructor(private readonly o: MarketWatchOptions) {}

  /** The slugs of the current and next window of every pair at `now`. */
  slugsAt(now: number): string[] {
    const slugs: string[] = [];
    for (const { coin, type } of this.o.pairs) {
      for (const start of windowStarts(type, now, now + MARKET_DURATION_MS[type])) slugs.push(gammaSlug(coin, type, start));
    }
    return slugs;
  }

  /** Markets of the current and next windows that Gamma knows and this watch has not given yet (ended ones left out). */
  async due(now: number): Promise<RealMarket[]> {
    const current = this.slugsAt(now);
    // A slug whose window has passed is never asked again: a long recording forgets it.
    for (const s of this.known) if (!current.includes(s)) this.known.delete(s);
    const wanted = current.filter((s) => !this.known.has(s));
    if (wanted.length === 0) return [];
    const got = await fetchGammaMarkets(this.o.gammaUrl, wanted, this.o.get);
    const out: RealMarket[] = [];
    for (const g of got.markets) {
      if (!wanted.includes(g.slug) || !this.o.pairs.some((p) => p.coin === g.coin && p.type === g.marketType)) continue;
      this.known.add(g.slug);
      if (g.endTime > now) out.push(realMarket(g));
    }
    return out;
  }

  /** The market as Gamma has it now (closed, with its winner, once resolved), or undefined when Gamma no longer knows the slug. */
  async outcome(slug: string): Promise<RealMarket | undefined> {
    const got = await fetchGammaMarkets(this.o.gammaUrl, [slug], this.o.get);
    const g = got.markets.find((m) => m.slug === slug);
    return g && realMarket(g);
  }
}
